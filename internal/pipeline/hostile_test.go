package pipeline_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/contractlint/contractlint/internal/corpus"
	"github.com/contractlint/contractlint/internal/limits"
	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

// The hostile-input suite for what a testscript cannot show: sizes, time and
// memory bounds, and that nothing outside the repository is read or printed.

const secret = "SECRET-4c1d9e do not print"

const good = "openapi: 3.0.3\ninfo: {title: shop, version: \"1\"}\npaths: {}\n"

// hostileRepo makes a repository root beside a directory holding a planted
// secret, writes files into the root and opens it as a Source.
func hostileRepo(t *testing.T, files map[string]string) (source.Source, string) {
	t.Helper()
	top := t.TempDir()
	root := filepath.Join(top, "repo")
	for name, text := range map[string]string{"outside/secret.yaml": "SECRET: " + secret + "\n", "outside/secret.proto": "// " + secret + "\n"} {
		writeFile(t, filepath.Join(top, name), text)
	}
	files["good.yaml"] = good
	for name, text := range files {
		writeFile(t, filepath.Join(root, name), text)
	}
	src, err := source.OpenDir(root)
	if err != nil {
		t.Fatal(err)
	}
	return src, top
}

func writeFile(t *testing.T, name, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// measured is one run of the pipeline: its result, time and allocation.
type measured struct {
	findings []rules.Finding
	err      error
	elapsed  time.Duration
	alloc    uint64
}

func diff(src source.Source, old, new string, o pipeline.Options) measured {
	if o.Registry == nil {
		o.Registry, o.Settings = defaultRules(), &rules.Settings{}
	}
	var m measured
	m.alloc = allocated(func() {
		start := time.Now()
		m.findings, m.err = pipeline.Diff(pipeline.Side{Src: src, Files: []string{old}}, pipeline.Side{Src: src, Files: []string{new}}, o)
		m.elapsed = time.Since(start)
	})
	return m
}

// allocated is the bytes f allocates on the heap. TotalAlloc counts each
// allocation as it is made (ReadMemStats flushes the per-P caches first),
// so no collection is forced before the count: one would mark the whole
// live heap (the Stripe load the oracle tests share, about 50 MB, once they
// have run) for a figure it does not change.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// refused asserts an input error naming file, holding want, on one line,
// without the secret, within an allocation bound (never a time bound: the
// machine's load must not decide a test).
func (m measured) refused(t *testing.T, file, want string, maxAlloc uint64) {
	t.Helper()
	switch {
	case m.err == nil:
		t.Fatalf("accepted (%d findings), want an input error", len(m.findings))
	case !source.Named(m.err):
		t.Fatalf("error is not an input error naming its file: %v", m.err)
	case !strings.HasPrefix(m.err.Error(), file):
		t.Errorf("error names the wrong file: %v", m.err)
	case !strings.Contains(m.err.Error(), want):
		t.Errorf("error %q lacks %q", m.err, want)
	case strings.Contains(m.err.Error(), "\n"):
		t.Errorf("error is not one line: %q", m.err)
	case strings.Contains(m.err.Error(), "SECRET"):
		t.Errorf("error prints the secret: %q", m.err)
	}
	if m.alloc > maxAlloc && !raceEnabled {
		t.Errorf("allocated %.1f MB, want under %.1f MB", float64(m.alloc)/1e6, float64(maxAlloc)/1e6)
	}
}

// nestedSchema is a document whose one schema nests n levels, in block YAML,
// flow YAML or JSON.
func nestedSchema(n int, style string) string {
	var b strings.Builder
	switch style {
	case "json":
		b.WriteString(`{"openapi":"3.0.3","info":{"title":"a","version":"1"},"paths":{},"components":{"schemas":{"Deep":`)
		b.WriteString(strings.Repeat(`{"type":"object","properties":{"a":`, n))
		b.WriteString(`{"type":"string"}`)
		b.WriteString(strings.Repeat("}}", n))
		b.WriteString("}}}")
	case "flow":
		b.WriteString(good + "components:\n  schemas:\n    Deep: ")
		b.WriteString(strings.Repeat("{type: object, properties: {a: ", n))
		b.WriteString("{type: string}" + strings.Repeat("}}", n) + "\n")
	default:
		b.WriteString(good + "components:\n  schemas:\n    Deep:\n")
		for i := range n {
			ind := strings.Repeat(" ", 6+4*i)
			fmt.Fprintf(&b, "%stype: object\n%sproperties:\n%s  a:\n", ind, ind, ind)
		}
		b.WriteString(strings.Repeat(" ", 6+4*n) + "type: string\n")
	}
	return b.String()
}

// TestHostileNesting: a schema nested 1,000 or 100,000 levels is refused at
// the depth limit before any parser recurses into it: in milliseconds, with
// allocation bounded by a small multiple of the file's size.
func TestHostileNesting(t *testing.T) {
	for _, n := range []int{1000, 100000} {
		for _, style := range []string{"block", "flow", "json"} {
			if style == "block" && n > 1000 {
				continue // block style's indentation grows as n²: 20 GB at 100,000
			}
			t.Run(fmt.Sprintf("%d-%s", n, style), func(t *testing.T) {
				name := "deep." + map[bool]string{true: "json", false: "yaml"}[style == "json"]
				text := nestedSchema(n, style)
				src, _ := hostileRepo(t, map[string]string{name: text})
				m := diff(src, "good.yaml", name, pipeline.Options{})
				m.refused(t, name+":", "nested deeper than the limit of 256 levels (raise it with --max-depth)",
					3*uint64(len(text))+8<<20)
			})
		}
	}
	// Raised, the limit lets a 1,000-level schema through, and it diffs.
	reached := strings.Replace(nestedSchema(1000, "flow"), "paths: {}\n", "paths:\n  /d:\n    get:\n      responses:\n        \"200\":\n"+
		"          description: ok\n          content:\n            application/json:\n              schema: {$ref: \"#/components/schemas/Deep\"}\n", 1)
	old, new := reached, strings.Replace(reached, "{type: string}", "{type: integer}", 1)
	src, _ := hostileRepo(t, map[string]string{"old.yaml": old, "new.yaml": new})
	o := pipeline.Options{}
	o.Limits.Depth = 2100
	m := diff(src, "old.yaml", "new.yaml", o)
	if m.err != nil || len(m.findings) == 0 {
		t.Fatalf("raised depth limit: %v, %d findings", m.err, len(m.findings))
	}
	t.Logf("1,000-level schema with --max-depth 2100: %v, %.0f MB allocated", m.elapsed, float64(m.alloc)/1e6)
}

// TestHostileRefs: no $ref, in any form, reads or prints the secret planted
// beside the repository, and none reaches the network: a local server
// standing in for a remote host counts zero requests.
func TestHostileRefs(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		fmt.Fprintln(w, "SECRET: "+secret)
	}))
	defer srv.Close()
	doc := func(ref string) string {
		return good + "components:\n  schemas:\n    P: {$ref: \"" + ref + "\"}\n"
	}
	top := t.TempDir()
	abs := filepath.ToSlash(filepath.Join(top, "outside", "secret.yaml"))
	src, top2 := hostileRepo(t, map[string]string{
		"climb.yaml":    doc("../outside/secret.yaml#/SECRET"),
		"deep.yaml":     doc("../../../../../../../../etc/passwd"),
		"absolute.yaml": doc(abs + "#/SECRET"),
		"fileurl.yaml":  doc("file://" + abs + "#/SECRET"),
		"http.yaml":     doc(srv.URL + "/secret.yaml#/SECRET"),
		"viaref.yaml":   doc("sub/hop.yaml#/P"),
		"sub/hop.yaml":  "P: {$ref: \"../../outside/secret.yaml#/SECRET\"}\n",
		"vialink.yaml":  doc("link.yaml#/SECRET"),
	})
	writeFile(t, abs, "SECRET: "+secret+"\n")
	if err := os.Symlink(filepath.Join(top2, "outside", "secret.yaml"), filepath.Join(top2, "repo", "link.yaml")); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"climb.yaml":    "leads outside the repository",
		"deep.yaml":     "leads outside the repository",
		"absolute.yaml": "leads outside the repository",
		"fileurl.yaml":  "never fetches remote or file: URLs",
		"http.yaml":     "never fetches remote or file: URLs",
		"viaref.yaml":   "outside the repository",
		"vialink.yaml":  "leads outside the repository",
		"link.yaml":     "outside the repository",
	} {
		t.Run(name, func(t *testing.T) {
			at := name + ":"
			if name == "viaref.yaml" {
				at = "sub/hop.yaml:1:5:" // where the escaping $ref is written
			}
			diff(src, "good.yaml", name, pipeline.Options{}).refused(t, at, want, 16<<20)
		})
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the server was asked %d times: a $ref reached the network", n)
	}
}

