package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/contractlint/contractlint/internal/cli"
	"github.com/contractlint/contractlint/internal/corpus"
	"github.com/contractlint/contractlint/internal/gittest"
)

// FuzzReviewCLIMatchesDiff is review's "no silent pass" through the whole
// command, where the config, the index and the vendored trees are read:
// from a testdata pair (OpenAPI or .proto), build a repository whose base
// holds the old contract and whose head holds the new one, shaped by ops —
// a side that does not compile or parse, a vendored copy changed the other
// way, a .contractlint.yaml the same change weakens, the head staged with
// the working tree then put back — and check that `review` exits as
// `diff OLD NEW` of the same two files does and reports the same errors
// (rule and message), plus config-weakened for the config; that a broken
// side is named; that the vendored copy is listed as not reviewed; that an
// error the change accepts itself, in a waivers file it adds, leaves the
// errors but is listed as accepted in this PR, never silently gone. The
// internal/review target (FuzzReviewMatchesDiff) covers the $ref and
// encoding shapes; .ci/run runs both for a fixed count.
func FuzzReviewCLIMatchesDiff(f *testing.F) {
	pairs := rulePairs(f)
	shapes := []uint8{0, shapeBrokenBase, shapeBrokenHead, shapeBrokenBase | shapeBrokenHead,
		shapeVendored, shapeConfig, shapeStaged, shapeStaged | shapeConfig | shapeVendored,
		shapeAccepted, shapeAccepted | shapeStaged | shapeConfig}
	for k, i := 0, 0; i < len(pairs); k, i = k+1, i+31 {
		// Every shape on its own, and all together, over a spread of
		// pairs: a seed builds a repository and reviews it (some twenty
		// git runs), so plain `go test` takes each pair in one shape, in
		// turn, and every shape at least once; CI (.ci/run) takes each
		// pair in every shape.
		if corpus.Full() {
			for _, ops := range shapes {
				f.Add(uint16(i), ops)
			}
			continue
		}
		f.Add(uint16(i), shapes[k%len(shapes)])
	}
	f.Fuzz(func(t *testing.T, which uint16, ops uint8) {
		p := pairs[int(which)%len(pairs)]
		s := shape(ops)
		reviewMatchesDiff(t, p, s)
	})
}

// The shapes a generated change takes, combined freely.
const (
	shapeBrokenBase = 1 << iota // the base's contract does not read
	shapeBrokenHead             // the head's contract does not read
	shapeVendored               // vendor/ holds a copy, changed the other way
	shapeConfig                 // the change adds a config that weakens the gate
	shapeStaged                 // the head is staged; the working tree is put back
	shapeAccepted               // the change adds a waiver of each error diff reports
)

type shape uint8

func (s shape) has(x uint8) bool { return uint8(s)&x != 0 }

// pair is a testdata rule case: one contract on each side.
type pair struct{ dir, ext string }

