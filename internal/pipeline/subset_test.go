package pipeline_test

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractlint/contractlint/internal/corpus"
	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

// TestMain runs the tests with the collector's target raised: most of
// their CPU is loading whole corpus documents, the oracle the other loads are held to (see corpus.LoadingGC).
func TestMain(m *testing.M) {
	corpus.LoadingGC()
	os.Exit(m.Run())
}

// defaultRules is rules.Default() built once for the package's tests: a
// registry is only read, and building it per run was a tenth of the CPU
// of the tests that diff every rule case.
var defaultRules = sync.OnceValue(rules.Default)

// everyRule switches on every rule, those off by default too, so the
// subset load is checked against every finding the tool can make.
func everyRule() *rules.Settings {
	s := &rules.Settings{Rules: map[string]bool{}}
	for _, r := range defaultRules().All() {
		s.Rules[r.ID] = true
	}
	return s
}

// subsetRun diffs old and new with the subset load and with the whole
// documents, every rule on: every field of every finding must be the same.
// It returns the subset run's stats.
func subsetRun(t *testing.T, old, new pipeline.Side) *pipeline.Stats {
	t.Helper()
	st := &pipeline.Stats{}
	got, gotErr := pipeline.Diff(old, new, pipeline.Options{Registry: defaultRules(), Settings: everyRule(), Stats: st})
	sameAsWhole(t, old, new, got, gotErr, "subset")
	return st
}

// sameAsWhole holds what a run found (the findings got, or the error) to
// what the whole load of old and new finds with every rule on.
func sameAsWhole(t *testing.T, old, new pipeline.Side, got []rules.Finding, gotErr error, run string) {
	t.Helper()
	want, wantErr := wholeDiff(t, old, new)
	if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
		t.Fatalf("%s load error %v, whole load error %v", run, gotErr, wantErr)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("findings of the %s load differ from the whole load's (-whole +%s):\n%s", run, run, d)
	}
}

// wholeRuns holds the whole load's findings per pair of trees compared
// (see wholeDiff), so that the tests that hold other loads to it (subset,
// held; the rule cases, the same edit of Stripe's spec) run it once.
var wholeRuns sync.Map // wholeKey -> *wholeRun

type wholeRun struct {
	once     sync.Once
	findings []rules.Finding // read only once set
	err      error
}

// wholeDiff is the findings of old and new both loaded whole, every rule
// on: the oracle the other loads are held to. Trees with the same files
// (names and bytes) share one run, and a document several runs compare
// is loaded once (see sharedDocs).
func wholeDiff(t *testing.T, old, new pipeline.Side) ([]rules.Finding, error) {
	t.Helper()
	run := func() ([]rules.Finding, error) {
		o := pipeline.Options{Registry: defaultRules(), Settings: everyRule(), Whole: true}
		return pipeline.Diff(old, new, pipeline.WithLoader(o, loadShared))
	}
	key, ok := wholeKeyOf(t, old, new)
	if !ok {
		return run()
	}
	r, _ := wholeRuns.LoadOrStore(key, &wholeRun{})
	w := r.(*wholeRun)
	w.once.Do(func() { w.findings, w.err = run() })
	return w.findings, w.err
}

// wholeKey names a whole run by the sides' files and a digest of every file
// of the directories their sources read (so an edit rewritten in place is
// another run).
type wholeKey struct {
	old, new string
	tree     [sha256.Size]byte
}

