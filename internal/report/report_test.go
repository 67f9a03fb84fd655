package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/contractlint/contractlint/rules"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func noEnv(string) string { return "" }

func render(t *testing.T, format string, o Options, r *Report) []byte {
	t.Helper()
	rep, err := New(format, o)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := rep.Write(&buf, r); err != nil {
		t.Fatalf("%s: %v", format, err)
	}
	return buf.Bytes()
}

func TestFormatsRegistered(t *testing.T) {
	want := []string{"bitbucket", "github", "github-review", "gitlab", "json", "junit", "markdown", "msvs", "sarif", "text"}
	if got := Formats(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("Formats() = %v, want %v", got, want)
	}
	if _, err := New("yaml", Options{}); err == nil || !strings.Contains(err.Error(), "sarif") {
		t.Errorf("New(yaml) error = %v, want one listing the formats", err)
	}
}

// TestGolden compares every format's output for fixed inputs with
// testdata/<fixture>.<format>.golden; -update rewrites them.
func TestGolden(t *testing.T) {
	fixtures := map[string][]rules.Finding{
		"fixed":   fixedFindings(),
		"hostile": hostileFindings(),
		"empty":   nil,
	}
	for name, fs := range fixtures {
		for _, format := range Formats() {
			t.Run(name+"/"+format, func(t *testing.T) {
				r := testReport(t, fs)
				switch name {
				case "fixed":
					withAccepted(r, "the carrier moved to the shipment API")
				case "hostile":
					withAccepted(r, hostile)
				}
				got := render(t, format, Options{Getenv: noEnv}, r)
				path := filepath.Join("testdata", name+"."+format+".golden")
				if *update {
					if err := os.WriteFile(path, got, 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run go test -update to create it)", err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("output differs from %s (go test -update rewrites it)\ngot:\n%s", path, got)
				}
			})
		}
	}
}

// TestHostileTextIsInert runs the hostile findings through every format and
// checks what a reader of each would see: no control or bidi character, valid
// UTF-8, and (for JSON, SARIF and JUnit) the same after decoding, since a
// consumer that decodes and prints must not be attacked either.
func TestHostileTextIsInert(t *testing.T) {
	r := withAccepted(testReport(t, hostileFindings()), hostile)
	for _, format := range Formats() {
		t.Run(format, func(t *testing.T) {
			out := render(t, format, Options{Getenv: noEnv}, r)
			checkInert(t, "output", string(out))
			switch format {
			case "json", "sarif", "gitlab", "bitbucket", "github-review":
				var v any
				if err := json.Unmarshal(out, &v); err != nil {
					t.Fatal(err)
				}
				walkStrings(v, func(s string) { checkInert(t, "decoded string", s) })
			case "junit":
				dec := xml.NewDecoder(bytes.NewReader(out))
				for {
					tok, err := dec.Token()
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatalf("invalid XML: %v", err)
					}
					switch tok := tok.(type) {
					case xml.CharData:
						checkInert(t, "decoded text", string(tok))
					case xml.StartElement:
						for _, a := range tok.Attr {
							checkInert(t, "decoded attribute", a.Value)
						}
					}
				}
			}
		})
	}
}

func checkInert(t *testing.T, what, s string) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Errorf("%s is not valid UTF-8: %q", what, s)
	}
	for _, r := range s {
		if r != '\n' && (unicode.IsControl(r) || needsClean(r)) {
			t.Errorf("%s carries %U: %q", what, r, s)
			return
		}
	}
}

func walkStrings(v any, f func(string)) {
	switch v := v.(type) {
	case string:
		f(v)
	case []any:
		for _, x := range v {
			walkStrings(x, f)
		}
	case map[string]any:
		for k, x := range v {
			f(k)
			walkStrings(x, f)
		}
	}
}

// TestEveryFormatListsAcceptedInPR: what the change accepted itself is
// listed, with who accepted it why, by every registered format, whether or
// not anything else was found: no format may let a pull request lower its
// own bar unseen.
func TestEveryFormatListsAcceptedInPR(t *testing.T) {
	const why = "the carrier moved to the shipment API"
	for _, fs := range [][]rules.Finding{nil, fixedFindings()} {
		for _, format := range Formats() {
			t.Run(fmt.Sprintf("%s/%d", format, len(fs)), func(t *testing.T) {
				// Root set: the formats that name files from the
				// repository's top rebase the report first.
				root := t.TempDir()
				out := string(render(t, format, Options{Getenv: noEnv, Root: root, Dir: root}, withAccepted(testReport(t, fs), why)))
				for _, want := range []string{why, "response-property-removed", "api/openapi.yaml"} {
					if !strings.Contains(out, want) {
						t.Errorf("%s output lacks %q:\n%s", format, want, out)
					}
				}
			})
		}
	}
}
