package rules

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Input is what a rule's check reads: the typed diff and the two lowered
// versions. Lint runs see only New.
type Input struct {
	Changes []Change
	Old     *Contract
	New     *Contract
	// Readers is consumer evidence (--readers); nil when none was given.
	Readers Evidence
	// History holds the proto field numbers used before Old (git history or
	// contractlint.lock); nil when unknown.
	History *History
	// Now is the run's clock reading: dates in a contract (x-sunset) are
	// judged against it, never against a clock the rule reads itself.
	Now time.Time
}

// ProtoLevel is buf's strictness category; a proto rule runs at every level
// its Levels include.
type ProtoLevel uint8

const (
	LevelFile ProtoLevel = 1 << iota
	LevelPackage
	LevelWireJSON
	LevelWire
)

// ParseProtoLevel reads the --proto-level flag.
func ParseProtoLevel(s string) (ProtoLevel, error) {
	switch strings.ToLower(strings.ReplaceAll(s, "_", "-")) {
	case "file":
		return LevelFile, nil
	case "package":
		return LevelPackage, nil
	case "wire-json":
		return LevelWireJSON, nil
	case "wire":
		return LevelWire, nil
	}
	return 0, fmt.Errorf("unknown proto level %q (want file, package, wire-json or wire)", s)
}

// Mode says whether a rule compares two versions or inspects one.
type Mode uint8

const (
	DiffRule Mode = iota + 1
	LintRule
	// ProbeRule is documented like any rule but reported only by
	// `contractlint probe` or `contractlint replay` from live responses; it
	// has no Check.
	ProbeRule
)

// Pack is a named set of rules switched on and off together.
type Pack string

// The packs, in the order they are listed.
const (
	Breaking     Pack = "breaking"
	Evolution    Pack = "evolution"
	Idempotency  Pack = "idempotency"
	Evolvability Pack = "evolvability"
	// ForwardPack is named apart from Forward, the compat direction it judges.
	ForwardPack Pack = "forward"
	Lint        Pack = "lint"
	Probe       Pack = "probe"
	Replay      Pack = "replay"
	// Custom holds the rules a config defines (see internal/custom).
	Custom Pack = "custom"
)

// Rule is one declared check. Everything a user reads about it (title, doc,
// examples) is data here, printed by `contractlint rules ID`.
type Rule struct {
	ID       string
	Pack     Pack
	Formats  Format
	Mode     Mode
	Severity Severity
	// Bump is the version bump a finding of this rule needs; zero derives
	// it from the rule's mode and direction (see RequiredBump).
	Bump Bump
	// Off rules run only when config enables them.
	Off    bool
	Levels ProtoLevel
	// Buf names the buf breaking rules this one covers.
	Buf []string
	// Oasdiff names the oasdiff check IDs (ERR and WARN) this rule covers;
	// a `*` stands for one or more dash-separated words, as in
	// request-*-max-decreased (body, property, parameter, header).
	Oasdiff []string
	// Doc is everything `contractlint rules ID` prints about the rule.
	Doc Doc
	// Supersedes lists rules whose findings at the same location this rule's
	// finding replaces (field-redefined says more than a bare type change).
	Supersedes []string
	// Continues lists lint rules that reported the same problem under
	// another verdict: in a diff, an element the old side had one of their
	// findings on is no problem the change made (a POST keyless before an
	// API adopted keys was idempotency-key-not-adopted; it is not a new
	// idempotency-key-missing).
	Continues []string
	// Apart marks a rule whose findings about one element are each a
	// different edit (one per extension range, reservation or required
	// field of the message): the engine never merges them with another.
	Apart bool
	// Compat is the direction a diff rule judges; zero is backward.
	Compat Compat
	// Reads declares the vocabulary entries Check judges changes of, as
	// oasdiff's checks declare their locations: TestRuleReads fails when a
	// fixture's finding comes from a change of an entry the rule does not
	// list, or when an entry listed is not in Vocabulary.
	Reads []Entry
	Check func(*Input) []Finding
}

// Doc is a rule's documentation: a one-line title, a paragraph saying what
// it catches, whom that breaks and what to do instead, and a bad and a good
// example (raw strings, shown as written).
type Doc struct {
	Title, Text, Bad, Good string
}

// packOrder lists the packs in the order they are listed.
var packOrder = []Pack{Breaking, Evolution, Idempotency, Evolvability, ForwardPack, Lint, Probe, Replay, Custom}

// Registry is the immutable set of rules, built once per run.
type Registry struct {
	rules []*Rule
	byID  map[string]*Rule
	// retired are the released IDs no rule holds now (see Retirement).
	retired []Retirement
}

// NewRegistry indexes rules and rejects a duplicated ID.
func NewRegistry(rs []*Rule) (*Registry, error) {
	reg := &Registry{byID: make(map[string]*Rule, len(rs)), retired: retirements()}
	for _, r := range rs {
		if _, dup := reg.byID[r.ID]; dup {
			return nil, fmt.Errorf("rule %s registered twice", r.ID)
		}
		reg.byID[r.ID] = r
		reg.rules = append(reg.rules, r)
	}
	slices.SortStableFunc(reg.rules, func(a, b *Rule) int {
		if c := slices.Index(packOrder, a.Pack) - slices.Index(packOrder, b.Pack); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return reg, nil
}

// All returns every rule, grouped by pack and sorted by ID.
func (r *Registry) All() []*Rule { return r.rules }

// Get returns the rule with that ID.
func (r *Registry) Get(id string) (*Rule, bool) {
	x, ok := r.byID[id]
	return x, ok
}

// Default returns the registry of every rule contractlint ships.
func Default() *Registry {
	reg, err := NewRegistry(builtin())
	if err != nil {
		panic(err) // a duplicated ID is a programming error caught by tests
	}
	return reg
}