// wholeKeyOf is the key of a run of old and new; false when a side is not
// read from a directory, or the two from different ones.
func wholeKeyOf(t *testing.T, old, new pipeline.Side) (wholeKey, bool) {
	t.Helper()
	o, ok1 := old.Src.(*source.Dir)
	n, ok2 := new.Src.(*source.Dir)
	if !ok1 || !ok2 || o.Path() != n.Path() || old.Dir != "" || new.Dir != "" || old.Display != nil || new.Display != nil {
		return wholeKey{}, false
	}
	h := sha256.New()
	err := filepath.WalkDir(o.Path(), func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(o.Path(), p)
		fmt.Fprintf(h, "%s\x00%d\x00", filepath.ToSlash(rel), len(b))
		h.Write(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	k := wholeKey{old: strings.Join(old.Files, "\x00"), new: strings.Join(new.Files, "\x00")}
	h.Sum(k.tree[:0])
	return k, true
}

// TestSubsetSameFindingsRules runs every OpenAPI pair of the rule cases
// through both loads, with every rule on.
func TestSubsetSameFindingsRules(t *testing.T) {
	cases, err := filepath.Glob(filepath.Join("..", "..", "testdata", "rules", "*", "*"))
	if err != nil || len(cases) == 0 {
		t.Fatalf("no rule cases: %v", err)
	}
	ran, skipped := 0, 0
	for _, dir := range cases {
		old, new, ok := openAPIPair(dir)
		if !ok {
			continue
		}
		ran++
		t.Run(filepath.Base(filepath.Dir(dir))+"/"+filepath.Base(dir), func(t *testing.T) {
			src, err := source.OpenDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			st := subsetRun(t, pipeline.Side{Src: src, Files: []string{old}}, pipeline.Side{Src: src, Files: []string{new}})
			if st.ChunksSkipped > 0 {
				skipped++
			}
		})
	}
	// Most cases are one or two paths, all changed; enough leave something
	// out for the comparison to mean something.
	t.Logf("%d OpenAPI pairs, %d with chunks left out", ran, skipped)
	if skipped < 10 {
		t.Errorf("only %d of %d pairs left a chunk out", skipped, ran)
	}
}

// openAPIPair names a case's old and new OpenAPI documents.
func openAPIPair(dir string) (old, new string, ok bool) {
	for _, ext := range []string{".yaml", ".yml", ".json"} {
		_, oerr := os.Stat(filepath.Join(dir, "old"+ext))
		_, nerr := os.Stat(filepath.Join(dir, "new"+ext))
		if oerr == nil && nerr == nil {
			return "old" + ext, "new" + ext, true
		}
	}
	return "", "", false
}

// TestSubsetSameFindingsStripe compares both loads on real versions of
// Stripe's spec: adjacent days (where the subset leaves most of the
// document out) and seven months apart (where it leaves out nothing, but the
// new side parses only the chunks that changed; in the full run only, see
// corpus.Full).
func TestSubsetSameFindingsStripe(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 4 MB documents")
	}
	for _, tc := range []struct {
		old, new string
		skips    bool
	}{
		{"stripe-spec3-2023-09-11.yaml", stripeName, true},
		{"stripe-spec3-2023-02-13.yaml", stripeName, false},
	} {
		t.Run(tc.old+"->"+tc.new, func(t *testing.T) {
			if !tc.skips {
				corpus.FullOnly(t) // TestStripeFindings diffs this pair whole
			}
			dir := t.TempDir()
			corpus.Gunzip(t, tc.old, dir)
			corpus.Gunzip(t, tc.new, dir)
			src, err := source.OpenDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			st := subsetRun(t, pipeline.Side{Src: src, Files: []string{tc.old}}, pipeline.Side{Src: src, Files: []string{tc.new}})
			if st.Chunks == 0 {
				t.Error("no subset planned: the two headers differ only in how their strings are quoted")
			}
			if tc.skips && st.ChunksSkipped*2 < st.Chunks {
				t.Errorf("subset left out %d of %d chunks, want at least half", st.ChunksSkipped, st.Chunks)
			}
			if tc.skips && (st.ChunksUnplaced == 0 || st.Rerun > 0) {
				t.Errorf("parsed %d chunks without places, then loaded whole %d times: want the placeless parse to stand", st.ChunksUnplaced, st.Rerun)
			}
		})
	}
}

// TestSubsetSameFindingsStripeEdits makes pull-request-sized edits to
// Stripe's spec, each one a way a left-out chunk could still matter, and
// compares both loads on each. Each case loads Stripe whole: the default
// run checks a sample of two, the full run (see corpus.Full) every case.
func TestSubsetSameFindingsStripeEdits(t *testing.T) {
	dir, name, spec := stripeSpec(t)
	const (
		taxRateOp = "\n  '/v1/tax_rates/{tax_rate}':\n"
		coupons   = "\n  /v1/coupons:\n"
		closedAt  = "\n    deleted_coupon:\n"
		closed    = closedAt + "      additionalProperties: false\n"
		getTax    = "                $ref: '#/components/schemas/tax_rate'\n          description: Successful response.\n"
	)
	for _, tc := range []struct {
		name      string
		base, new []edit // base edits both sides
		skips     bool   // the subset applies and leaves most out
		sample    bool   // in the default run's sample (each case loads Stripe whole)
	}{
		{"a shared component's property changes type", nil,
			[]edit{{"\n    apps.secret:\n", "          type: integer\n        deleted:", "          type: string\n        deleted:"}}, true, true},
		{"an operation starts returning a closed schema other operations return",
			[]edit{{closedAt, closedAt, closed}},
			[]edit{{taxRateOp, getTax, getTax + "        '202':\n          content:\n            application/json:\n              schema:\n                $ref: '#/components/schemas/deleted_coupon'\n          description: Deleted.\n"}}, true, false},
		{"a path is removed", nil, []edit{{"", coupons, "\n  /v1/coupons-gone:\n"}}, true, true},
		{"only a description changes", nil,
			[]edit{{taxRateOp, "<p>Retrieves a tax rate with the given ID</p>", "<p>Retrieves one tax rate</p>"}}, true, false},
		// The clash keeps both operations in the plan (kin-openapi checks
		// operationIds across the document), and the rest is left out.
		{"a new operation reuses an operationId", nil,
			[]edit{{"", coupons, "\n  /v1/coupons2:\n    get:\n      operationId: GetCoupons\n      responses:\n        '200':\n          description: ok\n" + coupons[1:]}}, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.sample {
				corpus.FullOnly(t)
			}
			// Without edits to both sides the old side is the spec as
			// unpacked, whose whole load the other tests share.
			oldName, old := name, spec
			if len(tc.base) > 0 {
				oldName, old = "old.yaml", apply(t, spec, tc.base)
				writeFile(t, filepath.Join(dir, oldName), old)
			}
			writeFile(t, filepath.Join(dir, "new.yaml"), apply(t, old, tc.new))
			src, err := source.OpenDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			st := subsetRun(t, pipeline.Side{Src: src, Files: []string{oldName}}, pipeline.Side{Src: src, Files: []string{"new.yaml"}})
			if got := st.ChunksSkipped*2 > st.Chunks; got != tc.skips {
				t.Errorf("subset left out %d of %d chunks", st.ChunksSkipped, st.Chunks)
			}
		})
	}
}

