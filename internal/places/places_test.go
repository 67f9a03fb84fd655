package places_test

import (
	"strings"
	"testing"

	"github.com/contractlint/contractlint/internal/places"
)

// The same element is found at its place in every layout: what the entry's
// bytes start with tells that the byte range is the one the line and column
// name.
func TestFindEveryLayout(t *testing.T) {
	block := "openapi: 3.1.0\npaths:\n  /a:\n    get:\n      summary: s\n    post:\n      summary: é\n"
	cases := []struct {
		name, text string
		line, col  int
		entry      string // the text of the entry /paths/~1a/post
	}{
		{"block", block, 6, 5, "get:\n      summary: s\n    "},
		{"crlf", strings.ReplaceAll(block, "\n", "\r\n"), 6, 5, "get:\r\n      summary: s\r\n    "},
		{"bom", "\ufeff" + block, 6, 5, "get:\n      summary: s\n    "},
		{"flow yaml", "openapi: 3.1.0\npaths: {/a: {get: {summary: s}, post: {summary: é}}}\n", 2, 33, "get: {summary: s}, "},
		{"pretty json", "{\n  \"openapi\": \"3.1.0\",\n  \"paths\": {\n    \"/a\": {\n      \"get\": {\"summary\": \"s\"},\n      \"post\": {\"summary\": \"é\"}\n    }\n  }\n}\n",
			6, 7, "\"get\": {\"summary\": \"s\"},\n      "},
		{"minified json", `{"openapi":"3.1.0","paths":{"/a":{"get":{"summary":"s"},"post":{"summary":"é"}}}}`, 1, 57, `"get":{"summary":"s"},`},
		{"second document ignored", block + "---\npaths:\n  /b: {}\n", 6, 5, "get:\n      summary: s\n    "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := places.Read([]byte(c.text))
			if err != nil {
				t.Fatal(err)
			}
			p, matched := d.Find([]string{"paths", "/a", "post"})
			if matched != 3 || p.Line != c.line || p.Column != c.col {
				t.Fatalf("found %d segments at %d:%d, want 3 at %d:%d", matched, p.Line, p.Column, c.line, c.col)
			}
			if !strings.HasPrefix(c.text[p.Start:p.End], "post") && !strings.HasPrefix(c.text[p.Start:p.End], `"post"`) {
				t.Errorf("entry bytes %q do not start with post", c.text[p.Start:p.End])
			}
			// An entry that is not its mapping's last ends where the next begins.
			g, _ := d.Find([]string{"paths", "/a", "get"})
			if entry := c.text[g.Start:g.End]; entry != c.entry || g.End != p.Start {
				t.Errorf("entry bytes %q, want %q up to post's", entry, c.entry)
			}
		})
	}
}

// The deepest element there is, when the path goes further than the text.
func TestFindDeepest(t *testing.T) {
	d, err := places.Read([]byte("a:\n  b:\n    - x\n    - y: 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path          []string
		line, matched int
	}{
		{[]string{"a", "b", "1", "y"}, 4, 4},
		{[]string{"a", "b", "1", "z"}, 4, 3},
		{[]string{"a", "b", "2"}, 2, 2},
		{[]string{"a", "c"}, 1, 1},
		{[]string{"q"}, 1, 0},
	} {
		if p, m := d.Find(c.path); p.Line != c.line || m != c.matched {
			t.Errorf("%v: line %d, %d matched; want line %d, %d", c.path, p.Line, m, c.line, c.matched)
		}
	}
}

// Aliases are followed to their anchor, and a merge key's keys are found
// where the anchor wrote them, after those written in the mapping.
func TestAnchorsAliasesMerge(t *testing.T) {
	text := "base: &b\n  x: 1\n  y: 2\nuse:\n  <<: *b\n  z: 3\nref: *b\n"
	d, err := places.Read([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if p, m := d.Find([]string{"use", "x"}); m != 2 || p.Line != 2 {
		t.Errorf("merged key x: line %d, %d matched; want line 2", p.Line, m)
	}
	if p, m := d.Find([]string{"ref", "y"}); m != 2 || p.Line != 3 {
		t.Errorf("aliased key y: line %d, %d matched; want line 3", p.Line, m)
	}
	var keys []string
	for _, e := range d.Entries([]string{"use"}) {
		keys = append(keys, e.Key)
	}
	if got := strings.Join(keys, " "); got != "z x y" {
		t.Errorf("entries of use: %s, want z x y", got)
	}
}

func TestEntries(t *testing.T) {
	d, err := places.Read([]byte(`{"paths":{"/a":{"get":{},"post":{}},"/b":{"put":{}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range d.Entries([]string{"paths", "/a"}) {
		got = append(got, e.Key+"@"+string(rune('0'+e.Column/10))+string(rune('0'+e.Column%10)))
	}
	if strings.Join(got, " ") != "get@17 post@26" {
		t.Errorf("entries %v", got)
	}
	if d.Entries([]string{"paths", "/a", "get", "x"}) != nil || d.Entries([]string{"nothing"}) != nil {
		t.Error("entries of a path the text does not have")
	}
}

func TestDocuments(t *testing.T) {
	d, err := places.Read([]byte("a: 1\n---\nb: 2\n---\n"))
	if err != nil {
		t.Fatal(err)
	}
	if d.Documents() != 2 || d.DocumentLine(1) != 3 {
		t.Errorf("%d documents, the second at line %d; want 2, at line 3", d.Documents(), d.DocumentLine(1))
	}
	if _, err := places.Read([]byte("a: [1, 2\nb: 3\n")); err == nil {
		t.Error("an unclosed flow list read")
	}
}

// Billion laughs: each anchor aliases the one before ten times; counting
// stops past the limit at the alias that passed it.
func TestElementsExpandAliases(t *testing.T) {
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 9; i++ {
		b.WriteString("a" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [")
		for j := range 10 {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*a" + string(rune('0'+i-1)))
		}
		b.WriteString("]\n")
	}
	d, err := places.Read([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	n, line := d.Elements(1_000_000)
	if n != 1_000_001 || line != 6 {
		t.Errorf("counted %d, passing at line %d; want 1000001 at line 6", n, line)
	}
	if n, line := d.Elements(1 << 40); line != 0 || n < 100_000_000 {
		t.Errorf("without a limit in reach: %d at line %d", n, line)
	}
}
