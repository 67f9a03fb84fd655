package protobuf

import (
	"fmt"
	"slices"
	"strings"

	"github.com/contractlint/contractlint/rules"
)

// movedAlone reports a field that was in no oneof and now is the only
// member of a oneof the old message did not have: a oneof of one field
// encodes, in binary and JSON, as the field with presence always did.
func movedAlone(om, nm *Message, of, nf *Field) bool {
	if of.Oneof != "" || nf.Oneof == "" {
		return false
	}
	members := 0
	for _, f := range nm.Fields {
		if f.Oneof == nf.Oneof {
			members++
		}
	}
	return members == 1 && !slices.ContainsFunc(om.Fields, func(f *Field) bool { return f.Oneof == nf.Oneof })
}

// wireSame marks the changes of aspect a added since index start as
// leaving both encodings as they were.
func (d *differ) wireSame(start int, a rules.Aspect) {
	for i := start; i < len(d.out); i++ {
		if d.out[i].Aspect == a {
			d.out[i].Proto.WireSame = true
		}
	}
}

// wireShape is the encoding of a message field's type (rules.Field.Shape):
// for each field in number order, its number, cardinality, JSON name and
// kind (the scalar's own: stricter than its wire group), and a nested message's own shape; a message met again on
// the way down is named by how far up it is. "" when x is not a message
// field or its message is not in the tree.
func wireShape(t *Tree, x *rules.Field) string {
	if x.Format != "message" || t.Messages[x.Type] == nil {
		return ""
	}
	var b strings.Builder
	shapeOf(t, x.Type, nil, &b)
	return b.String()
}

func shapeOf(t *Tree, name string, path []string, b *strings.Builder) {
	if i := slices.Index(path, name); i >= 0 {
		fmt.Fprintf(b, "^%d", len(path)-i)
		return
	}
	m := t.Messages[name]
	if m == nil {
		b.WriteString(name) // outside the tree: only its name is known
		return
	}
	path = append(path, name)
	b.WriteString("{")
	for _, f := range m.Fields {
		kind, typ := f.Kind, f.Type
		if f.Card == CardMap {
			kind, typ = f.MapKind, f.MapValue
			fmt.Fprintf(b, "%d:map<%s>", f.Number, f.MapKey)
		} else {
			fmt.Fprintf(b, "%d:%s", f.Number, f.Card)
		}
		fmt.Fprintf(b, ":%s:", f.JSONName)
		switch kind {
		case "message", "group":
			b.WriteString(kind)
			shapeOf(t, typ, path, b)
		case "enum":
			b.WriteString("enum")
			if e := t.Enums[typ]; e != nil {
				for _, v := range e.Values {
					fmt.Fprintf(b, ",%s=%d", v.Short, v.Number)
				}
			} else {
				b.WriteString(typ)
			}
		default:
			b.WriteString(kind)
		}
		b.WriteString(";")
	}
	b.WriteString("}")
}