// edit replaces the first from after the first at (anywhere when at is "").
type edit struct{ at, from, to string }

func apply(t *testing.T, s string, edits []edit) string {
	t.Helper()
	for _, e := range edits {
		base := strings.Index(s, e.at)
		i := strings.Index(s[max(base, 0):], e.from)
		if base < 0 || i < 0 {
			t.Fatalf("edit anchor %q / %q not found", e.at, e.from)
		}
		i += base
		s = s[:i] + e.to + s[i+len(e.from):]
	}
	return s
}

// hazardHead is the start of the documents TestSubsetContext edits.
const hazardHead = `openapi: 3.0.3
info: {title: shop, version: "1"}
paths:
  /a:
    post:
      parameters:
        - $ref: '#/components/parameters/Key'
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema:
                $ref: '#/components/schemas/Closed'
`

const hazardTail = `components:
  parameters:
    Key:
      name: Idempotency-Key
      in: header
      schema:
        type: string
  schemas:
    Closed:
      type: object
      additionalProperties: false
      properties:
        id:
          type: string
`

// TestSubsetContext: a lint finding on a component kept only so that a
// change resolves may owe its report to an operation left out, which had
// the same finding in the old version (the optional key parameter, the
// closed schema already returned to clients). The subset run sees such a
// finding, loads the whole documents, and reports what they say.
func TestSubsetContext(t *testing.T) {
	b := "  /b:\n    get:\n      responses:\n        '200':\n          description: ok\n"
	for name, newB := range map[string]string{
		"a new operation takes a shared optional key":   b + "  /c:\n    post:\n      parameters:\n        - $ref: '#/components/parameters/Key'\n      responses:\n        '200':\n          description: ok\n",
		"an operation starts returning a closed schema": b + "          content:\n            application/json:\n              schema:\n                $ref: '#/components/schemas/Closed'\n",
	} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			writeFile(t, filepath.Join(root, "old.yaml"), hazardHead+b+hazardTail)
			writeFile(t, filepath.Join(root, "new.yaml"), hazardHead+newB+hazardTail)
			src, err := source.OpenDir(root)
			if err != nil {
				t.Fatal(err)
			}
			st := subsetRun(t, pipeline.Side{Src: src, Files: []string{"old.yaml"}}, pipeline.Side{Src: src, Files: []string{"new.yaml"}})
			if st.ChunksSkipped == 0 {
				t.Fatal("the subset left nothing out")
			}
			loads := 0
			for _, p := range st.Phases {
				if p.Name == "load" {
					loads++
				}
			}
			if loads != 2 || st.Rerun != 1 {
				t.Errorf("loaded %d times (%d reruns), want the subset then the whole documents", loads, st.Rerun)
			}
		})
	}
}