// bigContract writes an OpenAPI document of about size bytes: operations
// that each answer with their own schema, so every part is loaded and
// compared, none deduplicated. The first item's price has priceType.
func bigContract(size int, priceType string) string {
	var paths, schemas, n []byte
	typ, integer := []byte(priceType), []byte("integer")
	for i := 0; len(paths)+len(schemas) < size; i++ {
		n = strconv.AppendInt(n[:0], int64(i), 10)
		paths = fill(paths, bigPath, n, n, n)
		schemas = fill(schemas, bigSchema, n, n, typ)
		typ = integer
	}
	return good[:len(good)-len("paths: {}\n")] + "paths:\n" + string(paths) + "components:\n  schemas:\n" + string(schemas)
}

// bigPath and bigSchema are one item of bigContract, split where its
// number goes, and the price type (bigSchema's last split). Filled by
// appending: fmt made the 7 MB TestMemoryBudget refuses cost more than
// refusing it.
var (
	bigPath = strings.Split("  /items\x00/{id}:\n    get:\n      operationId: getItem\x00\n      parameters:\n        - {name: id, in: path, required: true, schema: {type: string}}\n"+
		"      responses:\n        \"200\":\n          description: the item\n          content:\n            application/json:\n              schema: {$ref: \"#/components/schemas/Item\x00\"}\n", "\x00")
	bigSchema = strings.Split("    Item\x00:\n      type: object\n      required: [id]\n      properties:\n        id: {type: string, maxLength: 64}\n"+
		"        name: {type: string, description: \"the name shown to buyers of item \x00\"}\n        price_cents: {type: \x00, minimum: 0}\n        tags: {type: array, items: {type: string}}\n", "\x00")
)

