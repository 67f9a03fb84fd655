package protobuf

import (
	"slices"
	"strings"

	"github.com/contractlint/contractlint/rules"
)

// reacher answers which rpcs reach a message or enum, and in which
// direction, by walking back from it to the rpcs whose input or output
// contains it. The back edges are built on the first question, so a tree
// with no changes pays nothing; answers are memoised per type, and the walk
// marks what it has seen, so cycles terminate.
type reacher struct {
	t *Tree
	// holders lists, per type full name, the messages that hold it in a
	// field (extensions count for the message they extend).
	holders map[string][]string
	// roots lists, per message, the rpcs it is the input or output of.
	roots map[string][]root
	// owner maps an extension's or enum value's full name to the type it
	// belongs to: neither is named below that type.
	owner map[string]string
	memo  map[string]reach
}

type root struct {
	rpc string
	dir rules.Direction
}

// reach is what a type is reached by: rpcs (sorted) and directions.
type reach struct {
	ops []string
	dir rules.Direction
}

func newReacher(t *Tree) *reacher { return &reacher{t: t} }

func (r *reacher) build() {
	r.holders, r.roots, r.owner, r.memo = map[string][]string{}, map[string][]root{}, map[string]string{}, map[string]reach{}
	hold := func(f *Field, holder string) {
		typ := f.Type
		if f.Card == CardMap {
			typ = f.MapValue
		}
		switch f.Kind {
		case "message", "group", "enum":
			r.holders[typ] = append(r.holders[typ], holder)
		}
	}
	for _, m := range r.t.Messages {
		for _, f := range m.Fields {
			hold(f, m.Name)
		}
	}
	for _, x := range r.t.Extensions {
		hold(x, x.Extendee)
		r.owner[x.Name] = x.Extendee
	}
	for _, e := range r.t.Enums {
		for _, v := range e.Values {
			r.owner[v.Name] = e.Name
		}
	}
	for _, s := range r.t.Services {
		for _, rpc := range s.RPCs {
			r.roots[rpc.Input] = append(r.roots[rpc.Input], root{rpc.Name, rules.Request})
			r.roots[rpc.Output] = append(r.roots[rpc.Output], root{rpc.Name, rules.Response})
		}
	}
}

// of returns the rpcs that reach the type named typ.
func (r *reacher) of(typ string) reach {
	if r.memo == nil {
		r.build()
	}
	if got, ok := r.memo[typ]; ok {
		return got
	}
	var out reach
	seen := map[string]bool{typ: true}
	queue := []string{typ}
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		for _, ro := range r.roots[name] {
			out.ops = append(out.ops, ro.rpc)
			out.dir |= ro.dir
		}
		for _, h := range r.holders[name] {
			if !seen[h] {
				seen[h] = true
				queue = append(queue, h)
			}
		}
	}
	slices.Sort(out.ops)
	out.ops = slices.Compact(out.ops)
	r.memo[typ] = out
	return out
}

// typeOf names the message or enum whose reach a change has, or "" for
// changes outside any type (files, services, rpcs).
func (r *reacher) typeOf(c *rules.Change) string {
	switch c.Subject {
	case rules.SubjectMessage, rules.SubjectEnum, rules.SubjectReserved:
		return c.Path
	case rules.SubjectField, rules.SubjectOneof, rules.SubjectEnumValue, rules.SubjectExtension:
		if r.memo == nil {
			r.build()
		}
		if o, ok := r.owner[c.Path]; ok {
			return o
		}
		if i := strings.LastIndexByte(c.Path, '.'); i > 0 {
			return c.Path[:i]
		}
	}
	return ""
}

// setReach fills Dir and Operations of the changes inside messages and
// enums: from the old tree for a removal, the new one for an addition, and
// both for a modification. A type no rpc reaches may still be used by
// other contracts, so it counts for both directions. Changes in one type
// share its memoised (read-only) list of rpcs.
func setReach(changes []rules.Change, old, new *reacher) {
	for i := range changes {
		c := &changes[i]
		if c.Operations != nil || c.Dir != 0 {
			continue
		}
		var r reach
		var typed bool
		if c.Kind != rules.Added {
			if typ := old.typeOf(c); typ != "" {
				r, typed = old.of(typ), true
			}
		}
		if c.Kind != rules.Removed {
			if typ := new.typeOf(c); typ != "" {
				n := new.of(typ)
				if typed && !slices.Equal(r.ops, n.ops) {
					n.ops = slices.Compact(slices.Sorted(slices.Values(slices.Concat(r.ops, n.ops))))
				}
				r.dir |= n.dir
				r.ops, typed = n.ops, true
			}
		}
		if !typed {
			continue
		}
		if r.dir == 0 {
			r.dir = rules.Request | rules.Response
		}
		c.Dir, c.Operations = r.dir, r.ops
	}
}
