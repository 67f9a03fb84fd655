package cli_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestMigratingDoc keeps docs/migrating.md's "after" setups run: every
// contractlint command, ignore-file line and .contractlint.yaml it shows is
// in testdata/script/migrating.txtar, which runs them.
func TestMigratingDoc(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "migrating.md"))
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile(filepath.Join("..", "..", "testdata", "script", "migrating.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```(sh|yaml|)\n(.*?)```").FindAllStringSubmatch(string(doc), -1)
	checked := 0
	for _, b := range blocks {
		lang, body := b[1], b[2]
		switch {
		case lang == "sh":
			for _, line := range strings.Split(body, "\n") {
				if strings.HasPrefix(line, "contractlint ") {
					checked++
					if !strings.Contains(string(script), " "+line+"\n") {
						t.Errorf("docs/migrating.md runs %q, which migrating.txtar does not", line)
					}
				}
			}
		case lang == "yaml" && !strings.Contains(body, "breaking:"):
			checked++
			if !strings.Contains(string(script), "-- repo/.contractlint.yaml --\n"+body) {
				t.Errorf("docs/migrating.md's config\n%s\nis not the one migrating.txtar runs", body)
			}
		case lang == "":
			for _, line := range strings.Split(strings.TrimSpace(body), "\n") {
				checked++
				if !strings.Contains(string(script), "\n"+line+"\n") {
					t.Errorf("docs/migrating.md's ignore line %q is not in migrating.txtar's ignore file", line)
				}
			}
		}
	}
	if checked < 5 {
		t.Errorf("checked %d setups in docs/migrating.md; its blocks moved?", checked)
	}
}