// TestSubsetAccepts: a config ignore counts its matches over the whole
// contracts, lint findings that the diff then leaves out included, so a run
// with one loads the whole documents: the ignores reported unused are the same.
func TestSubsetAccepts(t *testing.T) {
	b := "  /b:\n    get:\n      responses:\n        '200':\n          description: ok\n"
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "old.yaml"), hazardHead+b+hazardTail)
	writeFile(t, filepath.Join(root, "new.yaml"), hazardHead+strings.Replace(b, "ok", "fine", 1)+hazardTail)
	src, err := source.OpenDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var unused [2][]rules.Finding
	for i, whole := range []bool{false, true} {
		s := everyRule()
		s.Accepts = append(s.Accepts, rules.Ignore{Rule: "idempotency-key-optional", Element: "#/components/parameters/Key"})
		o := pipeline.Options{Registry: defaultRules(), Settings: s, Matched: &rules.Matched{}, Whole: whole}
		if _, err := pipeline.Diff(pipeline.Side{Src: src, Files: []string{"old.yaml"}}, pipeline.Side{Src: src, Files: []string{"new.yaml"}}, o); err != nil {
			t.Fatal(err)
		}
		unused[i] = o.Matched.UnusedAccepts(s, func(string) bool { return true })
	}
	if d := cmp.Diff(unused[1], unused[0]); d != "" {
		t.Errorf("unused accepts differ (-whole +subset):\n%s", d)
	}
}

// TestSubsetInvalidLeftOut: a validation problem in a part left out, the
// same on both sides though at another line, is not reported by either load.
func TestSubsetInvalidLeftOut(t *testing.T) {
	doc := func(b string) string {
		return "openapi: 3.0.3\ninfo: {title: shop, version: '1'}\npaths:\n" + b +
			"  /a/{id}:\n    get:\n      responses:\n        '200': {}\n"
	}
	b := "  /b:\n    get:\n      responses:\n        '200':\n          description: ok\n"
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "old.yaml"), doc(b))
	writeFile(t, filepath.Join(root, "new.yaml"), doc(b+"  /c:\n    get:\n      responses:\n        '200':\n          description: ok\n"))
	src, err := source.OpenDir(root)
	if err != nil {
		t.Fatal(err)
	}
	// The names as a user may write them: the loader asks for them cleaned.
	if st := subsetRun(t, pipeline.Side{Src: src, Files: []string{"./old.yaml"}}, pipeline.Side{Src: src, Files: []string{"new.yaml"}}); st.ChunksSkipped != 2 || st.Rerun != 0 {
		t.Errorf("skipped %d chunks, %d reruns; want /a and /b left out and no rerun", st.ChunksSkipped, st.Rerun)
	}
}

