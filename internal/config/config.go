// Package config reads .contractlint.yaml: which packs and rules run, their
// severities, the files to ignore, the contracts review looks at, consumer
// evidence, the proto level and how far back review reads git history.
//
// The file is read as yaml.v3 nodes rather than decoded into a struct, so
// every unknown key and every bad value is reported at its file:line:col.
package config

import (
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/contractlint/contractlint/internal/limits"
	"github.com/contractlint/contractlint/internal/readers"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

// FileName is the name Find looks for.
const FileName = ".contractlint.yaml"

// DefaultContracts are the globs review uses when the config names none.
// YAML and JSON files only count when their top level has `openapi:`.
var DefaultContracts = []string{"**/*.proto", "**/*.yaml", "**/*.yml", "**/*.json"}

// Config is one parsed .contractlint.yaml. Unset fields keep the built-in
// defaults; paths in it are relative to Dir.
type Config struct {
	// File is the config's path as given, for messages.
	File string
	// Dir is the directory holding the file; relative paths resolve from it.
	Dir string
	// Root is the top of the repository holding the file: paths in the
	// config (readers) may not leave it.
	Root     string
	Packs    map[string]bool
	Rules    map[string]bool
	Severity map[string]rules.Severity
	// Ignore are globs of files whose findings are dropped.
	Ignore []string
	// Accepts are ignore entries that accept one change each: a rule, an
	// element (name or JSON pointer), optionally a file glob, a reason.
	Accepts []rules.Ignore
	// Contracts are globs (repository-relative) of the files review compares;
	// nil means DefaultContracts.
	Contracts []string
	// Readers are consumer evidence files or directories, resolved from Dir.
	Readers []string
	// ReadersWindow is how recent a read must be to count; 0 when unset.
	ReadersWindow time.Duration
	// ReadersMapping says how traffic names consumers (readers.consumer)
	// and which access-log field holds what (readers.log).
	ReadersMapping readers.Mapping
	// ProtoLevel is 0 when unset.
	ProtoLevel rules.ProtoLevel
	// ProtoPaths are extra import roots, repository-relative.
	ProtoPaths []string
	// ProtoKeyStrict (idempotency: {proto: strict}) makes an rpc without an
	// idempotency key an error, as an OpenAPI POST is.
	ProtoKeyStrict bool
	// HistoryDepth bounds how many commits of a file's history review reads
	// for field numbers; 0 means all of it.
	HistoryDepth int
	// HistoryAll (history: all) counts a field number any commit used as
	// released; history: released (the default) makes a number that only
	// commits no release tag contains used a warning.
	HistoryAll bool
	// Limits bound what a run reads (limits: file-size, depth, files,
	// elements, total-elements, keys, proto-line and one key per kind); zero
	// fields keep the defaults.
	Limits limits.Limits
	// Compat is the directions diff and review judge (compat:); 0 when unset.
	Compat rules.Compat
	// FailOn is the gate (fail-on: error, warning, info or never) of diff,
	// lint and review when --fail-on is not given; "" when unset.
	FailOn string
	// Strict refuses an OpenAPI document its validator calls invalid
	// (exit 2) instead of reporting contract-invalid findings.
	Strict bool
	// RequireApproval (require-approval: true) makes every acceptance a
	// change adds itself (an inline ignore or waiver its base did not have)
	// a failing finding, for teams whose approval is a CODEOWNERS review of
	// the acceptance merged on its own. review reads it from the base.
	RequireApproval bool
	// Warnings are what loads but deserves a word, as file:line:col:
	// message: a rule named by an ID since renamed or retired.
	Warnings []string
	// Custom are the rules the config defines (rules: ID: {when: ...}),
	// compiled; Registry runs them beside the built-in ones.
	Custom []*rules.Rule
}

// Find looks for FileName in dir and each directory above it and returns its
// path, or "" when there is none. Inside a git work tree it never looks above
// the tree's top: a file there belongs to someone else, and a pull request
// must not be able to reach it.
func Find(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	top := repoTop(abs)
	for d := abs; ; d = filepath.Dir(d) {
		p := filepath.Join(d, FileName)
		fi, err := os.Lstat(p)
		if err == nil && !fi.IsDir() {
			return p, nil
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		if d == top || filepath.Dir(d) == d {
			return "", nil
		}
	}
}

// repoTop is the top of the git work tree holding dir, or "" outside one.
func repoTop(dir string) string {
	top, err := source.Root(dir)
	if err != nil {
		return ""
	}
	if _, err := os.Lstat(filepath.Join(top, ".git")); err != nil {
		return ""
	}
	return top
}

// Load reads and checks the config at file. It is read like a contract,
// through the source boundary of the repository holding it and under the
// default limits: a symbolic link out of the tree, a device, a pipe or a
// huge file is refused before its contents could reach a message. Every
// problem is reported, each at its file:line:col, as a source.Problems.
func Load(file string) (*Config, error) {
	return LoadAs(file, file)
}

// LoadAs is Load of the file at path, named file in messages and in the
// Config: the caller resolved a relative name against its own working
// directory and shows it as the user wrote it.
func LoadAs(path, file string) (*Config, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	root, err := source.Root(abs)
	if err != nil {
		return nil, source.Errorf(file, 0, 0, "cannot read the config: %v", unwrap(err))
	}
	src, err := source.OpenDir(root)
	if err != nil {
		return nil, source.Errorf(file, 0, 0, "cannot read the config: %v", unwrap(err))
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil {
		return nil, err
	}
	show := func(string) string { return file }
	rel = filepath.ToSlash(rel)
	data, err := limits.Default().Guard(src, show).ReadFile(rel)
	var ps source.Problems
	if errors.As(err, &ps) {
		return nil, ps
	}
	if err != nil {
		return nil, source.Errorf(file, 0, 0, "cannot read the config: %v", reason(err, rel))
	}
	c, err := Parse(file, filepath.Dir(abs), data)
	if c != nil {
		c.Root = root
	}
	return c, err
}

// Parse reads config text; name is shown in messages and dir anchors paths.
func Parse(name, dir string, data []byte) (*Config, error) {
	return parse(rules.Default(), name, dir, data)
}

// parse is Parse against the rules of reg.
func parse(reg *rules.Registry, name, dir string, data []byte) (*Config, error) {
	p := &parser{file: name, known: knownNames(reg), reg: reg}
	c := &Config{File: name, Dir: dir}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, yamlProblem(name, err)
	}
	if len(doc.Content) == 0 {
		return c, nil // an empty file keeps every default
	}
	c.Custom = p.customRules(doc.Content[0], data)
	p.top(doc.Content[0], c)
	if len(p.probs) > 0 {
		return nil, p.probs
	}
	c.Warnings = p.warns
	return c, nil
}

// Apply writes the config's choices into s; command-line flags applied
// after it win.
func (c *Config) Apply(s *rules.Settings) {
	if len(c.Packs) > 0 && s.Packs == nil {
		s.Packs = map[string]bool{}
	}
	for k, v := range c.Packs {
		s.Packs[k] = v
	}
	if len(c.Rules) > 0 && s.Rules == nil {
		s.Rules = map[string]bool{}
	}
	for k, v := range c.Rules {
		s.Rules[k] = v
	}
	if (len(c.Severity) > 0 || c.ProtoKeyStrict) && s.Severity == nil {
		s.Severity = map[string]rules.Severity{}
	}
	if c.ProtoKeyStrict {
		s.Severity[rules.RPCKeyMissingID] = rules.Error // an explicit severity below still wins
	}
	for k, v := range c.Severity {
		s.Severity[k] = v
	}
	s.IgnorePaths = append(s.IgnorePaths, c.Ignore...)
	s.Accepts = append(s.Accepts, c.Accepts...)
	if c.ProtoLevel != 0 {
		s.ProtoLevel = c.ProtoLevel
	}
	if c.Compat != 0 {
		s.Compat = c.Compat
	}
	s.Strict = s.Strict || c.Strict
}

// ContractGlobs returns the globs review uses.
func (c *Config) ContractGlobs() []string {
	if c == nil || c.Contracts == nil {
		return DefaultContracts
	}
	return c.Contracts
}

type names struct {
	packs map[string]bool
	rules map[string]bool
}

func knownNames(reg *rules.Registry) names {
	n := names{packs: map[string]bool{}, rules: map[string]bool{}}
	for _, r := range reg.All() {
		n.packs[string(r.Pack)] = true
		n.rules[r.ID] = true
	}
	// Pseudo-rules a run reports without a registered check.
	n.rules[rules.UnusedIgnoreID] = true
	return n
}

type parser struct {
	file  string
	known names
	reg   *rules.Registry
	probs source.Problems
	warns []string
}

func (p *parser) errorf(n *yaml.Node, format string, args ...any) {
	p.probs = append(p.probs, source.Problem{File: p.file, Line: n.Line, Column: n.Column, Msg: fmt.Sprintf(format, args...)})
}

// mapping calls each(key, value) for every pair of a mapping node, refusing
// duplicated keys, which YAML allows but which would hide one setting.
func (p *parser) mapping(n *yaml.Node, what string, each func(k, v *yaml.Node)) {
	n = deref(n)
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return
	}
	if n.Kind != yaml.MappingNode {
		p.errorf(n, "%s must be a mapping", what)
		return
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], deref(n.Content[i+1])
		if seen[k.Value] {
			p.errorf(k, "%s: %q is set twice", what, k.Value)
			continue
		}
		seen[k.Value] = true
		each(k, v)
	}
}

