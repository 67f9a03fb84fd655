package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/contractlint/contractlint/internal/config"
	"github.com/contractlint/contractlint/internal/limits"
	"github.com/contractlint/contractlint/rules"
)

func TestTemplateIsTheDefault(t *testing.T) {
	c, err := config.Parse("t.yaml", "/repo", config.Template)
	if err != nil {
		t.Fatalf("the init template does not parse: %v", err)
	}
	s := &rules.Settings{}
	c.Apply(s)
	for _, r := range rules.Default().All() {
		if got, want := s.Enabled(r), (&rules.Settings{}).Enabled(r); got != want {
			t.Errorf("template switches %s to %v, default is %v", r.ID, got, want)
		}
	}
	if s.ProtoLevel != 0 || c.HistoryDepth != 0 || s.Strict {
		t.Errorf("template level %v depth %d, want unset (buf.yaml's, else file) and 0", s.ProtoLevel, c.HistoryDepth)
	}
	if strings.Join(c.ContractGlobs(), ",") != strings.Join(config.DefaultContracts, ",") {
		t.Errorf("template contracts %v, want %v", c.ContractGlobs(), config.DefaultContracts)
	}
}

func TestParse(t *testing.T) {
	c, err := config.Parse("c.yaml", "/repo", []byte(`
packs: {evolvability: off}
rules: {field-redefined: false}
severity: {idempotency-key-missing: warning}
ignore: ["vendor/**"]
contracts: ["api/**/*.yaml"]
readers: {paths: [pacts], window: 30d}
proto: {level: wire, paths: [proto]}
history: {depth: 5}
strict: true
`))
	if err != nil {
		t.Fatal(err)
	}
	s := &rules.Settings{}
	c.Apply(s)
	switch {
	case s.Packs["evolvability"] || s.Rules["field-redefined"]:
		t.Errorf("switches not applied: %+v", s)
	case s.Severity["idempotency-key-missing"] != rules.Warning:
		t.Errorf("severity not applied: %v", s.Severity)
	case len(s.IgnorePaths) != 1 || s.ProtoLevel != rules.LevelWire || !s.Strict:
		t.Errorf("ignore or level not applied: %+v", s)
	case c.ReadersWindow != 30*24*time.Hour || c.Readers[0] != filepath.Join("/repo", "pacts"):
		t.Errorf("readers %v window %v", c.Readers, c.ReadersWindow)
	case c.HistoryDepth != 5 || c.ContractGlobs()[0] != "api/**/*.yaml" || c.ProtoPaths[0] != "proto":
		t.Errorf("depth %d contracts %v proto paths %v", c.HistoryDepth, c.Contracts, c.ProtoPaths)
	}
}

// Every mistake is reported at its own file:line:col.
func TestParseErrors(t *testing.T) {
	cases := []struct{ text, want string }{
		{"colour: red\n", `c.yaml:1:1: unknown key "colour"`},
		{"packs:\n  breaking: maybe\n", `c.yaml:2:13: pack breaking: want on or off, not "maybe"`},
		{"packs:\n  styling: on\n", `c.yaml:2:3: unknown pack "styling"`},
		{"rules:\n  no-such-rule: off\n", `c.yaml:2:3: unknown rule "no-such-rule"`},
		{"severity:\n  field-redefined: fatal\n", `c.yaml:2:20: severity of field-redefined: want error, warning or info, not "fatal"`},
		{"ignore: [\"[\"]\n", `c.yaml:1:10: ignore: bad glob "["`},
		{"readers:\n  window: soon\n", `c.yaml:2:11: readers.window: want a number of days`},
		{"readers:\n  consumer: {header: \"X Client\"}\n", `c.yaml:2:22: readers.consumer.header: want a header name`},
		{"readers:\n  consumer: {key-prefix: 0}\n", `c.yaml:2:26: readers.consumer.key-prefix: want a number of characters, 1 or more, not "0"`},
		{"readers:\n  log: {verb: m}\n", `c.yaml:2:9: unknown key readers.log.verb (want time, method, path, status, consumer or body)`},
		{"readers:\n  sample: 1\n", `c.yaml:2:3: unknown key readers.sample (want paths, window, consumer or log)`},
		{"proto:\n  level: strict\n", `c.yaml:2:10: proto.level: want file, package, wire-json or wire, not "strict"`},
		{"idempotency:\n  proto: loose\n", `c.yaml:2:10: idempotency.proto: want strict or default, not "loose"`},
		{"idempotency:\n  openapi: strict\n", `c.yaml:2:3: unknown key idempotency.openapi (want proto)`},
		{"history:\n  depth: -1\n", `c.yaml:2:10: history.depth: want a number of commits`},
		{"history:\n  deep: 1\n", `c.yaml:2:3: unknown key history.deep`},
		{"strict: sometimes\n", `c.yaml:1:9: strict: want true or false, not "sometimes"`},
		{"packs: {breaking: on}\npacks: {}\n", `c.yaml:2:1: the config: "packs" is set twice`},
		{"contracts: 3\n", `c.yaml:1:12: contracts must be a list of strings`},
		{"- a\n", `c.yaml:1:1: the config must be a mapping`},
		{"packs: [\n", `c.yaml:1: did not find expected node content`},
	}
	for _, c := range cases {
		_, err := config.Parse("c.yaml", "/repo", []byte(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.text, err, c.want)
		}
	}
}

