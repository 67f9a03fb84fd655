package rules

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

func fieldRedefined() *Rule {
	r := &Rule{
		ID:       "field-redefined",
		Reads:    []Entry{{Modified, SubjectField, ""}},
		Pack:     Evolution,
		Formats:  OpenAPI | Proto,
		Mode:     DiffRule,
		Severity: Error,
		// A property whose type changes keeps its name but not its meaning;
		// field-redefined reports it once, in place of the type-changed rules.
		Oasdiff: []string{"request-property-type-changed", "response-property-type-changed", "request-parameter-property-type-*"},
		Supersedes: []string{
			"response-property-type-changed", "request-property-type-changed",
			"response-property-format-changed", "request-property-format-changed",
			// A pattern that dropped its decimals is the unit change itself.
			"response-pattern-changed", "request-pattern-changed",
			// A multipleOf that moved by a power of ten is the scale change.
			"request-multiple-of-changed",
		},
		Doc: Doc{
			Title: "A field keeps its name but changes its meaning",
			Text: "A field that keeps its name (proto: its number) while its type, format, unit, scale, " +
				"enum values, array-ness or nullability change is read by every existing client with " +
				"the old meaning. Nothing fails to parse: a price of 40.00 dollars that becomes 4000 " +
				"cents is shown as $4,000 by last year's app, and in a request the server reads an old " +
				"client's 40.00 as 40 cents. Units are read on both sides from x-unit/x-units, unit words " +
				"in the description or title, multipleOf, a pattern or string example that loses its " +
				"decimals (\"40.00\" -> \"4000\"), and in proto from the field's leading and trailing " +
				"comments and any custom option named *unit*; a proto type old readers misread (double -> " +
				"int64) or another shape is reported here in the same words, in place of the breaking " +
				"type and cardinality rules (whose buf rule IDs the finding carries). A unit named on one side only counts when " +
				"the example moved by a power of ten. Add a new field with the new meaning next to the " +
				"old one (expand), move clients over, and remove the old field only once nobody reads it " +
				"(contract).",
			Bad: `# old
price: {type: number, description: Price in dollars, example: 40.00}
# new
price: {type: integer, description: Price in cents, example: 4000}`,
			Good: `# new
price: {type: number, description: Price in dollars, example: 40.00}
price_cents: {type: integer, description: Price in cents, example: 4000}`,
		},
	}
	// The same meaning change in a proto field: field-redefined says what
	// the type and cardinality rules would, and carries their buf rules.
	r.Supersedes = append(r.Supersedes, protoTypeRuleIDs...)
	r.Check = func(in *Input) []Finding {
		var out []Finding
		for i := range in.Changes {
			c := &in.Changes[i]
			if !c.MeaningChanged() {
				continue
			}
			if msg, ok := redefined(c); ok {
				out = append(out, c.Finding(r, msg))
			}
		}
		return out
	}
	return r
}

func fieldExampleRescaled() *Rule {
	r := &Rule{
		ID:       "field-example-rescaled",
		Reads:    []Entry{{Modified, SubjectField, ""}},
		Pack:     Evolution,
		Formats:  OpenAPI,
		Mode:     DiffRule,
		Severity: Warning,
		Doc: Doc{
			Title: "A field's example grew or shrank by a power of ten",
			Text: "The example is often the only place a contract shows a field's scale: 40.00 dollars " +
				"next to 4000 cents is the same number of digits a client author copies. An example that " +
				"moved by exactly 10, 100 or 1,000 times while nothing else about the field changed is " +
				"either a corrected example or an unannounced change of unit. It is a warning because " +
				"examples are free to change; when the type, a pattern, decimals or a unit word moved " +
				"with it, field-redefined reports the change as an error instead. State the unit " +
				"(x-unit or the description) so readers do not have to guess.",
			Bad: `# old
price: {type: number, example: 40.00}
# new
price: {type: number, example: 4000}`,
			Good: `# new
price: {type: number, description: Ticket price in dollars., example: 40.00}`,
		},
	}
	return onChange(r, func(c *Change) (string, bool) {
		if !c.MeaningChanged() {
			return "", false
		}
		o, n := c.OldField, c.NewField
		ratio, ok := exampleRatio(o, n)
		ou, oKnown := fieldUnit(o)
		nu, nKnown := fieldUnit(n)
		if !ok || (oKnown && nKnown && ou.Name == nu.Name) {
			return "", false
		}
		if _, redefined := redefinedOpenAPI(c); redefined {
			return "", false
		}
		size := grouped(ratio) + " times larger"
		if ratio < 1 {
			size = grouped(1/ratio) + " times smaller"
		}
		return fmt.Sprintf("%s: example %s -> %s, %s; if the unit changed, old clients misread every "+
			"value; otherwise state the unit (x-unit or the description) so it is clear it did not",
			cmp.Or(c.Name, o.Name), exampleText(o), exampleText(n), size), true
	})
}