func deref(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

func (p *parser) top(n *yaml.Node, c *Config) {
	p.mapping(n, "the config", func(k, v *yaml.Node) {
		switch k.Value {
		case "packs":
			c.Packs = p.switches(v, "packs", p.known.packs, "pack")
		case "rules":
			c.Rules = p.switches(v, "rules", p.known.rules, "rule")
		case "severity":
			c.Severity = p.severities(v)
		case "ignore":
			c.Ignore, c.Accepts = p.ignores(v)
		case "contracts":
			c.Contracts = p.globs(v, "contracts")
			if c.Contracts == nil {
				c.Contracts = []string{}
			}
		case "readers":
			p.readers(v, c)
		case "proto":
			p.proto(v, c)
		case "idempotency":
			p.idempotency(v, c)
		case "history":
			p.history(v, c)
		case "limits":
			p.limits(v, c)
		case "compat":
			compat, err := rules.ParseCompat(v.Value)
			if v.Kind != yaml.ScalarNode || err != nil {
				p.errorf(v, "compat: want backward, forward or full, not %q", v.Value)
				return
			}
			c.Compat = compat
		case "fail-on":
			c.FailOn = p.failOn(v)
		case "strict":
			var ok bool
			if c.Strict, ok = p.boolean(v); !ok {
				p.errorf(v, "strict: want true or false, not %q", v.Value)
			}
		case "require-approval":
			var ok bool
			if c.RequireApproval, ok = p.boolean(v); !ok {
				p.errorf(v, "require-approval: want true or false, not %q", v.Value)
			}
		default:
			p.errorf(k, "unknown key %q (want packs, rules, severity, ignore, contracts, readers, proto, idempotency, history, limits, fail-on, strict, require-approval or compat)", k.Value)
		}
	})
}

// switches reads `name: on|off` pairs whose names must be known.
func (p *parser) switches(n *yaml.Node, what string, known map[string]bool, kind string) map[string]bool {
	out := map[string]bool{}
	p.mapping(n, what, func(k, v *yaml.Node) {
		if kind == "rule" && v.Kind == yaml.MappingNode {
			return // a custom rule's definition, read by customRules
		}
		ids, ok := []string{k.Value}, known[k.Value]
		if kind == "rule" {
			ids, ok = p.ruleIDs(k)
		}
		if !ok {
			p.errorf(k, "unknown %s %q (see `contractlint rules`)", kind, k.Value)
			return
		}
		if b, ok := p.boolean(v); ok {
			for _, id := range ids {
				out[id] = b
			}
		} else {
			p.errorf(v, "%s %s: want on or off, not %q", kind, k.Value, v.Value)
		}
	})
	return out
}

// boolean accepts YAML's true/false and the on/off a config reads best with.
func (p *parser) boolean(v *yaml.Node) (bool, bool) {
	if v.Kind != yaml.ScalarNode {
		return false, false
	}
	switch v.Value {
	case "true", "on", "yes":
		return true, true
	case "false", "off", "no":
		return false, true
	}
	return false, false
}

func (p *parser) severities(n *yaml.Node) map[string]rules.Severity {
	out := map[string]rules.Severity{}
	p.mapping(n, "severity", func(k, v *yaml.Node) {
		ids, ok := p.ruleIDs(k)
		if !ok {
			p.errorf(k, "unknown rule %q (see `contractlint rules`)", k.Value)
			return
		}
		s, err := rules.ParseSeverity(v.Value)
		if v.Kind != yaml.ScalarNode || err != nil {
			p.errorf(v, "severity of %s: want error, warning or info, not %q", k.Value, v.Value)
			return
		}
		for _, id := range ids {
			out[id] = s
		}
	})
	return out
}

// strings reads a sequence of strings (a lone string counts as one).
func (p *parser) strings(n *yaml.Node, what string) []string {
	n = deref(n)
	switch {
	case n.Kind == yaml.ScalarNode && n.Tag == "!!null":
		return nil
	case n.Kind == yaml.ScalarNode && n.Tag == "!!str":
		return []string{n.Value}
	case n.Kind != yaml.SequenceNode:
		p.errorf(n, "%s must be a list of strings", what)
		return nil
	}
	var out []string
	for _, e := range n.Content {
		e = deref(e)
		if e.Kind != yaml.ScalarNode || e.Tag != "!!str" || e.Value == "" {
			p.errorf(e, "%s: want a non-empty string", what)
			continue
		}
		out = append(out, e.Value)
	}
	return out
}

// globs reads slash-separated globs and checks their syntax now, so a typo
// is an error rather than a pattern that silently matches nothing.
func (p *parser) globs(n *yaml.Node, what string) []string {
	out := p.strings(n, what)
	items := deref(n).Content
	for i, g := range out {
		at := deref(n)
		if i < len(items) {
			at = items[i]
		}
		if _, err := path.Match(g, ""); err != nil {
			p.errorf(at, "%s: bad glob %q: %v", what, g, err)
		}
	}
	return out
}

// ignores reads the ignore list: a string is a glob of files whose findings
// are all dropped; a mapping accepts one change, {rule, element, file,
// reason}, and is reported unused when it matched nothing.
func (p *parser) ignores(n *yaml.Node) ([]string, []rules.Ignore) {
	n = deref(n)
	if n.Kind != yaml.SequenceNode {
		return p.globs(n, "ignore"), nil
	}
	var globs []string
	var accepts []rules.Ignore
	for _, e := range n.Content {
		e = deref(e)
		if e.Kind != yaml.MappingNode {
			globs = append(globs, p.globs(&yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{e}}, "ignore")...)
			continue
		}
		a := rules.Ignore{Loc: rules.Location{File: p.file, Line: e.Line, Column: e.Column}}
		p.mapping(e, "ignore", func(k, v *yaml.Node) {
			var field *string
			switch k.Value {
			case "rule":
				field = &a.Rule
			case "element":
				field = &a.Element
			case "file":
				field = &a.File
			case "reason":
				field = &a.Reason
			default:
				p.errorf(k, "ignore: unknown key %q (want rule, element, file or reason)", k.Value)
				return
			}
			if v.Kind != yaml.ScalarNode || v.Value == "" {
				p.errorf(v, "ignore: %s: want a non-empty string", k.Value)
				return
			}
			*field = v.Value
			if k.Value == "rule" {
				a.Rule = p.oneRule(v)
			}
			if _, err := path.Match(v.Value, ""); k.Value == "file" && err != nil {
				p.errorf(v, "ignore: bad glob %q: %v", v.Value, err)
			}
		})
		switch {
		case a.Rule == "":
			p.errorf(e, "ignore: an accepted change names its rule")
		case a.Element == "":
			p.errorf(e, "ignore: an accepted change names its element (a name or a JSON pointer); a glob string ignores whole files")
		case a.Reason == "":
			p.errorf(e, "ignore: an accepted change needs a reason")
		}
		accepts = append(accepts, a)
	}
	return globs, accepts
}