// fill appends parts with values between them.
func fill(b []byte, parts []string, values ...[]byte) []byte {
	for i, p := range parts {
		if i > 0 {
			b = append(b, values[i-1]...)
		}
		b = append(b, p...)
	}
	return b
}

// TestHostileLarge: a large contract under the default limits is not
// refused and diffs within the performance budget, held as a ratio of
// bytes allocated in its own process: the diff and the rules allocate at
// most 30 % of what loading the two documents does (issue's 1.3x target).
// Nothing is held to a time, not even a ratio of two: a loaded machine
// decides those (the time ratio failed once at load 33). A 5 MiB contract
// (about 300,000 elements, under the 400,000 default) always passes the
// limits; the full run (see corpus.Full) diffs it, the default run diffs
// one of 1 MiB, as the ratio and the size limit are told at any size;
// CONTRACTLINT_LARGE_MB=50 runs the 50 MB case with the element limit
// raised to fit, which takes minutes here because the YAML parser under
// kin-openapi checks a mapping's keys pairwise.
func TestHostileLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("generates and diffs two large contracts; skipped with -short")
	}
	// The default limits admit a large contract: read through them as every
	// side is, the 5 MiB one is not refused.
	const admitted = 5
	large := bigContract(admitted<<20, "integer")
	src, _ := hostileRepo(t, map[string]string{"large.yaml": large})
	if _, err := limits.Default().Guard(src, nil).ReadFile("large.yaml"); err != nil {
		t.Fatalf("the default limits refuse a %.0f MB contract: %v", float64(len(large))/1e6, err)
	}
	mb := 1
	if corpus.Full() {
		mb = admitted
	}
	if v := os.Getenv("CONTRACTLINT_LARGE_MB"); v != "" {
		if _, err := fmt.Sscan(v, &mb); err != nil || mb <= 0 {
			t.Fatalf("CONTRACTLINT_LARGE_MB=%q: want a number of megabytes", v)
		}
	}
	old, new := bigContract(mb<<20, "integer"), bigContract(mb<<20, "number")
	src, _ = hostileRepo(t, map[string]string{"old.yaml": old, "new.yaml": new})
	st := &pipeline.Stats{}
	// Whole: the budget is what the diff and the rules cost beside loading
	// every element; a subset load would leave all but the changed item out.
	o := pipeline.Options{Stats: st, Whole: true}
	if n := limits.Scan([]byte(new), limits.DefaultDepth, 1<<30).Elements; n > limits.DefaultElements {
		o.Limits.Elements, o.Limits.Keys = n, n
	}
	m := diff(src, "old.yaml", "new.yaml", o)
	if m.err != nil {
		t.Fatal(m.err)
	}
	if len(m.findings) == 0 {
		t.Error("the changed price type was not found")
	}
	// The bound is on bytes allocated, not on time: a phase's time on a
	// loaded machine is decided by the scheduler, its allocations by the code.
	var load, rest time.Duration
	var loadAlloc, restAlloc uint64
	for _, p := range st.Phases {
		if p.Name == "load" {
			load, loadAlloc = load+p.Time, loadAlloc+p.Alloc
		} else {
			rest, restAlloc = rest+p.Time, restAlloc+p.Alloc
		}
	}
	t.Logf("2 x %.0f MB: %v in all (load %v, %.0f MB; diff and rules %v, %.0f MB), %d findings",
		float64(len(new))/1e6, m.elapsed, load, float64(loadAlloc)/1e6, rest, float64(restAlloc)/1e6, len(m.findings))
	if float64(restAlloc) > 0.3*float64(loadAlloc) {
		t.Errorf("diff and rules allocated %.0f MB, more than 30 %% of loading (%.0f MB)", float64(restAlloc)/1e6, float64(loadAlloc)/1e6)
	}
	// Over the size limit, the same contract is refused before it is read,
	// on each side: one side's problem never hides the other's.
	o = pipeline.Options{}
	o.Limits.FileSize = int64(mb) << 19
	refused := diff(src, "old.yaml", "new.yaml", o)
	want := "larger than the limit of " + limits.FormatSize(o.Limits.FileSize) + " on one file (raise it with --max-file-size)"
	lines := strings.Split(fmt.Sprint(refused.err), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "new.yaml: ") || !strings.HasPrefix(lines[1], "old.yaml: ") ||
		!strings.HasSuffix(lines[0], want) || !strings.HasSuffix(lines[1], want) {
		t.Errorf("error %q; want both sides refused: %s", refused.err, want)
	}
	if refused.alloc > 1<<20 && !raceEnabled {
		t.Errorf("allocated %.1f MB refusing, want under 1 MB", float64(refused.alloc)/1e6)
	}
}

// TestHostileNotText: binary garbage, invalid UTF-8 and a NUL byte are each
// one input error at the bad byte, in either side.
func TestHostileNotText(t *testing.T) {
	src, _ := hostileRepo(t, map[string]string{
		"garbage.yaml": "\x7fELF\x02\x01\x01\x00\x00\x00\xff\xfe\x00\x00",
		"latin1.yaml":  "openapi: 3.0.3\ninfo: {title: caf\xe9, version: \"1\"}\npaths: {}\n",
		"nul.yaml":     "openapi: 3.0.3\x00\ninfo: {title: a, version: \"1\"}\npaths: {}\n",
	})
	for name, want := range map[string]string{
		"garbage.yaml": "garbage.yaml:1:8: a NUL byte: not a text file (byte 0x00)",
		"latin1.yaml":  "latin1.yaml:2:18: not valid UTF-8 text (byte 0xe9)",
		"nul.yaml":     "nul.yaml:1:15: a NUL byte: not a text file (byte 0x00)",
	} {
		diff(src, "good.yaml", name, pipeline.Options{}).refused(t, name, want, 8<<20)
		diff(src, name, "good.yaml", pipeline.Options{}).refused(t, name, want, 8<<20)
	}
}
