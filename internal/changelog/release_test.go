package changelog_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/contractlint/contractlint/internal/changelog"
)

// A log over several releases heads each group with its release and carries
// the run's notes in every format, escaped: both come from repository text.
func TestReleasesAndNotes(t *testing.T) {
	l := &changelog.Log{Notes: []string{"checked against 1 release: v1\x1b[31m"}}
	l.File(changelog.Added, "api/pay.yaml", nil)
	l.Groups[0].Release = "v1\x1b[31m"
	want := map[string][]string{
		"text":     {"since v1\\u001b[31m: api/pay.yaml\n", "note: checked against 1 release: v1\\u001b[31m\n"},
		"markdown": {`### since v1\\u001b\[31m: api/pay.yaml`, `_checked against 1 release: v1\\u001b\[31m_`},
		"json":     {`"release": "v1\\u001b[31m"`, `"notes": [` + "\n" + `    "checked against 1 release: v1\\u001b[31m"`},
	}
	for format, ws := range want {
		var b bytes.Buffer
		if err := changelog.Write(&b, l, format); err != nil {
			t.Fatal(err)
		}
		for _, w := range ws {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: no %q in\n%s", format, w, b.String())
			}
		}
		if strings.Contains(b.String(), "\x1b") {
			t.Errorf("%s: an escape sequence reached the changelog", format)
		}
	}
}
