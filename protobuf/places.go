package protobuf

import (
	"strings"

	"github.com/bufbuild/protocompile/ast"
	"github.com/bufbuild/protocompile/linker"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/contractlint/contractlint/rules"
)

// places tells where a compiled file writes its declarations, and the
// comments protoc attaches to them, from the file's syntax tree, which the
// compiler keeps for the lowering (RetainASTs). protocompile could record
// the same as SourceCodeInfo, but that is a location for every token-level
// part of every declaration and option, then an index over them: on
// googleapis a quarter of the compile's CPU and allocation, for the few
// positions and comments a lowering reads. TestPlacesMatchSourceInfo holds
// every answer here to the SourceCodeInfo protocompile generates.
type places struct {
	res  linker.Result // nil when the file has no syntax tree
	ast  *ast.FileNode
	file string // display name
}

func newPlaces(fd linker.File, file string) *places {
	p := &places{file: file}
	if res, ok := fd.(linker.Result); ok && res.AST() != nil {
		p.res, p.ast = res, res.AST()
	}
	return p
}

// node is d's declaration, nil when the source has none of its own: a
// standard import, a map entry with its key and value, the oneof of a
// proto3 optional field (none has a location in SourceCodeInfo either).
func (p *places) node(d protoreflect.Descriptor) ast.Node {
	if p.ast == nil || synthetic(d) {
		return nil
	}
	m, ok := d.(interface{ AsProto() proto.Message })
	if !ok {
		return nil
	}
	n := p.res.Node(m.AsProto())
	if _, none := n.(*ast.NoSourceNode); none {
		return nil
	}
	return n
}

func synthetic(d protoreflect.Descriptor) bool {
	switch d := d.(type) {
	case protoreflect.MessageDescriptor:
		return d.IsMapEntry()
	case protoreflect.FieldDescriptor:
		return !d.IsExtension() && d.ContainingMessage().IsMapEntry()
	case protoreflect.OneofDescriptor:
		return d.IsSynthetic()
	}
	return false
}

// at is where n starts: the file alone when n is nil.
func (p *places) at(n ast.Node) rules.Location {
	if n == nil || p.ast == nil {
		return rules.Location{File: p.file}
	}
	pos := p.ast.NodeInfo(n).Start()
	return rules.Location{File: p.file, Line: pos.Line, Column: pos.Col}
}

// elem is where d is declared and its leading comment. A group field's
// comment is its message's, and a map entry has none (as in protoc).
func (p *places) elem(d protoreflect.Descriptor) (rules.Location, string) {
	n := p.node(d)
	if n == nil {
		return p.at(nil), ""
	}
	if _, group := n.(*ast.GroupNode); group {
		return p.at(n), ""
	}
	return p.at(n), strings.TrimSpace(p.leading(n))
}

// trailing is the comment after field fd, on its line or just below.
func (p *places) trailing(fd protoreflect.FieldDescriptor) string {
	n := p.node(fd)
	if n == nil {
		return ""
	}
	if _, group := n.(*ast.GroupNode); group {
		return ""
	}
	tok := n.End()
	next, ok := p.ast.Tokens().Next(tok)
	if !ok {
		return ""
	}
	trail, _ := split(p.ast.TokenInfo(tok), p.ast.TokenInfo(next))
	return strings.TrimSpace(p.text(trail))
}

// filePart is where the file's package, syntax or edition statement is.
func (p *places) filePart(part string) rules.Location {
	if p.ast == nil {
		return p.at(nil)
	}
	switch part {
	case "syntax":
		if p.ast.Syntax != nil {
			return p.at(p.ast.Syntax)
		}
	case "edition":
		if p.ast.Edition != nil {
			return p.at(p.ast.Edition)
		}
	case "package":
		for _, d := range p.ast.Decls {
			if pkg, ok := d.(*ast.PackageNode); ok {
				return p.at(pkg)
			}
		}
	}
	return p.at(nil)
}

// optionOwner is a declaration whose body can hold option statements.
type optionOwner interface {
	RangeOptions(func(*ast.OptionNode) bool)
}

// option is where the option statement named name (as written, e.g.
// "features.json_format") sits in d's body, or the file's when d is nil;
// ok is false when there is none. An option set inside an aggregate value
// is not found, as SourceCodeInfo gives it no location of its own.
func (p *places) option(d protoreflect.Descriptor, name string) (loc rules.Location, ok bool) {
	var owner optionOwner
	if d == nil {
		if p.ast != nil {
			owner = p.ast
		}
	} else if n, is := p.node(d).(optionOwner); is {
		owner = n
	}
	if owner == nil {
		return rules.Location{}, false
	}
	owner.RangeOptions(func(o *ast.OptionNode) bool {
		if optionName(o) == name {
			loc, ok = p.at(o), true
		}
		return !ok
	})
	return loc, ok
}

func optionName(o *ast.OptionNode) string {
	if o.Name == nil {
		return ""
	}
	var b strings.Builder
	for i, part := range o.Name.Parts {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(part.Value())
	}
	return b.String()
}