func (p *parser) readers(n *yaml.Node, c *Config) {
	p.mapping(n, "readers", func(k, v *yaml.Node) {
		switch k.Value {
		case "paths":
			for _, r := range p.strings(v, "readers.paths") {
				if !filepath.IsAbs(r) {
					r = filepath.Join(c.Dir, filepath.FromSlash(r))
				}
				c.Readers = append(c.Readers, r)
			}
		case "window":
			d, err := readers.ParseWindow(v.Value)
			if v.Kind != yaml.ScalarNode || err != nil {
				p.errorf(v, "readers.window: want a number of days (30d), weeks (4w) or a duration (720h), not %q", v.Value)
				return
			}
			c.ReadersWindow = d
		case "consumer":
			p.readersConsumer(v, &c.ReadersMapping)
		case "log":
			p.readersLog(v, &c.ReadersMapping.Log)
		default:
			p.errorf(k, "unknown key readers.%s (want paths, window, consumer or log)", k.Value)
		}
	})
}

// readersConsumer reads readers.consumer: {header: X-Client, key-prefix: 12}.
func (p *parser) readersConsumer(n *yaml.Node, m *readers.Mapping) {
	p.mapping(n, "readers.consumer", func(k, v *yaml.Node) {
		switch k.Value {
		case "header":
			if v.Kind != yaml.ScalarNode || v.Value == "" || strings.ContainsAny(v.Value, " :\t") {
				p.errorf(v, "readers.consumer.header: want a header name such as User-Agent or X-Api-Key")
				return
			}
			m.Header = v.Value
		case "key-prefix":
			n, err := strconv.Atoi(v.Value)
			if v.Kind != yaml.ScalarNode || err != nil || n < 1 {
				p.errorf(v, "readers.consumer.key-prefix: want a number of characters, 1 or more, not %q", v.Value)
				return
			}
			m.KeyPrefix = n
		default:
			p.errorf(k, "unknown key readers.consumer.%s (want header or key-prefix)", k.Value)
		}
	})
}

