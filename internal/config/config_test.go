package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contractlint/contractlint/internal/config"
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
	if s.ProtoLevel != rules.LevelWireJSON || c.HistoryDepth != 0 {
		t.Errorf("template level %v depth %d, want wire-json and 0", s.ProtoLevel, c.HistoryDepth)
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
	case len(s.IgnorePaths) != 1 || s.ProtoLevel != rules.LevelWire:
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
		{"proto:\n  level: strict\n", `c.yaml:2:10: proto.level: want file, package, wire-json or wire, not "strict"`},
		{"idempotency:\n  proto: loose\n", `c.yaml:2:10: idempotency.proto: want strict or default, not "loose"`},
		{"idempotency:\n  openapi: strict\n", `c.yaml:2:3: unknown key idempotency.openapi (want proto)`},
		{"history:\n  depth: -1\n", `c.yaml:2:10: history.depth: want a number of commits`},
		{"history:\n  deep: 1\n", `c.yaml:2:3: unknown key history.deep`},
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
	root := t.TempDir()
	deep := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
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