// TestSubsetBlemishKept: a validation problem both sides carry where the
// subset keeps it (Dropbox Sign's tag description written as a $ref, in the
// text outside the chunks) is the same blemish in both loads: the subset
// stands, with no rerun. A problem only the new side's kept part has is not
// trusted to the subset: the whole documents decide it.
func TestSubsetBlemishKept(t *testing.T) {
	doc := func(extra, b string) string {
		return "openapi: 3.0.3\ninfo: {title: shop, version: '1'}\ntags:\n  - name: a\n    description:\n      $ref: ./a.md\npaths:\n" + b +
			"  /a:\n    get:\n      responses:\n        '200':\n          description: ok\n" + extra
	}
	b := "  /b:\n    get:\n      responses:\n        '200':\n          description: ok\n"
	c := "  /c:\n    get:\n      responses:\n        '200':\n          description: ok\n"
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "a.md"), "Orders.\n")
	writeFile(t, filepath.Join(root, "old.yaml"), doc("", b))
	writeFile(t, filepath.Join(root, "new.yaml"), doc("", b+c))
	writeFile(t, filepath.Join(root, "worse.yaml"), doc("", b+"  /c:\n    get:\n      responses:\n        '200': {}\n"))
	src, err := source.OpenDir(root)
	if err != nil {
		t.Fatal(err)
	}
	side := func(name string) pipeline.Side { return pipeline.Side{Src: src, Files: []string{name}} }
	if st := subsetRun(t, side("old.yaml"), side("new.yaml")); st.ChunksSkipped != 2 || st.Rerun != 0 {
		t.Errorf("same blemish: skipped %d chunks, %d reruns; want /a and /b left out and no rerun", st.ChunksSkipped, st.Rerun)
	}
	if st := subsetRun(t, side("old.yaml"), side("worse.yaml")); st.Rerun != 1 {
		t.Errorf("a new problem: %d reruns, want the whole documents to decide it", st.Rerun)
	}
}

// TestSubsetStrict: --strict refuses a document kin-openapi finds invalid
// anywhere, in a part a subset leaves out too.
func TestSubsetStrict(t *testing.T) {
	doc := "openapi: 3.0.3\ninfo: {title: shop, version: '1'}\npaths:\n" +
		"  /b:\n    get:\n      responses:\n        '200':\n          description: ok\n" +
		"  /a/{id}:\n    get:\n      responses:\n        '200': {}\n"
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "old.yaml"), doc)
	writeFile(t, filepath.Join(root, "new.yaml"), strings.Replace(doc, "ok", "found", 1))
	src, err := source.OpenDir(root)
	if err != nil {
		t.Fatal(err)
	}
	s := everyRule()
	s.Strict = true
	_, err = pipeline.Diff(pipeline.Side{Src: src, Files: []string{"old.yaml"}}, pipeline.Side{Src: src, Files: []string{"new.yaml"}},
		pipeline.Options{Registry: defaultRules(), Settings: s, Stats: &pipeline.Stats{}})
	if err == nil || !strings.Contains(err.Error(), "strict mode") {
		t.Errorf("strict diff of documents invalid where nothing changed: %v, want the strict error", err)
	}
}

// TestSubsetPlaceless: the chunks a subset keeps only so that $refs resolve
// are parsed without places. A changed $ref that turns from one schema to
// another compares what those two $ref in turn, and a change found there has
// no place: the run loads the whole documents and reports what they say. A
// change anywhere else keeps the placeless parse.
func TestSubsetPlaceless(t *testing.T) {
	doc := func(target, description string) string {
		return `openapi: 3.0.3
info: {title: shop, version: "1"}
paths:
  /a:
    get:
      description: ` + description + `
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema:
                $ref: '#/components/schemas/` + target + `'
  /b:
    get:
      responses:
        '200':
          description: ok
components:
  schemas:
    A:
      type: object
      properties:
        x:
          $ref: '#/components/schemas/C'
    B:
      type: object
      properties:
        x:
          $ref: '#/components/schemas/D'
    C:
      type: object
      properties:
        total: {type: integer}
    D:
      type: object
      properties:
        total: {type: string}
`
	}
	for _, tc := range []struct {
		name  string
		new   string
		rerun int
	}{
		{"a $ref turns to a schema whose own $ref differs", doc("B", "all"), 1},
		{"a description changes", doc("A", "every one"), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			writeFile(t, filepath.Join(root, "old.yaml"), doc("A", "all"))
			writeFile(t, filepath.Join(root, "new.yaml"), tc.new)
			src, err := source.OpenDir(root)
			if err != nil {
				t.Fatal(err)
			}
			st := subsetRun(t, pipeline.Side{Src: src, Files: []string{"old.yaml"}}, pipeline.Side{Src: src, Files: []string{"new.yaml"}})
			if st.ChunksSkipped == 0 || st.ChunksUnplaced == 0 {
				t.Fatalf("left out %d chunks, parsed %d without places: want both", st.ChunksSkipped, st.ChunksUnplaced)
			}
			if st.Rerun != tc.rerun {
				t.Errorf("%d reruns, want %d", st.Rerun, tc.rerun)
			}
		})
	}
}
