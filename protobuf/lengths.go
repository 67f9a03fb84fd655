package protobuf

import (
	"fmt"
	"math"

	"github.com/contractlint/contractlint/rules"
)

// A string's length is bounded in characters (min_len, max_len, len) or in
// UTF-8 bytes (min_bytes, max_bytes, len_bytes, and a bytes field's
// lengths). A character takes one to four bytes, so a bound in one unit
// implies one in the other: n characters are at least n and at most 4n
// bytes; n bytes are at most n and at least ceil(n/4) characters. Each
// unit is compared by what both sides imply in it, not by what each
// wrote, so a bound rewritten in the other unit (envoy's min_bytes: 1 as
// min_len: 1: both refuse the empty string, nothing else) is no change.

// lengthEnd is one end of a length bound in one unit: the bound a field's
// rules imply there, and the written rule it comes from, as messages show it.
type lengthEnd struct {
	limit *rules.Limit
	text  string
}

// lengthUnit is one end of a length bound in one unit: what a field's
// rules imply there, and the rule written in that unit.
type lengthUnit struct {
	implied func(Constraints) lengthEnd
	own     func(Constraints) *rules.Limit
}

// lengthAspects lists each end of a length bound, whether a larger value is
// the tighter bound there, and its units: characters first.
var lengthAspects = []struct {
	aspect        rules.Aspect
	largerTighter bool
	units         [2]lengthUnit
}{
	{rules.AspectMinLength, true, [2]lengthUnit{
		{minChars, func(c Constraints) *rules.Limit { return c.MinLen }},
		{minBytes, func(c Constraints) *rules.Limit { return c.MinBytes }}}},
	{rules.AspectMaxLength, false, [2]lengthUnit{
		{maxChars, func(c Constraints) *rules.Limit { return c.MaxLen }},
		{maxBytes, func(c Constraints) *rules.Limit { return c.MaxBytes }}}},
}

func minChars(c Constraints) lengthEnd {
	return tightest(true, written(c.MinLen, 1, false), written(c.MinBytes, 0.25, true))
}

func minBytes(c Constraints) lengthEnd {
	return tightest(true, written(c.MinBytes, 1, true), written(c.MinLen, 1, false))
}

func maxChars(c Constraints) lengthEnd {
	return tightest(false, written(c.MaxLen, 1, false), written(c.MaxBytes, 1, true))
}

func maxBytes(c Constraints) lengthEnd {
	return tightest(false, written(c.MaxBytes, 1, true), written(c.MaxLen, 4, false))
}

// written is a written bound scaled into another unit (rounded up: a
// quarter of 5 bytes is at least 2 characters), with its own text.
func written(l *rules.Limit, scale float64, inBytes bool) lengthEnd {
	if l == nil {
		return lengthEnd{}
	}
	text := fmt.Sprint(l.Value)
	if inBytes {
		text = byteCount(l.Value)
	}
	return lengthEnd{limit: &rules.Limit{Value: math.Ceil(l.Value * scale)}, text: text}
}

func byteCount(n float64) string {
	if n == 1 {
		return "1 byte"
	}
	return fmt.Sprint(n) + " bytes"
}

// tightest is the tighter of two bounds on one end; on a tie the first,
// the one written in the unit compared.
func tightest(largerTighter bool, a, b lengthEnd) lengthEnd {
	if a.limit == nil || b.limit != nil && tighterLength(largerTighter, a.limit, b.limit) > 0 {
		return b
	}
	return a
}

// tighterLength is 1 when n is a tighter bound than o on its end, -1 when
// looser, 0 when the same; no bound is the loosest.
func tighterLength(largerTighter bool, o, n *rules.Limit) int {
	switch {
	case o.String() == n.String():
		return 0
	case o == nil:
		return 1
	case n == nil:
		return -1
	case (n.Value > o.Value) == largerTighter:
		return 1
	}
	return -1
}

// lengths compares a field's length bounds in characters and in bytes.
// A unit is compared only when its written rules changed; a bytes change
// in the same sense as the characters' one is the same edit, not shown
// twice.
func (d *differ) lengths(s rules.Subject, of, nf *Field, ofa, nfa *rules.Field) {
	o, n := of.Validate, nf.Validate
	for _, la := range lengthAspects {
		sense := 0
		for _, u := range la.units {
			oe, ne := u.implied(o), u.implied(n)
			moved := tighterLength(la.largerTighter, oe.limit, ne.limit)
			if moved == 0 || moved == sense || u.own(o).String() == u.own(n).String() {
				continue
			}
			sense = moved
			d.add(rules.Change{Kind: rules.Modified, Subject: s, Aspect: la.aspect, Name: nf.Short, Path: nf.Name,
				Old: rules.Value{Text: oe.text, Limit: oe.limit}, New: rules.Value{Text: ne.text, Limit: ne.limit},
				OldLoc: of.Loc, NewLoc: nf.Loc, OldField: ofa, NewField: nfa})
		}
	}
}
