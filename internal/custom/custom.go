// Package custom compiles the rules a team writes in .contractlint.yaml: a
// CEL expression (the language protovalidate and Kubernetes use) over a
// declared, typed view of one change, or of one element of a contract for
// lint rules, and a message template. Each becomes a rules.Rule like the
// built-in ones, so ignores, severities and every report format treat both
// alike. Expressions are parsed, type-checked and cost-bounded once, at
// config load; a mistake is a config error at its file:line:col.
package custom

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/cost"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/ext"
	"gopkg.in/yaml.v3"

	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

// MaxCost bounds one evaluation of one expression, in CEL's cost units
// (roughly one per operation, strings and lists counted by length). The
// estimate at load must fit under it, and the run enforces it again, so
// no config can make a run slow.
const MaxCost = 1_000_000

// Sizes the estimate assumes for the strings and lists a view holds: the
// run enforces MaxCost whatever the real sizes are.
const (
	estStringSize = 256
	estListSize   = 64
)

// idRE is a custom rule's ID: a namespace and a name, so it can never take
// the ID of a rule contractlint adds later.
var idRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*/[a-z0-9][a-z0-9-]*$`)

// IsCustomID reports whether id has the namespaced shape of a custom rule.
func IsCustomID(id string) bool { return idRE.MatchString(id) }

// over is what one kind of custom rule evaluates against: the variables it
// declares and the mode the engine runs it in.
type over struct {
	mode rules.Mode
	vars []cel.EnvOption
}

var overs = map[string]over{
	"change":    {rules.DiffRule, changeVars},
	"field":     {rules.LintRule, []cel.EnvOption{cel.Variable("field", cel.ObjectType(fieldType))}},
	"operation": {rules.LintRule, []cel.EnvOption{cel.Variable("operation", cel.ObjectType("custom.Operation"))}},
	"schema":    {rules.LintRule, []cel.EnvOption{cel.Variable("schema", cel.ObjectType("custom.Schema"))}},
}

// Def is the text of one rule as written, with the YAML nodes its problems
// point at.
type Def struct {
	ID       string
	Severity rules.Severity
	Formats  rules.Format
	Over     string
	Title    string
	Doc      string
	When     *yaml.Node
	Message  *yaml.Node
}

// Compiler turns rule definitions into rules; file and data (the config's
// name and text) place problems inside multi-line expressions.
type Compiler struct {
	file  string
	lines []string
	envs  map[string]*cel.Env
	probs source.Problems
}

// NewCompiler returns a compiler for the config named file with text data.
func NewCompiler(file string, data []byte) *Compiler {
	return &Compiler{file: file, lines: strings.Split(string(data), "\n"), envs: map[string]*cel.Env{}}
}

func (c *Compiler) errorf(line, col int, format string, args ...any) {
	c.probs = append(c.probs, source.Problem{File: c.file, Line: line, Column: col, Msg: fmt.Sprintf(format, args...)})
}

func (c *Compiler) env(name string) (*cel.Env, error) {
	if e, ok := c.envs[name]; ok {
		return e, nil
	}
	e, err := cel.NewEnv(append([]cel.EnvOption{nativeTypes(), ext.Strings()}, overs[name].vars...)...)
	if err != nil {
		return nil, err
	}
	c.envs[name] = e
	return e, nil
}

// Rule parses the definition of rule id (k is its key, v its mapping) and
// compiles it; nil when it has problems, which Problems returns.
func (c *Compiler) Rule(k, v *yaml.Node) *rules.Rule {
	n := len(c.probs)
	d := c.def(k, v)
	if len(c.probs) > n {
		return nil
	}
	env, err := c.env(d.Over)
	if err != nil {
		c.errorf(k.Line, k.Column, "rule %s: %v", d.ID, err)
		return nil
	}
	when := c.compile(env, d.ID, d.When, cel.BoolType)
	msg := c.template(env, d.ID, d.Message)
	if len(c.probs) > n {
		return nil
	}
	r := &rules.Rule{ID: d.ID, Pack: rules.Custom, Formats: d.Formats, Mode: overs[d.Over].mode, Severity: d.Severity,
		Doc: rules.Doc{Title: d.Title, Text: strings.TrimSpace(d.Doc + "\n\nDefined in " + c.file + ", over each " + d.Over + " when:\n    " + strings.TrimSpace(d.When.Value))}}
	r.Check = check(r, d.Over, when, msg)
	return r
}

// Problems returns every problem found so far, each at its file:line:col.
func (c *Compiler) Problems() source.Problems { return c.probs }

func (c *Compiler) def(k, v *yaml.Node) Def {
	d := Def{ID: k.Value, Severity: rules.Warning, Formats: rules.OpenAPI | rules.Proto, Over: "change"}
	if !IsCustomID(d.ID) {
		c.errorf(k.Line, k.Column, "custom rule %q: an ID is namespace/name in lower case (acme/amount-needs-unit), so it never clashes with a built-in rule", d.ID)
		return d
	}
	if v.Kind != yaml.MappingNode {
		c.errorf(v.Line, v.Column, "rule %s: want on, off or a mapping defining a custom rule", d.ID)
		return d
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		key, val := v.Content[i], v.Content[i+1]
		str := func() string {
			if val.Kind != yaml.ScalarNode || val.Value == "" {
				c.errorf(val.Line, val.Column, "rule %s: %s: want a non-empty string", d.ID, key.Value)
			}
			return val.Value
		}
		switch key.Value {
		case "severity":
			s, err := rules.ParseSeverity(str())
			if err != nil {
				c.errorf(val.Line, val.Column, "rule %s: %v", d.ID, err)
			}
			d.Severity = s
		case "formats":
			d.Formats = c.formats(d.ID, val)
		case "over":
			d.Over = str()
			if _, ok := overs[d.Over]; !ok {
				c.errorf(val.Line, val.Column, "rule %s: over: want change, field, operation or schema, not %q", d.ID, d.Over)
			}
		case "title":
			d.Title = str()
		case "doc":
			d.Doc = strings.TrimSpace(str())
		case "when":
			str()
			d.When = val
		case "message":
			str()
			d.Message = val
		default:
			c.errorf(key.Line, key.Column, "rule %s: unknown key %q (want severity, formats, over, title, doc, when or message)", d.ID, key.Value)
		}
	}
	for _, req := range []struct {
		name string
		set  bool
	}{{"title", d.Title != ""}, {"when", d.When != nil}, {"message", d.Message != nil}} {
		if !req.set {
			c.errorf(k.Line, k.Column, "rule %s: a custom rule needs a %s", d.ID, req.name)
		}
	}
	return d
}

func (c *Compiler) formats(id string, n *yaml.Node) rules.Format {
	items := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		items = n.Content
	}
	var f rules.Format
	for _, it := range items {
		switch it.Value {
		case "openapi":
			f |= rules.OpenAPI
		case "proto":
			f |= rules.Proto
		default:
			c.errorf(it.Line, it.Column, "rule %s: formats: want openapi or proto, not %q", id, it.Value)
		}
	}
	return f
}

// compile parses and type-checks one expression written at node n, wants
// its result of type want (nil: any), and checks its estimated cost.
func (c *Compiler) compile(env *cel.Env, id string, n *yaml.Node, want *cel.Type) cel.Program {
	return c.compileAt(env, id, n, n.Value, 0, want)
}

// compileAt compiles src, found at byte offset off of n's value.
func (c *Compiler) compileAt(env *cel.Env, id string, n *yaml.Node, src string, off int, want *cel.Type) cel.Program {
	ast, iss := env.Compile(src)
	if iss != nil && iss.Err() != nil {
		for _, e := range iss.Errors() {
			line, col := c.place(n, off, e.Location.Line(), e.Location.Column())
			c.errorf(line, col, "rule %s: %s", id, e.Message)
		}
		return nil
	}
	line, col := c.place(n, off, 1, 0)
	if want != nil && !ast.OutputType().IsExactType(want) {
		c.errorf(line, col, "rule %s: the expression is a %s; want a %s", id, ast.OutputType(), want)
		return nil
	}
	est, err := env.EstimateCost(ast, estimator{})
	if err != nil {
		c.errorf(line, col, "rule %s: cannot estimate the expression's cost: %v", id, err)
		return nil
	}
	if est.Max > MaxCost {
		c.errorf(line, col, "rule %s: the expression may cost up to %d, over the limit of %d per evaluation; loop over fewer things", id, est.Max, MaxCost)
		return nil
	}
	prg, err := env.Program(ast, cel.CostLimit(MaxCost))
	if err != nil {
		c.errorf(line, col, "rule %s: %v", id, err)
		return nil
	}
	return prg
}

// place turns a position in an expression (line 1-based, column 0-based)
// into one in the config file, for an expression starting at byte off of
// node n's value.
func (c *Compiler) place(n *yaml.Node, off, line, col int) (int, int) {
	// Count the lines the template put before the expression.
	before := strings.Count(n.Value[:min(off, len(n.Value))], "\n")
	if before == 0 && line == 1 {
		col += off - strings.LastIndexByte(n.Value[:min(off, len(n.Value))], '\n') - 1
	}
	line += before
	switch n.Style {
	case yaml.LiteralStyle, yaml.FoldedStyle:
		return c.placeInBlock(n, line, col)
	case yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle:
		col++
	}
	if line == 1 {
		return n.Line, n.Column + col
	}
	return n.Line + line - 1, col + 1
}

// placeInBlock places a position (line 1-based, column 0-based) of a
// literal or folded block's value. The text starts on the line after the
// indicator; a folded block joined some of its lines with spaces, so each
// written line is found in the value in turn, and the position is on the
// one that holds it.
func (c *Compiler) placeInBlock(n *yaml.Node, line, col int) (int, int) {
	at := col
	for _, l := range strings.SplitAfter(n.Value, "\n")[:max(0, line-1)] {
		at += len(l)
	}
	from := 0
	for i := n.Line; i < len(c.lines); i++ {
		text := strings.TrimLeft(c.lines[i], " ")
		if text == "" {
			continue
		}
		start := strings.Index(n.Value[from:], text)
		if start < 0 {
			break
		}
		start += from
		if at < start+len(text) || i == len(c.lines)-1 {
			return i + 1, len(c.lines[i]) - len(text) + max(0, at-start) + 1
		}
		from = start + len(text)
	}
	return n.Line + line, col + 1
}

// estimator gives the cost estimate sizes for the views' strings and
// lists, whose real sizes the run bounds.
type estimator struct{}

func (estimator) EstimateSize(n cost.AstNode) *cost.SizeEstimate {
	if len(n.Path()) == 0 {
		return nil
	}
	switch n.Type().Kind() {
	case types.StringKind:
		return &cost.SizeEstimate{Min: 0, Max: estStringSize}
	case types.ListKind:
		return &cost.SizeEstimate{Min: 0, Max: estListSize}
	}
	return nil
}

func (estimator) EstimateCallCost(string, string, *cost.AstNode, []cost.AstNode) *cost.CallEstimate {
	return nil
}

// part is one piece of a message template: literal text, or an expression
// between {{ and }} whose value is written in its place.
type part struct {
	text string
	expr cel.Program
}

var holeRE = regexp.MustCompile(`\{\{(.*?)\}\}`)

// template compiles a message: text with {{ expression }} holes, each
// type-checked like the rule's condition.
func (c *Compiler) template(env *cel.Env, id string, n *yaml.Node) []part {
	var parts []part
	last := 0
	for _, m := range holeRE.FindAllStringSubmatchIndex(n.Value, -1) {
		parts = append(parts, part{text: n.Value[last:m[0]]})
		parts = append(parts, part{expr: c.compileAt(env, id, n, n.Value[m[2]:m[3]], m[2], nil)})
		last = m[1]
	}
	if strings.Contains(n.Value[last:], "{{") {
		line, col := c.place(n, last, 1, strings.Index(n.Value[last:], "{{"))
		c.errorf(line, col, "rule %s: message: {{ has no matching }}", id)
	}
	return append(parts, part{text: n.Value[last:]})
}

// render writes the message for one match.
func render(parts []part, vars map[string]any) (string, error) {
	var b strings.Builder
	for _, p := range parts {
		if p.expr == nil {
			b.WriteString(p.text)
			continue
		}
		v, _, err := p.expr.Eval(vars)
		if err != nil {
			return "", err
		}
		b.WriteString(show(v))
	}
	return strings.TrimSpace(b.String()), nil
}

// show writes a value as a message reads it: a list as its items.
func show(v ref.Val) string {
	switch x := v.Value().(type) {
	case []string:
		return strings.Join(x, ", ")
	case string:
		return x
	}
	if l, err := v.ConvertToNative(reflect.TypeFor[[]string]()); err == nil {
		return strings.Join(l.([]string), ", ")
	}
	return fmt.Sprint(v.Value())
}

// check builds the rule's check: the condition over each element of its
// kind, and the message of each match.
func check(r *rules.Rule, name string, when cel.Program, msg []part) func(*rules.Input) []rules.Finding {
	eval := func(vars map[string]any) (string, bool) {
		out, _, err := when.Eval(vars)
		if err != nil {
			// An expression that fails on some input (a cost limit, a
			// division by zero) says so where it failed, never silently.
			return fmt.Sprintf("custom rule %s could not be evaluated here: %v", r.ID, err), true
		}
		if out != types.True {
			return "", false
		}
		m, err := render(msg, vars)
		if err != nil {
			return fmt.Sprintf("custom rule %s matched, but its message could not be written: %v", r.ID, err), true
		}
		return m, true
	}
	if name == "change" {
		return func(in *rules.Input) []rules.Finding {
			var out []rules.Finding
			for i := range in.Changes {
				c := &in.Changes[i]
				if c.Format&r.Formats == 0 {
					continue
				}
				if m, ok := eval(changeView(c)); ok {
					out = append(out, c.Finding(r, m))
				}
			}
			return out
		}
	}
	return func(in *rules.Input) []rules.Finding {
		c := in.New
		if c == nil || c.Format&r.Formats == 0 {
			return nil
		}
		var out []rules.Finding
		add := func(vars map[string]any, at rules.Location, path string) {
			if m, ok := eval(vars); ok {
				out = append(out, rules.Finding{Rule: r.ID, Severity: r.Severity, Message: m, Where: at, Path: path, Format: c.Format})
			}
		}
		switch name {
		case "field":
			for _, f := range c.Fields {
				add(map[string]any{"field": fieldView(f)}, f.Loc, f.Path)
			}
		case "operation":
			for _, op := range c.Operations {
				add(map[string]any{"operation": operationView(op)}, op.Loc, op.Path)
			}
		case "schema":
			for _, s := range c.Schemas {
				add(map[string]any{"schema": schemaView(s)}, s.Loc, s.Path)
			}
		}
		return out
	}
}