// rulePairs are the testdata rule cases that are one old and one new file.
func rulePairs(t testing.TB) []pair {
	dirs, err := filepath.Glob(filepath.Join("..", "..", "testdata", "rules", "*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	var out []pair
	for _, d := range dirs {
		es, err := os.ReadDir(d)
		if err != nil || len(es) != 2 {
			continue
		}
		ext := path.Ext(es[0].Name())
		if es[0].Name() == "new"+ext && es[1].Name() == "old"+ext && slices.Contains([]string{".yaml", ".json", ".proto"}, ext) {
			out = append(out, pair{d, ext})
		}
	}
	if len(out) == 0 {
		t.Fatal("no pairs in testdata/rules")
	}
	return out
}

// broken spoils a contract: a type that does not exist (proto), a YAML
// value that does not close (OpenAPI).
func broken(b []byte, ext string) []byte {
	if ext == ".proto" {
		return append(bytes.Clone(b), "\nmessage ContractlintBroken { NoSuchType x = 1; }\n"...)
	}
	return append(bytes.Clone(b), "\nx-broken: [unclosed\n"...)
}

// run is one command's outcome.
type run struct {
	code           int
	errs           []string // error findings, rule: message, sorted, each once
	notReviewed    []string
	stdout, stderr string
	// waivable are the error findings a waiver can name (those with an
	// element), and acceptedInPR the waived findings shown as accepted in
	// this PR, each as rule: message.
	waivable     []waivable
	acceptedInPR []string
}

// waivable is an error finding with what a waiver names it by.
type waivable struct{ rule, message, path, fingerprint string }

func runCLI(t *testing.T, dir string, args ...string) run {
	t.Helper()
	r := mainIn(dir, append(args, "--format", "json")...)
	if r.code == cli.ExitUsage {
		return r
	}
	var rep struct {
		Findings []struct {
			Rule, Severity, Message, Path, Fingerprint string
		}
		Waived []struct {
			Rule, Message, Justification string
			AcceptedInPR                 bool
		}
		NotReviewed []string `json:"not_reviewed"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("%s: exit %d, stdout not JSON: %v\n%s\n%s", args, r.code, err, r.stdout, r.stderr)
	}
	for _, f := range rep.Findings {
		if f.Severity == "error" {
			r.errs = append(r.errs, f.Rule+": "+f.Message)
			if f.Path != "" {
				r.waivable = append(r.waivable, waivable{f.Rule, f.Message, f.Path, f.Fingerprint})
			}
		}
	}
	for _, w := range rep.Waived {
		if w.AcceptedInPR && strings.Contains(w.Justification, "@fuzz: the change is deliberate") {
			r.acceptedInPR = append(r.acceptedInPR, w.Rule+": "+w.Message)
		}
	}
	slices.Sort(r.acceptedInPR)
	r.acceptedInPR = slices.Compact(r.acceptedInPR)
	slices.Sort(r.errs)
	r.errs = slices.Compact(r.errs)
	r.notReviewed = rep.NotReviewed
	return r
}

func reviewMatchesDiff(t *testing.T, p pair, s shape) {
	oldB, err := os.ReadFile(filepath.Join(p.dir, "old"+p.ext))
	if err != nil {
		t.Fatal(err)
	}
	newB, err := os.ReadFile(filepath.Join(p.dir, "new"+p.ext))
	if err != nil {
		t.Fatal(err)
	}
	if s.has(shapeBrokenBase) {
		oldB = broken(oldB, p.ext)
	}
	if s.has(shapeBrokenHead) {
		newB = broken(newB, p.ext)
	}
	if bytes.Equal(oldB, newB) {
		// A self-diff case made the same on both sides: the change touches
		// no contract, so review has nothing of it to judge, while diff
		// still reads (and may refuse) the file.
		t.Skip("the pair is the same on both sides: the change touches no contract")
	}
	// diff reads the two files where no config, repository or neighbour
	// can reach them.
	plain := t.TempDir()
	writeTree(t, plain, map[string][]byte{"old/api" + p.ext: oldB, "new/api" + p.ext: newB})
	want := runCLI(t, plain, "diff", "old/api"+p.ext, "new/api"+p.ext)

	r := gittest.New(t)
	name := "api/v1/api" + p.ext
	base := map[string][]byte{name: oldB}
	head := map[string][]byte{name: newB}
	if s.has(shapeVendored) {
		// A third party's copy, changed the other way: its findings differ
		// from ours, and none may show.
		base["vendor/acme/v1/api"+p.ext], head["vendor/acme/v1/api"+p.ext] = newB, oldB
	}
	if s.has(shapeConfig) {
		head[".contractlint.yaml"] = []byte("ignore: [\"**\"]\nfail-on: never\n")
	}
	var accepted []string
	if s.has(shapeAccepted) && len(want.waivable) > 0 {
		head[".contractlint-waivers.yaml"], accepted = waiveAll(want.waivable)
	}
	writeTree(t, r.Dir, base)
	r.Commit(t, "base", ".")
	writeTree(t, r.Dir, head)
	args := []string{"review", "--base", "main"}
	if s.has(shapeStaged) {
		r.Git(t, "add", "-A")
		// The working tree goes back to the base: only the index holds the
		// change, which --staged must judge, config included.
		writeTree(t, r.Dir, base)
		if s.has(shapeConfig) {
			if err := os.Remove(filepath.Join(r.Dir, ".contractlint.yaml")); err != nil {
				t.Fatal(err)
			}
		}
		args = append(args, "--staged")
	}
	got := runCLI(t, r.Dir, args...)

	if s.has(shapeAccepted) && got.code != cli.ExitUsage {
		// What the change accepted itself is shown as such, and only that
		// leaves the errors.
		if !slices.Equal(got.acceptedInPR, accepted) {
			t.Errorf("the change waives %q; review shows as accepted in this PR %q", accepted, got.acceptedInPR)
		}
		want.errs = slices.DeleteFunc(want.errs, func(e string) bool { return slices.Contains(accepted, e) })
		if want.code == cli.ExitFindings && len(want.errs) == 0 {
			want.code = cli.ExitOK
		}
	}
	if s.has(shapeConfig) {
		if got.code != cli.ExitUsage && !slices.ContainsFunc(got.errs, func(e string) bool { return strings.HasPrefix(e, "config-weakened: ") }) {
			t.Errorf("the change weakens the config; review reports no config-weakened: %q", got.errs)
		}
		got.errs = slices.DeleteFunc(got.errs, func(e string) bool { return strings.HasPrefix(e, "config-weakened: ") })
		if got.code == cli.ExitFindings && want.code == cli.ExitOK && len(got.errs) == 0 {
			got.code = cli.ExitOK // config-weakened alone: an error of review's own
		}
	}
	if got.code != want.code {
		t.Fatalf("review exits %d, diff %d\nreview: %s%s\ndiff: %s%s", got.code, want.code, got.stdout, got.stderr, want.stdout, want.stderr)
	}
	if !slices.Equal(got.errs, want.errs) {
		t.Errorf("review's errors differ from diff's\nreview: %q\ndiff:   %q", got.errs, want.errs)
	}
	if got.code == cli.ExitUsage {
		// Each broken side is named as such.
		if s.has(shapeBrokenBase) && !strings.Contains(got.stderr, "[base main]") && !strings.Contains(got.stderr, "[base and head]") {
			t.Errorf("the base does not read; review does not say so:\n%s", got.stderr)
		}
		if s.has(shapeBrokenHead) && !strings.Contains(got.stderr, "[head: ") && !strings.Contains(got.stderr, "[base and head]") {
			t.Errorf("the head does not read; review does not say so:\n%s", got.stderr)
		}
		return
	}
	if s.has(shapeVendored) && !slices.ContainsFunc(got.notReviewed, func(n string) bool { return strings.HasPrefix(n, "vendor/acme/v1/api") }) {
		t.Errorf("the vendored copy is not listed as not reviewed: %q", got.notReviewed)
	}
}

// waiveAll is a waivers file accepting each of ws by rule, element and
// fingerprint, with the rule: message of each it accepts, sorted.
func waiveAll(ws []waivable) ([]byte, []string) {
	var b strings.Builder
	b.WriteString("waivers:\n")
	var accepted []string
	for _, w := range ws {
		q := func(s string) string { j, _ := json.Marshal(s); return string(j) }
		fmt.Fprintf(&b, "  - {rule: %s, element: %s, fingerprint: %s, reason: \"the change is deliberate\", owner: \"@fuzz\"}\n",
			q(w.rule), q(w.path), q(w.fingerprint))
		accepted = append(accepted, w.rule+": "+w.message)
	}
	slices.Sort(accepted)
	return []byte(b.String()), slices.Compact(accepted)
}

// mainIn runs the command in dir, with no environment and a fixed clock.
func mainIn(dir string, args ...string) run {
	var out, errs bytes.Buffer
	e := &cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errs,
		Getenv: func(string) string { return "" },
		Now:    func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) },
		Getwd:  func() (string, error) { return dir, nil }}
	return run{code: cli.Main(args, e), stdout: out.String(), stderr: errs.String()}
}

func writeTree(t *testing.T, dir string, tree map[string][]byte) {
	t.Helper()
	for name, b := range tree {
		file := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