// readersLog reads readers.log: the access-log field of each role.
func (p *parser) readersLog(n *yaml.Node, f *readers.LogFields) {
	roles := map[string]*string{"time": &f.Time, "method": &f.Method, "path": &f.Path, "status": &f.Status,
		"consumer": &f.Consumer, "body": &f.Body}
	p.mapping(n, "readers.log", func(k, v *yaml.Node) {
		dst, ok := roles[k.Value]
		if !ok {
			p.errorf(k, "unknown key readers.log.%s (want time, method, path, status, consumer or body)", k.Value)
			return
		}
		if v.Kind != yaml.ScalarNode || v.Value == "" {
			p.errorf(v, "readers.log.%s: want the name of a field of the log's lines", k.Value)
			return
		}
		*dst = v.Value
	})
}

func (p *parser) proto(n *yaml.Node, c *Config) {
	p.mapping(n, "proto", func(k, v *yaml.Node) {
		switch k.Value {
		case "level":
			l, err := rules.ParseProtoLevel(v.Value)
			if v.Kind != yaml.ScalarNode || err != nil {
				p.errorf(v, "proto.level: want file, package, wire-json or wire, not %q", v.Value)
				return
			}
			c.ProtoLevel = l
		case "paths":
			for _, d := range p.strings(v, "proto.paths") {
				if _, err := source.Clean(d); err != nil {
					p.errorf(v, "proto.paths: %v", err)
					continue
				}
				c.ProtoPaths = append(c.ProtoPaths, d)
			}
		default:
			p.errorf(k, "unknown key proto.%s (want level or paths)", k.Value)
		}
	})
}

