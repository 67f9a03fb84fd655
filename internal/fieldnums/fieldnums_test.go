package fieldnums

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

const dep = `syntax = "proto3";
package acme.common;
import public "acme/more.proto";
message Money { int64 units = 1; }
enum Status { S_UNKNOWN = 0; }
service Svc {}
`

const more = `syntax = "proto3";
package acme.more;
message Extra { message Deep {} }
`

const shop = `// shop
syntax = "proto2";

package acme.shop.v1;

import "acme/common.proto";

/* a block comment
   message Fake { optional int32 fake = 9; }
*/
message Order {
  message Line { optional int64 qty = 1; optional Status s = 2; }
  optional Line line = 1;
  optional common.Money total = 2;
  map<string, Line> lines = 3;
  oneof pay { string card = 4; common.Status st = 5; }
  optional group Note = 6 { optional string text = 1; }
  optional .acme.common.Money paid = 7;
  optional acme.more.Extra.Deep deep = 8;
  extend Order { optional int32 ext = 100; }
  extensions 100 to 200;
}

enum Status { UNKNOWN = 0; }

message Refund { optional Order.Line line = 1; optional Order order = 2; optional Svc svc_name = 3; }
`

type deps struct{ texts map[string]string }

func (d *deps) Lookup(path string) (*Symbols, error) {
	text, ok := d.texts[path]
	if !ok {
		return nil, errors.New("not found: " + path)
	}
	f, err := Parse(path, []byte(text))
	if err != nil {
		return nil, err
	}
	return f.Symbols(), nil
}

var testDeps = &deps{map[string]string{"acme/common.proto": dep, "acme/more.proto": more}}

// TestUses: types resolve as the linker resolves them: nested first, then
// the package outwards, the import's public import too; a group is a field
// and a message; an extension is no field; a commented-out message is not
// read; a name that is not a type fails the version.
func TestUses(t *testing.T) {
	f, err := Parse("shop.proto", []byte(shop))
	if err != nil {
		t.Fatal(err)
	}
	got, ok := f.Uses(testDeps)
	if ok {
		t.Fatalf("Svc, a service, resolved as a field's type: %v", got)
	}
	f, err = Parse("shop.proto", []byte(strings.Replace(shop, " optional Svc svc_name = 3;", "", 1)))
	if err != nil {
		t.Fatal(err)
	}
	got, ok = f.Uses(testDeps)
	if !ok {
		t.Fatal("the version did not resolve")
	}
	o, l := "acme.shop.v1.Order", "acme.shop.v1.Order.Line"
	want := []Use{
		{o, 1, "line", l}, {o, 2, "total", "acme.common.Money"}, {o, 3, "lines", l},
		{o, 4, "card", "string"}, {o, 5, "st", "acme.common.Status"}, {o, 6, "note", "acme.shop.v1.Order.Note"},
		{o, 7, "paid", "acme.common.Money"}, {o, 8, "deep", "acme.more.Extra.Deep"},
		{l, 1, "qty", "int64"}, {l, 2, "s", "acme.shop.v1.Status"},
		{"acme.shop.v1.Order.Note", 1, "text", "string"},
		{"acme.shop.v1.Refund", 1, "line", l}, {"acme.shop.v1.Refund", 2, "order", o},
	}
	if d := gocmp.Diff(want, got); d != "" {
		t.Errorf("uses (-want +got):\n%s", d)
	}
}

// TestNextIsParse: after random edits of whole lines (fields, messages,
// braces, comment openers and closers, header lines), Next from the
// version before reads exactly what Parse of the new text reads, and fails
// to read what Parse fails to read.
func TestNextIsParse(t *testing.T) {
	pool := []string{
		"  optional int32 added = 40;", "message New { optional string n = 1; }", "}", "message Open {",
		"/* opens", "closes */", "// a comment", "", "  optional Order.Line l2 = 41;", "enum Status2 { A = 0; }",
		"import \"acme/more.proto\";", "  optional Status2 s2 = 42;", "message Order2 { optional Extra e = 1; }",
		"package acme.shop.v2;", "  message Line { optional int32 q = 1; }", "\"unterminated", "*/ message After {}",
	}
	start := []byte(strings.Replace(shop, " optional Svc svc_name = 3;", "", 1))
	parsed, spliced := editsAgree(t, rand.New(rand.NewPCG(7, 11)), start, pool, 3000, func(f, got *File, _, _ []byte) bool {
		return len(f.decls) > 0 && len(got.decls) > 0 && f.decls[0] == got.decls[0] // read in part, not whole
	})
	if parsed < 300 || spliced < parsed/4 {
		t.Errorf("only %d of the edits parsed, %d of them read in part", parsed, spliced)
	}
	t.Logf("%d edits parsed, %d read in part", parsed, spliced)
}

