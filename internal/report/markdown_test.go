package report

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/contractlint/contractlint/rules"
)

func writeMarkdown(t *testing.T, m *Markdown, fs []rules.Finding) string {
	t.Helper()
	var buf bytes.Buffer
	if err := m.Write(&buf, testReport(t, fs)); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// unescaped finds a character that is not preceded by a backslash escape.
func unescaped(s string, c byte) []int {
	var at []int
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++ // the next character is escaped
		case c:
			at = append(at, i)
		}
	}
	return at
}

// TestMarkdownCannotInject checks the hostile findings at the Markdown
// source level: every table row keeps its five cell borders, the only HTML
// tag is our <br>, the only links are ours, and every @ sits in a code span.
func TestMarkdownCannotInject(t *testing.T) {
	out := writeMarkdown(t, &Markdown{RulesURL: DefaultRulesURL}, hostileFindings())
	rows := 0
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "| ") {
			if strings.HasPrefix(line, "### ") && len(unescaped(line, '|')) > 0 {
				t.Errorf("heading carries an unescaped |: %q", line)
			}
			continue
		}
		rows++
		if n := len(unescaped(line, '|')); n != 5 {
			t.Errorf("table row has %d cell borders, want 5: %q", n, line)
		}
	}
	if rows != 2*2+len(hostileFindings()) { // two files: header and rule line each
		t.Errorf("%d table lines, want %d", rows, 2*2+len(hostileFindings()))
	}
	if tags := regexp.MustCompile(`<[^>]*>`).FindAllString(strings.ReplaceAll(out, "<br>", ""), -1); len(tags) > 0 {
		t.Errorf("HTML reached the output: %q", tags)
	}
	// Our links: the rules page, at a rule's own kebab-case anchor.
	page, _, _ := strings.Cut(DefaultRulesURL, "#")
	oursRE := regexp.MustCompile(`^\]\(` + regexp.QuoteMeta(page) + `#[a-z0-9-]+\)`)
	ours := func(s string) bool { return oursRE.MatchString(s) }
	for _, i := range unescaped(out, ']') {
		if !ours(out[i:]) {
			t.Errorf("a ] that closes no link of ours: %q", out[max(0, i-20):min(len(out), i+30)])
		}
	}
	if n := len(unescaped(out, '`')); n%2 != 0 {
		t.Errorf("%d unescaped backticks: a code span is left open", n)
	}
	if strings.Count(out, "@") != strings.Count(out, "`@`") {
		t.Error("an @ outside a code span would notify someone")
	}
	for _, c := range []byte{'*', '_', '['} {
		for _, i := range unescaped(out, c) {
			if c == '[' {
				if closing := unescaped(out[i:], ']'); len(closing) > 0 && ours(out[i+closing[0]:]) {
					continue // one of our rule links
				}
			}
			t.Errorf("unescaped %c: %q", c, out[max(0, i-20):min(len(out), i+30)])
		}
	}
}

func TestMarkdownText(t *testing.T) {
	for in, want := range map[string]string{
		"plain words":        "plain words",
		"a|b":                `a\|b`,
		"<script>x</script>": "&lt;script&gt;x&lt;/script&gt;",
		"&lt;":               "&amp;lt;",
		"`code`":             "\\`code\\`",
		"*b* _i_":            `\*b\* \_i\_`,
		"[l](http://x)":      "\\[l\\](http`://`x)",
		// Bare links GitHub would render: after a space or a parenthesis.
		"see https://evil.example/login": "see https`://`evil.example/login",
		"(www.evil.example)":             "(www`.`evil.example)",
		"![img](x)":                      `\!\[img\](x)`,
		"line\nbreak":                    "line break",
		"@someone":                       "`@`someone",
		`back\slash`:                     `back\\slash`,
		"#/paths/~1pets":                 `\#/paths/\~1pets`,
		"\x1b[1mbold\xff":                `\\u001b\[1mbold\\ufffd`,
		"<img src=x onerror=y>":          "&lt;img src=x onerror=y&gt;",
	} {
		if got := markdownText(in); got != want {
			t.Errorf("markdownText(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMarkdownGrouping(t *testing.T) {
	out := writeMarkdown(t, &Markdown{}, fixedFindings())
	if !strings.HasPrefix(out, "## contractlint: 2 errors, 3 warnings, 1 info\n") {
		t.Errorf("heading: %q", strings.SplitN(out, "\n", 2)[0])
	}
	api, proto := strings.Index(out, "### api/openapi.yaml"), strings.Index(out, "### proto/charge.proto")
	if api < 0 || proto < api {
		t.Fatalf("want a section per file, api before proto:\n%s", out)
	}
	// Within a file the most severe come first: the warning before the info.
	if w, i := strings.Index(out[proto:], "| warning |"), strings.Index(out[proto:], "| info |"); w < 0 || i < w {
		t.Errorf("proto section not ordered by severity:\n%s", out[proto:])
	}
	if strings.Contains(out, "](") {
		t.Errorf("links without a RulesURL:\n%s", out)
	}
	if got := writeMarkdown(t, &Markdown{}, nil); got != "## contractlint: no findings\n" {
		t.Errorf("empty report = %q", got)
	}
}

func TestMarkdownBudget(t *testing.T) {
	var fs []rules.Finding
	for i := range 2000 {
		fs = append(fs, rules.Finding{Rule: "enum-value-added", Severity: rules.Warning, Message: strings.Repeat("x", 40),
			Where: rules.Location{File: fmt.Sprintf("api/f%02d.yaml", i%20), Line: i + 1}})
	}
	const budget = 10000
	out := writeMarkdown(t, &Markdown{RulesURL: DefaultRulesURL, MaxBytes: budget}, fs)
	if len(out) > budget {
		t.Errorf("%d bytes, over the budget of %d", len(out), budget)
	}
	shown := strings.Count(out, "\n| warning |")
	m := regexp.MustCompile(`(\d+) more findings not shown`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no overflow line:\n%s", out[len(out)-300:])
	}
	var left int
	fmt.Sscan(m[1], &left)
	if shown == 0 || shown+left != len(fs) {
		t.Errorf("%d shown + %d counted = %d, want %d", shown, left, shown+left, len(fs))
	}
}
