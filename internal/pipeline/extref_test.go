package pipeline_test

import (
	"strings"
	"testing"
)

// extRefRoot is a document whose only $refs to other files sit where the
// loader reads data, as Dropbox Sign's do: under an extension
// (x-codeSamples), in a tag's description (and, with extRefExamples, in an
// example's value). Its export leaves those files out, and the loader never
// reads them.
const extRefRoot = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n" +
	"  /a:\n    post:\n      x-codeSamples:\n        - lang: PHP\n          source:\n            $ref: examples/A.php\n" +
	"      responses:\n        '201':\n          description: made\n" +
	"  /b:\n    get:\n      responses:\n        '200':\n          description: ok\n" +
	"  /c:\n    get:\n      responses:\n        '200':\n          description: ok\n" +
	"tags:\n  - name: T\n    description:\n      $ref: ./markdown/t.md\n"

const extRefExamples = "components:\n  examples:\n    E:\n      summary: e\n      value:\n        $ref: examples/json/e.json\n"

// TestExtensionRefPlanned: a $ref under an x- key to a file that is not
// there is data, not a file of the tree: the plan is made, and the subset
// finds what the whole load finds.
func TestExtensionRefPlanned(t *testing.T) {
	old, new := writeTrees(t, map[string]string{"openapi.yaml": extRefRoot + extRefExamples}, func(side, _, text string) string {
		if side == "new" {
			return strings.Replace(text, "'200'", "'201'", 1)
		}
		return text
	})
	if st := subsetRun(t, old, new); st.NoPlan != "" || st.ChunksSkipped == 0 {
		t.Errorf("skipped %d of %d chunks (%s); want /a and /c left out", st.ChunksSkipped, st.Chunks, st.NoPlan)
	}
}

// TestExtensionNamedRefFollowed: a property, or a schema, named like an
// extension is no extension: its $ref is followed by the loader, so a
// file it names that is not there stops the plan, and the whole load
// reports it.
func TestExtensionNamedRefFollowed(t *testing.T) {
	for name, extra := range map[string]string{
		"a property": "components:\n  schemas:\n    S:\n      type: object\n      properties:\n        x-id:\n          $ref: 'gone.yml'\n",
		"a schema":   "components:\n  schemas:\n    x-s:\n      $ref: 'gone.yml'\n",
		"a property named value in a schema named examples": "components:\n  schemas:\n    examples:\n      properties:\n        value:\n          $ref: 'gone.yml'\n",
	} {
		t.Run(name, func(t *testing.T) {
			old, new := writeTrees(t, map[string]string{"openapi.yaml": extRefRoot + extra}, func(side, _, text string) string {
				if side == "new" {
					return strings.Replace(text, "'200'", "'201'", 1)
				}
				return text
			})
			if st := subsetRun(t, old, new); st.NoPlan == "" {
				t.Errorf("planned (%d of %d chunks skipped) with a followed $ref to a file not there", st.ChunksSkipped, st.Chunks)
			}
		})
	}
}