// nestedShop declares messages, enums and services inside one another, a
// service and groups, oneofs and extensions among them.
const nestedShop = `syntax = "proto2";

package acme.shop.v1;

import "acme/common.proto";

message Order {
  // the line
  message Line {
    optional int64 qty = 1;
    message Deeper {
      optional int32 d = 1;
      enum Mode {
        MODE_A = 0;
        MODE_B = 1;
      }
      optional Mode mode = 2;
    }
    optional Deeper deeper = 2;
  }
  optional Line line = 1;
  oneof pay {
    string card = 4;
    common.Status st = 5;
  }
  optional group Note = 6 {
    optional string text = 1;
  }
  enum Kind {
    KIND_A = 0;
    KIND_B = 1;
  }
  optional Kind kind = 7;
  extend Order { optional int32 ext = 100; }
  extensions 100 to 200;
  optional common.Money total = 8;
}

service Shop {
  rpc Get(Order) returns (Order);
  rpc Put(Order) returns (Order) {
    option deprecated = true;
  }
}

enum Status {
  UNKNOWN = 0;
  KNOWN = 1;
}

message Refund {
  optional Order.Line line = 1;
  message Reason { optional string why = 1; }
  optional Reason reason = 2;
}
`

// TestNextNestedIsParse: random edits of lines inside messages, enums and
// services nested in one another are read inside the body they fall in
// (most of them), and what Next reads is exactly what Parse of the new
// text reads.
func TestNextNestedIsParse(t *testing.T) {
	pool := []string{
		"    optional int32 added = 40;", "  message Inner { optional int32 i = 1; }", "  enum E2 { E2_A = 0; }",
		"  oneof o { int32 oa = 51; }", "}", "  message Open {", "/* opens", "closes */", "// a comment", "",
		"  rpc Do(Order) returns (Order);", "    VALUE_X = 3;", "  optional group G = 52 { optional int32 g = 1; }",
		"  reserved 60 to 70;", "  option deprecated = true;", "  map<string, Order> m = 53;",
		"  extend Order { optional int32 ext2 = 101; }", "  optional Order.Line.Deeper d = 54;", "  enum Open2 {",
		"    optional Line.Deeper.Mode mm = 55;", "  optional int32 broken = ;", "  }", "    message Deep2 {",
		"  optional Refund.Reason r = 56;", "message Top { optional int32 t = 1; }", "  rpc Stream(stream Order) returns (Order) {",
		"  optional int32 two = 57; optional int32 three = 58;", "  optional int32 split =", "    59;",
	}
	parsed, nested := editsAgree(t, rand.New(rand.NewPCG(3, 5)), []byte(nestedShop), pool, 4000, func(f, _ *File, cur, next []byte) bool {
		return slices.ContainsFunc(f.hunks(f.cut(cur, next), cur, next, true), func(c cut) bool { return c.depth > 0 })
	})
	if parsed < 300 || nested < parsed/5 {
		t.Errorf("only %d of the edits parsed, %d of them read inside a body", parsed, nested)
	}
	t.Logf("%d edits parsed, %d read inside a body", parsed, nested)
}

func equalLayout(a, b *File) bool {
	if a.Package != b.Package || len(a.decls) != len(b.decls) || !gocmp.Equal(a.safe, b.safe) || !gocmp.Equal(a.Imports, b.Imports) {
		return false
	}
	all := gocmp.Options{gocmp.AllowUnexported(symbol{}, scope{}, elem{}, leaf{}, message{}, field{}), cmpopts.EquateEmpty(),
		cmpopts.IgnoreFields(message{}, "resolved")}
	for i := range a.decls {
		x, y := a.decls[i], b.decls[i]
		if x.start != y.start || x.end != y.end || x.header != y.header || !gocmp.Equal(x.declared, y.declared, all) ||
			!gocmp.Equal(x.scope, y.scope, all) || !gocmp.Equal(x.msgs, y.msgs, all) {
			return false
		}
	}
	return gocmp.Equal(a.syms.kinds, b.syms.kinds)
}

// TestNextDeclarationAboveSyntax: a declaration written above the syntax
// line (with or without a blank line between) makes a version that does
// not parse, whole or read from the one before.
func TestNextDeclarationAboveSyntax(t *testing.T) {
	old := "syntax = \"proto3\";\n\nmessage A { int32 a = 1; }\n"
	f, err := Parse("a.proto", []byte(old))
	if err != nil {
		t.Fatal(err)
	}
	for _, next := range []string{"message B {}\n" + old, "message B {}\n\n" + old, "\n" + old, "// c\n" + old} {
		_, werr := Parse("a.proto", []byte(next))
		_, gerr := f.Next("a.proto", []byte(old), []byte(next))
		if (werr == nil) != (gerr == nil) {
			t.Errorf("Parse error %v, Next error %v, of:\n%s", werr, gerr, next)
		}
	}
}
func layoutDiff(a, b *File) string {
	all := gocmp.Options{gocmp.AllowUnexported(symbol{}, scope{}, elem{}, leaf{}, message{}, field{}), cmpopts.EquateEmpty(),
		cmpopts.IgnoreFields(message{}, "resolved")}
	out := ""
	if !gocmp.Equal(a.safe, b.safe) {
		out += fmt.Sprintf("safe: %v\n vs  %v\n", a.safe, b.safe)
	}
	if len(a.decls) != len(b.decls) {
		return out + "decl count"
	}
	for i := range a.decls {
		x, y := a.decls[i], b.decls[i]
		if x.start != y.start || x.end != y.end {
			out += fmt.Sprintf("decl %d lines %d-%d vs %d-%d\n", i, x.start, x.end, y.start, y.end)
		}
		if d := gocmp.Diff(x.scope, y.scope, all); d != "" {
			out += fmt.Sprintf("decl %d scope %s\n", i, d)
		}
		if d := gocmp.Diff(x.msgs, y.msgs, all); d != "" {
			out += fmt.Sprintf("decl %d msgs %s\n", i, d)
		}
	}
	return out
}