// idempotency: {proto: strict} makes the rpc rule an error; an explicit
// severity for it still wins.
func TestProtoKeyStrict(t *testing.T) {
	for text, want := range map[string]rules.Severity{
		"idempotency: {proto: strict}\n": rules.Error,
		"idempotency: {proto: strict}\nseverity: {" + rules.RPCKeyMissingID + ": info}\n": rules.Info,
	} {
		c, err := config.Parse("c.yaml", "/repo", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		s := &rules.Settings{}
		c.Apply(s)
		if got, ok := s.Severity[rules.RPCKeyMissingID]; !ok || got != want {
			t.Errorf("%q: severity %v, %v; want %v", text, got, ok, want)
		}
	}
	c, err := config.Parse("c.yaml", "/repo", []byte("idempotency: {proto: default}\n"))
	if err != nil {
		t.Fatal(err)
	}
	s := &rules.Settings{}
	c.Apply(s)
	if _, ok := s.Severity[rules.RPCKeyMissingID]; ok {
		t.Errorf("default set a severity: %v", s.Severity)
	}
}

func TestFindAndLoad(t *testing.T) {
	root := filepath.Join(t.TempDir(), "repo")
	deep := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	// A repository (a .git entry is what marks its top), and a config above
	// it that belongs to someone else and must never be found.
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "..", config.FileName), []byte("bogus: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if p, err := config.Find(deep); err != nil || (p != "" && strings.HasPrefix(p, root)) {
		t.Fatalf("Find with no config = %q, %v", p, err)
	}
	file := filepath.Join(root, "a", config.FileName)
	if err := os.WriteFile(file, []byte("history: {depth: 2}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := config.Find(deep)
	if err != nil || p != file {
		t.Fatalf("Find = %q, %v; want %q", p, err, file)
	}
	c, err := config.Load(p)
	if err != nil || c.HistoryDepth != 2 || c.Dir != filepath.Dir(file) {
		t.Fatalf("Load = %+v, %v", c, err)
	}
	if _, err := config.Load(filepath.Join(root, "missing.yaml")); err == nil || !strings.Contains(err.Error(), "cannot read the config") {
		t.Errorf("Load of a missing file: %v", err)
	}
}

// An ignore entry is a glob of files, or one accepted change: a rule, the
// element (name or JSON pointer), optionally the files, and a reason.
func TestParseAcceptedChanges(t *testing.T) {
	c, err := config.Parse("c.yaml", "/repo", []byte(`ignore:
  - "vendor/**"
  - rule: response-property-removed
    element: "#/components/schemas/Order/properties/tracking_url"
    file: api/orders.yaml
    reason: moved to the carrier's page
`))
	if err != nil {
		t.Fatal(err)
	}
	s := &rules.Settings{}
	c.Apply(s)
	want := rules.Ignore{Rule: "response-property-removed", Element: "#/components/schemas/Order/properties/tracking_url",
		File: "api/orders.yaml", Reason: "moved to the carrier's page", Loc: rules.Location{File: "c.yaml", Line: 3, Column: 5}}
	if len(s.IgnorePaths) != 1 || len(s.Accepts) != 1 || s.Accepts[0] != want {
		t.Errorf("IgnorePaths %v, Accepts %+v; want one glob and %+v", s.IgnorePaths, s.Accepts, want)
	}

	for _, tc := range []struct{ text, want string }{
		{"ignore:\n  - {rule: response-property-removed, element: x}\n", `c.yaml:2:5: ignore: an accepted change needs a reason`},
		{"ignore:\n  - {rule: no-such-rule, element: x, reason: r}\n", `c.yaml:2:12: unknown rule "no-such-rule"`},
		{"ignore:\n  - {rule: response-property-removed, reason: r}\n", `c.yaml:2:5: ignore: an accepted change names its element`},
		{"ignore:\n  - {rule: response-property-removed, element: x, reason: r, when: now}\n", `c.yaml:2:62: ignore: unknown key "when"`},
	} {
		_, err := config.Parse("c.yaml", "/repo", []byte(tc.text))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want %q", tc.text, err, tc.want)
		}
	}
}

// TestLoadBoundary: the config is read like a contract. A FIFO is refused
// rather than waited on, a file over the size limit is refused unread, and
// a config nested past the depth limit is refused at its line.
func TestLoadBoundary(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(root, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO on this system: %v", err)
	}
	big := filepath.Join(root, "big.yaml")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, limits.DefaultFileSize+1); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	deep := filepath.Join(root, "deep.yaml")
	if err := os.WriteFile(deep, []byte("packs: "+strings.Repeat("[", 300)+strings.Repeat("]", 300)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{
		fifo: "cannot read the config: not a regular file (a device, pipe or socket)",
		big:  "is larger than the limit of 64MiB on one file (raise it with --max-file-size)",
		deep: ":1: nested deeper than the limit of 256 levels (raise it with --max-depth)",
	} {
		_, err := config.Load(file)
		if err == nil || !strings.HasPrefix(err.Error(), file) || !strings.Contains(err.Error(), want) {
			t.Errorf("Load(%s) = %v, want %q", filepath.Base(file), err, want)
		}
	}
}

// history: released (the default) or all says which earlier uses of a field
// number review counts as released; the mapping form sets it beside depth.
func TestHistoryReuse(t *testing.T) {
	for text, want := range map[string]bool{
		"history: all\n":                    true,
		"history: released\n":               false,
		"history: {depth: 3, reuse: all}\n": true,
		"history: {reuse: released}\n":      false,
		"history: {depth: 3}\n":             false,
	} {
		c, err := config.Parse("c.yaml", "/repo", []byte(text))
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if c.HistoryAll != want {
			t.Errorf("%q: HistoryAll %v, want %v", text, c.HistoryAll, want)
		}
	}
	for _, text := range []string{"history: sometimes\n", "history: {reuse: tagged}\n"} {
		if _, err := config.Parse("c.yaml", "/repo", []byte(text)); err == nil || !strings.Contains(err.Error(), "c.yaml:1") {
			t.Errorf("%q: want an error naming c.yaml:1, got %v", text, err)
		}
	}
}

// readers.consumer and readers.log map how traffic names its consumers
// and which access-log field holds what.
func TestReadersMapping(t *testing.T) {
	c, err := config.Parse("c.yaml", "/repo", []byte("readers:\n  consumer: {header: X-Api-Key, key-prefix: 8}\n  log: {path: uri, consumer: upstream.cluster}\n"))
	if err != nil {
		t.Fatal(err)
	}
	m := c.ReadersMapping
	if m.Header != "X-Api-Key" || m.KeyPrefix != 8 || m.Log.Path != "uri" || m.Log.Consumer != "upstream.cluster" || m.Log.Method != "" {
		t.Errorf("mapping = %+v", m)
	}
}
