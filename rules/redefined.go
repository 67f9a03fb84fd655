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
		Pack:     "evolution",
		Formats:  OpenAPI | Proto,
		Mode:     DiffRule,
		Severity: Error,
		Title:    "A field keeps its name but changes its meaning",
		Doc: "A field that keeps its name (proto: its number) while its type, format, unit, scale, " +
			"enum values, array-ness or nullability change is read by every existing client with " +
			"the old meaning. Nothing fails to parse: a price of 40.00 dollars that becomes 4000 " +
			"cents is shown as $4,000 by last year's app. Units are read from x-unit/x-units, " +
			"multipleOf, unit words in the description and examples that grow by a power of ten. " +
			"Add a new field with the new meaning next to the old one (expand), move clients over, " +
			"and remove the old field only once nobody reads it (contract).",
		Bad: "# old\nprice: {type: number, description: Price in dollars, example: 40.00}\n" +
			"# new\nprice: {type: integer, description: Price in cents, example: 4000}",
		Good: "# new\nprice: {type: number, description: Price in dollars, example: 40.00}\n" +
			"price_cents: {type: integer, description: Price in cents, example: 4000}",
		Supersedes: []string{
			"response-property-type-changed", "request-property-type-changed",
			"response-property-format-changed", "request-property-format-changed",
		},
	}
	r.Check = func(in *Input) []Finding {
		var out []Finding
		for i := range in.Changes {
			c := &in.Changes[i]
			// An Aspect names one narrow change (required-ness) that other
			// rules own; the meaning change is the Change without one.
			if c.Subject != SubjectField || c.Kind != Modified || c.Aspect != "" || c.OldField == nil || c.NewField == nil {
				continue
			}
			if msg, sev, ok := redefined(c); ok {
				f := c.Finding(r, msg)
				f.Severity = sev
				out = append(out, f)
			}
		}
		return out
	}
	return r
}

// redefined dispatches on the format: each format knows what meaning is.
func redefined(c *Change) (string, Severity, bool) {
	if c.Format == Proto {
		return redefinedProto(c)
	}
	msg, ok := redefinedOpenAPI(c)
	return msg, Error, ok
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
	var m meaning
	if o.Type != "" && n.Type != "" && o.Type != n.Type {
		m.add("type %s -> %s", o.Type, n.Type)
	}
	if o.Format != "" && n.Format != "" && o.Format != n.Format {
		m.add("format %s -> %s", o.Format, n.Format)
	}
	ou, oKnown := fieldUnit(o)
	nu, nKnown := fieldUnit(n)
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
	m.example(o, n, !sameUnit)
	m.enum(o, n)
	m.shape(o, n)
	if len(m.parts) == 0 {
		return "", false
	}
	name := cmp.Or(c.Name, o.Name)
	return fmt.Sprintf("%s: %s: %s; %s", name, strings.Join(m.parts, ", "),
		m.consequence(ou, n), advice(name, nu, nKnown)), true
}

// example counts an example whose magnitude moved by a power of ten, but only
// in the direction the unit, the scale or a number -> integer change implies:
// examples are otherwise free to change.
func (m *meaning) example(o, n *Field, unitMayMove bool) {
	if !unitMayMove || !o.HasExample || !n.HasExample || o.Example == 0 || m.growth != 0 {
		return
	}
	ratio := math.Abs(n.Example / o.Example)
	k, ok := powerOfTen(ratio)
	if !ok {
		return
	}
	decimalsGone := o.Type == "number" && n.Type == "integer"
	if len(m.parts) > 0 && decimalsGone && k > 0 {
		m.add("example %s -> %s", num(o.Example), num(n.Example))
		m.growth = ratio
	}
}

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

// consequence says what an old client does with a new value.
func (m *meaning) consequence(old unit, n *Field) string {
	if m.growth == 0 || m.growth == 1 {
		return "clients built on the old definition misread the new values"
	}
	if n.HasExample && old.Dim != "" {
		return fmt.Sprintf("old clients read %s as %s", num(n.Example), amount(old, n.Example))
	}
	if m.growth > 1 {
		return fmt.Sprintf("old clients read every value %s times too large", grouped(m.growth))
	}
	return fmt.Sprintf("old clients read every value %s times too small", grouped(1/m.growth))
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