// fixedDeps answers with symbols read once, so that two of them holding
// the same texts answer with the same symbols.
type fixedDeps struct{ files map[string]*Symbols }

func (d *fixedDeps) Lookup(path string) (*Symbols, error) {
	if s, ok := d.files[path]; ok {
		return s, nil
	}
	return nil, errors.New("not found: " + path)
}

// TestUsesAcrossImports: a version's uses are resolved again when its
// imports change (a type gone, or a name that now means another kind),
// and kept when other imports answer with the same files: always what a
// fresh read of the version resolves.
func TestUsesAcrossImports(t *testing.T) {
	symbolsOf := func(name, text string) *Symbols {
		f, err := Parse(name, []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		return f.Symbols()
	}
	m := symbolsOf("acme/more.proto", more)
	deps := func(common *Symbols) *fixedDeps {
		return &fixedDeps{map[string]*Symbols{"acme/common.proto": common, "acme/more.proto": m}}
	}
	full := deps(symbolsOf("acme/common.proto", dep))
	same := deps(full.files["acme/common.proto"])
	gone := deps(symbolsOf("acme/common.proto", strings.Replace(dep, "message Money", "message Coin", 1)))
	kind := deps(symbolsOf("acme/common.proto", strings.Replace(dep, "enum Status { S_UNKNOWN = 0; }", "message Status {}", 1)))
	text := []byte(strings.Replace(shop, " optional Svc svc_name = 3;", "", 1))
	f, err := Parse("shop.proto", text)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		deps Deps
		ok   bool
	}{{"full", full, true}, {"same files", same, true}, {"Money gone", gone, false}, {"full again", full, true},
		{"Status a message", kind, true}, {"same files again", same, true}} {
		got, ok := f.Uses(c.deps)
		fresh, _ := Parse("shop.proto", text)
		want, wok := fresh.Uses(c.deps)
		if ok != c.ok || wok != c.ok {
			t.Errorf("%s: resolved %v (a fresh read %v), want %v", c.name, ok, wok, c.ok)
		}
		if d := gocmp.Diff(want, got); d != "" {
			t.Errorf("%s: uses differ from a fresh read (-fresh +kept):\n%s", c.name, d)
		}
	}
}

// editsAgree makes n random edits (see edit) from start, each read by Next
// from the last version that parsed and by Parse, and fails on the first
// they read otherwise. It returns how many edits parsed, and of how many of
// those mark said true (given the version Next read from, its result, and
// the two texts); a version grown past 6,000 bytes starts over.
func editsAgree(t *testing.T, rnd *rand.Rand, start []byte, pool []string, n int, mark func(f, got *File, cur, next []byte) bool) (parsed, marked int) {
	t.Helper()
	cur := start
	f, err := Parse("shop.proto", cur)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		next := edit(rnd, cur, pool)
		want, werr := Parse("shop.proto", next)
		got, gerr := f.Next("shop.proto", cur, next)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("edit %d: Parse error %v, Next error %v, of:\n%s\nfrom:\n%s\ncuts %+v", i, werr, gerr, next, cur, f.hunks(f.cut(cur, next), cur, next, true))
		}
		if werr != nil {
			continue // keep the version that parses
		}
		parsed++
		if mark(f, got, cur, next) {
			marked++
		}
		wu, wok := want.Uses(testDeps)
		gu, gok := got.Uses(testDeps)
		if d := gocmp.Diff(wu, gu); d != "" || wok != gok || !equalLayout(want, got) {
			t.Fatalf("edit %d: Next differs from Parse (-parse +next):\n%s\n%s\nof:\n%s", i, d, layoutDiff(want, got), next)
		}
		f, cur = got, next
		if len(cur) > 6000 {
			cur = start
			f, _ = Parse("shop.proto", cur)
		}
	}
	return parsed, marked
}

// edit is cur with one to three of its lines inserted, removed or replaced,
// each new line drawn from pool.
func edit(rnd *rand.Rand, cur []byte, pool []string) []byte {
	lines := strings.Split(string(cur), "\n")
	for range 1 + rnd.IntN(3) {
		k := rnd.IntN(len(lines))
		switch rnd.IntN(3) {
		case 0:
			lines = append(lines[:k], append([]string{pool[rnd.IntN(len(pool))]}, lines[k:]...)...)
		case 1:
			if len(lines) > 1 {
				lines = append(lines[:k], lines[k+1:]...)
			}
		default:
			lines[k] = pool[rnd.IntN(len(pool))]
		}
	}
	return []byte(strings.Join(lines, "\n"))
}