func (p *parser) idempotency(n *yaml.Node, c *Config) {
	p.mapping(n, "idempotency", func(k, v *yaml.Node) {
		if k.Value != "proto" {
			p.errorf(k, "unknown key idempotency.%s (want proto)", k.Value)
			return
		}
		if w, ok := p.word(v, "idempotency.proto: want strict or default", "strict", "default"); ok {
			c.ProtoKeyStrict = w == "strict"
		}
	})
}

func (p *parser) history(n *yaml.Node, c *Config) {
	if n = deref(n); n.Kind == yaml.ScalarNode && n.Tag != "!!null" {
		p.historyReuse(n, c)
		return
	}
	p.mapping(n, "history", func(k, v *yaml.Node) {
		if k.Value == "reuse" {
			p.historyReuse(v, c)
			return
		}
		if k.Value != "depth" {
			p.errorf(k, "unknown key history.%s (want depth or reuse)", k.Value)
			return
		}
		var d int
		if v.Kind != yaml.ScalarNode || v.Tag != "!!int" || v.Decode(&d) != nil || d < 0 {
			p.errorf(v, "history.depth: want a number of commits (0 for all), not %q", v.Value)
			return
		}
		c.HistoryDepth = d
	})
}

// historyReuse reads released or all: which earlier uses of a field number
// count as released.
func (p *parser) historyReuse(v *yaml.Node, c *Config) {
	if w, ok := p.word(v, "history: want released or all (or a mapping of depth and reuse)", "released", "all"); ok {
		c.HistoryAll = w == "all"
	}
}