// redefined dispatches on the format: each format knows what meaning is.
// Every finding carries the rule's one declared severity.
func redefined(c *Change) (string, bool) {
	if c.Format == Proto {
		return redefinedProto(c)
	}
	return redefinedOpenAPI(c)
}

// meaning collects what changed about one field and by how much its numbers
// grow, which is what turns 40.00 into $4,000 for an old client.
type meaning struct {
	parts  []string
	growth float64 // factor the numbers grow by; 0 when unknown
}

func (m *meaning) add(format string, args ...any) {
	m.parts = append(m.parts, fmt.Sprintf(format, args...))
}

func redefinedOpenAPI(c *Change) (string, bool) {
	o, n := c.OldField, c.NewField
	m, ou, nu, nKnown := openAPIMeaning(o, n)
	if len(m.parts) == 0 {
		return "", false
	}
	name := cmp.Or(c.Name, o.Name)
	return fmt.Sprintf("%s: %s: %s; %s", name, strings.Join(m.parts, ", "),
		m.consequence(c.Dir, o, n, ou, nu), advice(name, nu, nKnown)), true
}

// openAPIMeaning collects what changed about the meaning of an OpenAPI
// field, and the units each side states.
func openAPIMeaning(o, n *Field) (m meaning, ou, nu unit, nKnown bool) {
	if o.Type != "" && n.Type != "" && o.Type != n.Type {
		m.add("type %s -> %s", o.Type, n.Type)
	}
	if o.Format != "" && n.Format != "" && o.Format != n.Format {
		m.add("format %s -> %s", o.Format, n.Format)
	}
	ou, oKnown := fieldUnit(o)
	nu, nKnown = fieldUnit(n)
	sameUnit := oKnown && nKnown && ou.Name == nu.Name
	if oKnown && nKnown && !sameUnit {
		m.add("unit %s -> %s", ou.Name, nu.Name)
		if ou.Dim != "" && ou.Dim == nu.Dim {
			m.growth = ou.Scale / nu.Scale
		}
	}
	// A finer multipleOf under an unchanged unit is precision, not scale.
	if o.MultipleOf > 0 && n.MultipleOf > 0 && !sameUnit {
		if _, ok := powerOfTen(n.MultipleOf / o.MultipleOf); ok {
			m.add("multipleOf %s -> %s", num(o.MultipleOf), num(n.MultipleOf))
			if m.growth == 0 {
				m.growth = n.MultipleOf / o.MultipleOf
			}
		}
	}
	if !sameUnit && hasDecimals(o.Pattern) != hasDecimals(n.Pattern) && o.Pattern != "" && n.Pattern != "" {
		m.add("pattern %s -> %s", o.Pattern, n.Pattern)
	}
	if !sameUnit {
		m.example(o, n, ou, nu, oKnown, nKnown)
	}
	m.enum(o, n)
	m.shape(o, n)
	return m, ou, nu, nKnown
}

// example counts an example whose magnitude moved by a power of ten when
// something else says the scale moved: a unit named on one side only ("in
// cents" where the old text named none), or decimals that are gone (number
// -> integer, a pattern or a string example without them). Alone, a
// rescaled example is field-example-rescaled's warning.
func (m *meaning) example(o, n *Field, ou, nu unit, oKnown, nKnown bool) {
	if m.growth != 0 {
		return
	}
	ratio, ok := exampleRatio(o, n)
	if !ok {
		return
	}
	k, _ := powerOfTen(ratio)
	oneSided := oKnown != nKnown
	if !oneSided && !(decimalsGone(o, n) && k > 0) {
		return
	}
	if oneSided {
		m.add("unit %s -> %s", stated(ou, oKnown), stated(nu, nKnown))
	}
	m.add("example %s -> %s", exampleText(o), exampleText(n))
	m.growth = ratio
}

// stated names a unit, or says the text named none.
func stated(u unit, known bool) string {
	if known {
		return u.Name
	}
	return "(none stated)"
}

// example returns a field's example as a number: a numeric example, or a
// string one that holds a number (money sent as "40.00").
func example(f *Field) (float64, bool) {
	if f.HasExample {
		return f.Example, true
	}
	x, err := strconv.ParseFloat(strings.TrimSpace(f.StringExample), 64)
	if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
		return 0, false
	}
	return x, true
}

func exampleText(f *Field) string {
	if !f.HasExample && f.StringExample != "" {
		return strconv.Quote(f.StringExample)
	}
	return num(f.Example)
}

// exampleRatio is how many times larger the new example is than the old,
// when that is a power of ten other than one.
func exampleRatio(o, n *Field) (float64, bool) {
	ov, ok1 := example(o)
	nv, ok2 := example(n)
	if !ok1 || !ok2 || ov == 0 {
		return 0, false
	}
	ratio := math.Abs(nv / ov)
	_, ok := powerOfTen(ratio)
	return ratio, ok
}