// reserved lists where d's reserved ranges and reserved names are written,
// in declaration order. Names written as identifiers (editions) have no
// location in SourceCodeInfo, so none here.
func (p *places) reserved(d protoreflect.Descriptor) (ranges, names []rules.Location) {
	var rs []*ast.ReservedNode
	switch n := p.node(d).(type) {
	case *ast.MessageNode:
		rs = reservedIn(n.Decls)
	case *ast.SyntheticGroupMessageNode:
		rs = reservedIn(n.Decls)
	case *ast.EnumNode:
		rs = reservedIn(n.Decls)
	}
	for _, r := range rs {
		for _, rr := range r.Ranges {
			ranges = append(ranges, p.at(rr))
		}
		for _, rn := range r.Names {
			names = append(names, p.at(rn))
		}
	}
	return ranges, names
}

func reservedIn[T ast.Node](decls []T) []*ast.ReservedNode {
	var out []*ast.ReservedNode
	for _, d := range decls {
		if r, ok := any(d).(*ast.ReservedNode); ok {
			out = append(out, r)
		}
	}
	return out
}

// leading is the comment protoc records as leading n: the last group of
// comments before n's first token that touches it, unless it belongs to
// the token before.
func (p *places) leading(n ast.Node) string {
	tok := n.Start()
	var prev ast.NodeInfo
	if t, ok := p.ast.Tokens().Previous(tok); ok {
		prev = p.ast.TokenInfo(t)
	}
	_, lead := split(prev, p.ast.TokenInfo(tok))
	return p.text(lead)
}

// split shares the comments between two adjacent tokens as protoc does
// (descriptor.proto, SourceCodeInfo.Location): those trailing prev, and
// those leading next; the others are detached and neither's. prev is the
// zero NodeInfo at the start of the file.
func split(prev, next ast.NodeInfo) (trail, lead []ast.Comment) {
	groups := commentGroups(next.LeadingComments())
	if prev.IsValid() {
		trail = all(prev.TrailingComments())
		if len(trail) == 0 {
			trail, groups = donate(prev, next, groups)
		}
	}
	return trail, attach(prev, next, len(trail) > 0, groups)
}

// donate gives the first group before next to prev, as its trailing
// comment, when it starts on prev's line or the line after and either more
// groups follow, a blank line parts it from next, or next is a closing
// symbol (unless the group runs from prev's line to next's: ambiguous).
func donate(prev, next ast.NodeInfo, groups [][]ast.Comment) (trail []ast.Comment, rest [][]ast.Comment) {
	if len(groups) == 0 {
		return nil, nil
	}
	g := groups[0]
	first, last := g[0], g[len(g)-1]
	switch {
	case first.Start().Line > prev.End().Line+1:
		return nil, groups
	case len(groups) > 1:
		return g, groups[1:]
	case last.End().Line < next.Start().Line-1:
		return g, nil
	}
	txt := next.RawText()
	if txt != "" && (len(txt) != 1 || !strings.ContainsAny(txt, "}]),;")) {
		return nil, groups
	}
	if txt != "" && first.Start().Line == prev.End().Line && last.End().Line == next.Start().Line {
		return nil, groups
	}
	return g, nil
}

// attach picks the group that leads next: the last one, when it ends on
// next's line or the line before, and is not a lone group spanning from
// prev's line to next's.
func attach(prev, next ast.NodeInfo, hasTrail bool, groups [][]ast.Comment) []ast.Comment {
	if len(groups) == 0 {
		return nil
	}
	if len(groups) == 1 && !hasTrail && prev.IsValid() {
		g := groups[0]
		if g[0].Start().Line == prev.End().Line && g[len(g)-1].End().Line == next.Start().Line {
			return nil
		}
	}
	last := groups[len(groups)-1]
	if last[len(last)-1].End().Line >= next.Start().Line-1 {
		return last
	}
	return nil
}

// commentGroups splits comments into protoc's groups: runs of line
// comments on consecutive lines; each block comment is a group of its own.
func commentGroups(cs ast.Comments) [][]ast.Comment {
	var groups [][]ast.Comment
	var cur []ast.Comment
	for i := range cs.Len() {
		c := cs.Index(i)
		if len(cur) > 0 {
			prev := cur[len(cur)-1]
			if !isLineComment(c) || !isLineComment(prev) || c.Start().Line > prev.End().Line+1 {
				groups, cur = append(groups, cur), nil
			}
		}
		cur = append(cur, c)
	}
	if len(cur) > 0 {
		groups = append(groups, cur)
	}
	return groups
}

func all(cs ast.Comments) []ast.Comment {
	out := make([]ast.Comment, cs.Len())
	for i := range out {
		out[i] = cs.Index(i)
	}
	return out
}

func isLineComment(c ast.Comment) bool { return strings.HasPrefix(c.RawText(), "//") }

// text joins a group as protoc does: a line comment without its "//", a
// block comment without "/*", "*/" and, on its later lines, the indent and
// one leading '*'.
func (p *places) text(g []ast.Comment) string {
	var b strings.Builder
	for _, c := range g {
		txt := c.RawText()
		if isLineComment(c) {
			b.WriteString(txt[2:])
			// The newline ending a line comment is not in its text.
			if next, ok := p.ast.Items().Next(c.AsItem()); ok && strings.HasPrefix(p.ast.ItemInfo(next).LeadingWhitespace(), "\n") {
				b.WriteByte('\n')
			}
			continue
		}
		for i, line := range strings.Split(txt[2:len(txt)-2], "\n") {
			if i > 0 {
				b.WriteByte('\n')
				line = strings.TrimLeft(line, " \t")
				line = strings.TrimPrefix(line, "*")
			}
			b.WriteString(line)
		}
	}
	return b.String()
}
