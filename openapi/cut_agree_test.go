package openapi

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contractlint/contractlint/internal/corpus"
	"github.com/contractlint/contractlint/internal/places"
	"github.com/google/go-cmp/cmp"
)

// TestCutAgreesWithParser holds the cut, an outline by indentation whose
// parts the parser reads one by one, to what the parser reads in the whole
// text: on every rule case's documents (and Stripe's, without -short) it
// cuts, each chunk is the entry the parser finds at its pointer, from the
// entry's line to the line the next begins on, and every paths entry and
// component of a kind cut into chunks is a chunk.
func TestCutAgreesWithParser(t *testing.T) {
	texts := yamlTexts(t)
	if !testing.Short() {
		texts["stripe"] = corpus.Text(t, "stripe-spec3-2023-09-12.yaml")
	}
	cuts := 0
	for name, text := range texts {
		d, why := cut(text)
		if why != nil {
			continue
		}
		doc, err := places.Read(text)
		if err != nil {
			t.Errorf("%s: cut, but the parser refuses it: %v", name, err)
			continue
		}
		cuts++
		agree(t, name, d, doc)
	}
	t.Logf("the cutter cut %d of %d texts", cuts, len(texts))
	if cuts < len(texts)/2 {
		t.Errorf("the cutter cut %d of %d texts", cuts, len(texts))
	}
}

// agree compares d's chunks with doc's entries.
func agree(t *testing.T, name string, d *pieces, doc *places.Doc) {
	t.Helper()
	for ptr, c := range d.chunks {
		segs := strings.Split(strings.TrimPrefix(ptr, "#/"), "/")
		for i := range segs {
			segs[i] = unescape(segs[i])
		}
		p, matched := doc.Find(segs)
		if matched != len(segs) || p.Line != c.first+1 {
			t.Errorf("%s: chunk %s at line %d; the parser finds %d of its segments at line %d", name, ptr, c.first+1, matched, p.Line)
			continue
		}
		end := bytes.Count(d.src[:p.End], []byte("\n")) // the 0-based line the entry's end is on
		if p.End == len(d.src) {
			end = len(d.lines)
		}
		if c.end != end {
			t.Errorf("%s: chunk %s ends before line %d; the parser's entry before line %d", name, ptr, c.end+1, end+1)
		}
	}
	want := []string{}
	for _, e := range doc.Entries([]string{"paths"}) {
		if strings.HasPrefix(e.Key, "/") {
			want = append(want, "#/paths/"+escape(e.Key))
		}
	}
	for _, k := range doc.Entries([]string{"components"}) {
		if splitKinds[k.Key] {
			for _, e := range doc.Entries([]string{"components", k.Key}) {
				want = append(want, "#/components/"+k.Key+"/"+escape(e.Key))
			}
		}
	}
	for _, p := range want {
		if d.chunks[p] == nil {
			t.Errorf("%s: the parser finds %s, which is no chunk", name, p)
		}
	}
	if len(want) != len(d.chunks) {
		got := make([]string, 0, len(d.chunks))
		for p := range d.chunks {
			got = append(got, p)
		}
		slices.Sort(got)
		t.Errorf("%s: %d chunks, the parser finds %d entries: %v", name, len(d.chunks), len(want), got)
	}
}

// TestBatchReadsAsAlone: a batch of parts read in one parse gives each
// part what a parse of it alone gives, on every rule case's documents.
func TestBatchReadsAsAlone(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "rules", "*", "*", "*.yaml"))
	together := 0
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		o := outline(text)
		if o.why != nil || o.d.json {
			continue
		}
		for _, b := range o.d.batches(o.parts) {
			out := make([]*parsed, len(b.parts))
			if len(b.parts) < 2 || !readTogether(b, out) {
				continue
			}
			together++
			for i, pt := range b.parts {
				if d := cmp.Diff(readPart(pt.text, pt.key), out[i], cmp.AllowUnexported(parsed{}, anchorDef{}), cmp.Comparer(sameError)); d != "" {
					t.Errorf("%s: %s read in its batch (-alone +together):\n%s", f, pt.key, d)
				}
			}
		}
	}
	if together == 0 {
		t.Error("no batch was read in one parse")
	}
}

func sameError(a, b error) bool {
	return (a == nil) == (b == nil) && (a == nil || a.Error() == b.Error())
}

// cut is cutPair of one document, as NewCut cuts a buffer's base.
func cut(src []byte) (*pieces, *NoPlan) {
	ds, whys := newParses(nil).cut(src)
	return ds[0], whys[0]
}

// yamlTexts is the text of every YAML document of the rule cases, by path.
func yamlTexts(t *testing.T) map[string][]byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "testdata", "rules", "*", "*", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no rule cases: %v", err)
	}
	texts := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts[f] = b
	}
	return texts
}