// word reads a scalar that must be one of words; otherwise it reports
// want at v and returns false.
func (p *parser) word(v *yaml.Node, want string, words ...string) (string, bool) {
	if v.Kind == yaml.ScalarNode && slices.Contains(words, v.Value) {
		return v.Value, true
	}
	p.errorf(v, "%s, not %q", want, v.Value)
	return "", false
}

// failOn reads fail-on, spelled as the flag takes it (oasdiff's ERR and
// WARN too), as error, warning, info, version-bump or never.
func (p *parser) failOn(v *yaml.Node) string {
	if v.Kind == yaml.ScalarNode {
		if s := strings.ToLower(strings.TrimSpace(v.Value)); s == "never" || s == rules.FailOnVersionBump {
			return s
		}
		if s, err := rules.ParseSeverity(v.Value); err == nil {
			return s.String()
		}
	}
	p.errorf(v, "fail-on: want error, warning, info, version-bump or never, not %q", v.Value)
	return ""
}

// limits reads the bounds on what a run reads; the flags of the same names
// (--max-file-size, --max-depth, --max-files, --max-elements, --max-keys,
// --max-proto-line, --max-total-elements, --max-count KIND=N) win over them.
func (p *parser) limits(n *yaml.Node, c *Config) {
	p.mapping(n, "limits", func(k, v *yaml.Node) {
		switch k.Value {
		case "file-size", "proto-line":
			size, err := limits.ParseSize(v.Value)
			if v.Kind != yaml.ScalarNode || err != nil || size > math.MaxInt32 {
				p.errorf(v, "limits.%s: want a size such as 64MiB, not %q", k.Value, v.Value)
				return
			}
			if k.Value == "file-size" {
				c.Limits.FileSize = size
			} else {
				c.Limits.ProtoLine = int(size)
			}
		case "depth", "files", "elements", "keys", "total-elements", "operations", "schemas", "properties", "messages", "fields", "reserved":
			var d int
			if v.Kind != yaml.ScalarNode || v.Tag != "!!int" || v.Decode(&d) != nil || d <= 0 {
				p.errorf(v, "limits.%s: want a positive number, not %q", k.Value, v.Value)
				return
			}
			switch k.Value {
			case "depth":
				c.Limits.Depth = d
			case "files":
				c.Limits.Files = d
			case "keys":
				c.Limits.Keys = d
			case "total-elements":
				c.Limits.TotalElements = d
			case "elements":
				c.Limits.Elements, c.Limits.ProtoElements = d, d
			default:
				k, _ := limits.ParseKind(k.Value) // one of the kinds listed above
				c.Limits.Counts[k] = d
			}
		default:
			p.errorf(k, "unknown key limits.%s (want file-size, depth, files, elements, total-elements, keys, proto-line or a kind: operations, schemas, properties, messages, fields, reserved)", k.Value)
		}
	})
}

// yamlProblem turns a YAML syntax error ("yaml: line 3: ...") into a problem
// at that line.
func yamlProblem(file string, err error) error {
	var line int
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if _, scanErr := fmt.Sscanf(msg, "line %d:", &line); scanErr == nil {
		_, msg, _ = strings.Cut(msg, ":")
		msg = strings.TrimSpace(msg)
	}
	return source.Errorf(file, line, 0, "%s", msg)
}

// reason is what a Source says about name, without the name: the problem
// names the config file as the user gave it.
func reason(err error, name string) string {
	return strings.TrimPrefix(unwrap(err).Error(), name+": ")
}

func unwrap(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Template is the commented default that `contractlint init` writes.
//
//go:embed default.yaml
var Template []byte