// decimalsGone reports that the values lost their decimal places: number
// -> integer, a pattern that no longer allows a decimal point, or a string
// example that no longer has one ("40.00" -> "4000").
func decimalsGone(o, n *Field) bool {
	if o.Type == "number" && n.Type == "integer" {
		return true
	}
	if o.Pattern != "" && n.Pattern != "" && hasDecimals(o.Pattern) && !hasDecimals(n.Pattern) {
		return true
	}
	return !o.HasExample && !n.HasExample && strings.Contains(o.StringExample, ".") &&
		n.StringExample != "" && !strings.Contains(n.StringExample, ".")
}

// hasDecimals reports whether a pattern allows a decimal point.
func hasDecimals(pattern string) bool { return strings.Contains(pattern, `\.`) }

func (m *meaning) enum(o, n *Field) {
	if o.Type == "boolean" && len(o.Enum) == 0 && len(n.Enum) > 0 {
		m.add("boolean -> enum [%s]", strings.Join(n.Enum, ", "))
		return
	}
	if pairs := renamedValues(o.Enum, n.Enum); len(pairs) > 0 {
		m.add("enum values renamed %s", strings.Join(pairs, ", "))
	}
}

// renamedValues pairs the values an enum lost with those it gained when the
// count stayed the same: a one-for-one rename, which old clients misread.
func renamedValues(old, new []string) []string {
	if len(old) == 0 || len(old) != len(new) {
		return nil
	}
	gone := slices.DeleteFunc(slices.Clone(old), func(v string) bool { return slices.Contains(new, v) })
	came := slices.DeleteFunc(slices.Clone(new), func(v string) bool { return slices.Contains(old, v) })
	if len(gone) == 0 || len(gone) != len(came) {
		return nil
	}
	pairs := make([]string, len(gone))
	for i := range gone {
		pairs[i] = gone[i] + " -> " + came[i]
	}
	return pairs
}

func (m *meaning) shape(o, n *Field) {
	flip := func(was, is bool, yes, no string) {
		if was != is {
			from, to := no, yes
			if was {
				from, to = yes, no
			}
			m.add("%s -> %s", from, to)
		}
	}
	flip(o.Array, n.Array, "array", "single value")
	flip(o.Map, n.Map, "map", "not a map")
	// Nullability has rules of its own (response-became-nullable,
	// request-became-not-nullable); here it would report the change twice.
}

// consequence says what goes wrong, in the direction the data flows: old
// clients read a response with the old meaning; in a request the server
// reads what old clients send with the new one.
func (m *meaning) consequence(dir Direction, o, n *Field, ou, nu unit) string {
	if m.growth == 0 || m.growth == 1 {
		return "clients built on the old definition misread the new values"
	}
	var out []string
	if dir == 0 || dir.Has(Response) {
		out = append(out, m.readsResponse(n, ou))
	}
	if dir.Has(Request) {
		out = append(out, m.readsRequest(o, ou, nu))
	}
	return strings.Join(out, "; ")
}

func (m *meaning) readsResponse(n *Field, ou unit) string {
	if nv, ok := example(n); ok && ou.Dim != "" {
		return fmt.Sprintf("old clients read %s as %s", num(nv), amount(ou, nv))
	}
	return "old clients read every value " + times(m.growth)
}

func (m *meaning) readsRequest(o *Field, ou, nu unit) string {
	ov, ok := example(o)
	switch {
	case ok && nu.Dim != "" && ou.Dim != "":
		return fmt.Sprintf("old clients send %s meaning %s, and the server now reads it as %s",
			num(ov), amount(ou, ov), amount(nu, ov))
	case ok && nu.Dim != "":
		return fmt.Sprintf("old clients send %s, and the server now reads it as %s", num(ov), amount(nu, ov))
	}
	return "the server now reads every value old clients send " + times(1/m.growth)
}

// times says how far off a value is read: "100 times too large".
func times(growth float64) string {
	if growth > 1 {
		return grouped(growth) + " times too large"
	}
	return grouped(1/growth) + " times too small"
}

// advice names the field to add: the old name with the new unit's suffix.
func advice(name string, nu unit, known bool) string {
	if known && nu.Suffix != "" && !strings.HasSuffix(name, "_"+nu.Suffix) {
		return fmt.Sprintf("add %s_%s and keep %s unchanged", name, nu.Suffix, name)
	}
	return fmt.Sprintf("add a field with a new name for the new meaning and keep %s unchanged", name)
}

// amount shows x in unit u the way a person reads it: $4,000 or 4,000 seconds.
func amount(u unit, x float64) string {
	if u.Symbol != "" {
		return u.Symbol + grouped(x)
	}
	return grouped(x) + " " + u.Name
}

func num(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// grouped writes x with thousands separators: 4000 -> 4,000.
func grouped(x float64) string {
	s := num(math.Abs(x))
	whole, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	if x < 0 {
		b.WriteByte('-')
	}
	for i, d := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(d)
	}
	if frac != "" {
		b.WriteString("." + frac)
	}
	return b.String()
}
