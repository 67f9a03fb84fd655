package rules_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contractlint/contractlint/rules"
)

var updateDocs = flag.Bool("update", false, "rewrite docs/buf-mapping.md from the registry")

// bufRules is every rule of buf breaking (v1.75, config v2); each must be
// covered by a contractlint rule.
var bufRules = strings.Fields(`
EXTENSION_NO_DELETE SERVICE_NO_DELETE ENUM_NO_DELETE FILE_NO_DELETE MESSAGE_NO_DELETE
ENUM_SAME_TYPE FIELD_SAME_CARDINALITY FIELD_SAME_CPP_STRING_TYPE FIELD_SAME_JAVA_UTF8_VALIDATION
FIELD_SAME_JSTYPE FIELD_SAME_UTF8_VALIDATION FILE_SAME_CC_ENABLE_ARENAS FILE_SAME_CC_GENERIC_SERVICES
FILE_SAME_CSHARP_NAMESPACE FILE_SAME_GO_PACKAGE FILE_SAME_JAVA_GENERIC_SERVICES FILE_SAME_JAVA_MULTIPLE_FILES
FILE_SAME_JAVA_OUTER_CLASSNAME FILE_SAME_JAVA_PACKAGE FILE_SAME_OBJC_CLASS_PREFIX FILE_SAME_OPTIMIZE_FOR
FILE_SAME_PHP_CLASS_PREFIX FILE_SAME_PHP_METADATA_NAMESPACE FILE_SAME_PHP_NAMESPACE FILE_SAME_PY_GENERIC_SERVICES
FILE_SAME_RUBY_PACKAGE FILE_SAME_SWIFT_PREFIX RPC_NO_DELETE ENUM_VALUE_NO_DELETE EXTENSION_MESSAGE_NO_DELETE
FIELD_NO_DELETE FIELD_SAME_TYPE FILE_SAME_SYNTAX MESSAGE_NO_REMOVE_STANDARD_DESCRIPTOR_ACCESSOR ONEOF_NO_DELETE
ENUM_SAME_JSON_FORMAT ENUM_VALUE_SAME_NAME FIELD_SAME_JSON_NAME FIELD_SAME_NAME MESSAGE_SAME_JSON_FORMAT
FIELD_SAME_DEFAULT FIELD_SAME_ONEOF FILE_SAME_PACKAGE MESSAGE_SAME_REQUIRED_FIELDS RESERVED_ENUM_NO_DELETE
RESERVED_MESSAGE_NO_DELETE RPC_SAME_CLIENT_STREAMING RPC_SAME_IDEMPOTENCY_LEVEL RPC_SAME_REQUEST_TYPE
RPC_SAME_RESPONSE_TYPE RPC_SAME_SERVER_STREAMING PACKAGE_ENUM_NO_DELETE PACKAGE_EXTENSION_NO_DELETE
PACKAGE_MESSAGE_NO_DELETE PACKAGE_NO_DELETE PACKAGE_SERVICE_NO_DELETE ENUM_VALUE_NO_DELETE_UNLESS_NAME_RESERVED
FIELD_NO_DELETE_UNLESS_NAME_RESERVED FIELD_WIRE_JSON_COMPATIBLE_CARDINALITY FIELD_WIRE_JSON_COMPATIBLE_TYPE
ENUM_VALUE_NO_DELETE_UNLESS_NUMBER_RESERVED FIELD_NO_DELETE_UNLESS_NUMBER_RESERVED
FIELD_WIRE_COMPATIBLE_CARDINALITY FIELD_WIRE_COMPATIBLE_TYPE MESSAGE_SAME_MESSAGE_SET_WIRE_FORMAT`)

func levels(l rules.ProtoLevel) string {
	var out []string
	for _, x := range []struct {
		l    rules.ProtoLevel
		name string
	}{{rules.LevelFile, "file"}, {rules.LevelPackage, "package"}, {rules.LevelWireJSON, "wire-json"}, {rules.LevelWire, "wire"}} {
		if l&x.l != 0 {
			out = append(out, x.name)
		}
	}
	if len(out) == 0 {
		return "every level"
	}
	return strings.Join(out, ", ")
}

// bufMapping renders the table of buf rule names to contractlint IDs.
func bufMapping(reg *rules.Registry) string {
	var b strings.Builder
	b.WriteString("# buf breaking rules in contractlint\n\n")
	b.WriteString("Generated from the rule registry by `go test ./rules -run TestBufMapping -update`; do not edit.\n\n")
	b.WriteString("Every `buf breaking` rule (buf v1.75) has a contractlint rule of its own. `--proto-level` picks the\n")
	b.WriteString("strictness the way buf's categories do (default `file`, as buf's, or what `buf.yaml`'s `breaking.use` names); a rule runs at the levels listed.\n\n")
	b.WriteString("Measured against buf itself by `.ci/parity-buf TESTDATA BUF` (TESTDATA: buf's published\n")
	b.WriteString("`private/bufpkg/bufcheck/testdata/breaking`, with `current/` and `previous/`; not part of `go test`):\n")
	b.WriteString("on buf v1.75's 59 cases, at the level each buf rule belongs to, 779 of buf's 782 annotations are\n")
	b.WriteString("reported by the contractlint rule named below, at buf's file and line or the anchor documented here\n")
	b.WriteString("(before issue 17's parity pass: 738). The 3 left: two enum type changes at WIRE (below, on purpose)\n")
	b.WriteString("and one case in `edition = \"2026\"`, which the compiler contractlint uses does not know yet (exit 2).\n\n")
	b.WriteString("| buf rule | contractlint rule | levels |\n|---|---|---|\n")
	type row struct{ buf, id, lv string }
	var rows []row
	for _, r := range reg.All() {
		for _, name := range r.Buf {
			rows = append(rows, row{name, r.ID, levels(r.Levels)})
		}
	}
	slices.SortFunc(rows, func(a, b row) int { return strings.Compare(a.buf, b.buf) })
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | `%s` | %s |\n", r.buf, r.id, r.lv)
	}
	b.WriteString("\n`MESSAGE_SAME_MESSAGE_SET_WIRE_FORMAT` is deprecated in buf and belongs to none of its categories;\n")
	b.WriteString("contractlint runs it at the file and package levels.\n\n")
	b.WriteString("## Where deletions are reported\n\n")
	b.WriteString("Like buf, contractlint reports a deletion at the element that held the deleted one in the new file:\n")
	b.WriteString("the message that lost a field, oneof or reservation, the enum that lost a value or reservation, the\n")
	b.WriteString("service that lost an rpc, the enclosing message of a nested message, enum or extension. Where buf\n")
	b.WriteString("reports a top-level element deleted from a file with no line, contractlint points at the file's\n")
	b.WriteString("`package` line (its first line without one). The old file:line is in the message and in `old` in JSON.\n")
	b.WriteString("A deleted file or package has no new place and is reported at the old one. An element moved to\n")
	b.WriteString("another file is reported, like a deletion, in the file it left (when that file remains). At the\n")
	b.WriteString("package level a nested element whose enclosing message moved to another file of the package is\n")
	b.WriteString("reported at that message, as buf does. A directory side with its own buf.yaml or buf.work.yaml\n")
	b.WriteString("names its files by their path in their module, so files match across sides as buf matches them.\n\n")
	b.WriteString("A changed option or feature is reported where buf reports it: an enum's `enum_type` or a message's\n")
	b.WriteString("or enum's `json_format` at the element's own `option features...` line when it writes one (else\n")
	b.WriteString("at the element); a Java UTF-8 check set by the file option `java_string_check_utf8` once per\n")
	b.WriteString("string field at that option's line; a map field's string key and value at the `map<...>` field;\n")
	b.WriteString("a message's `no_standard_descriptor_accessor` or `message_set_wire_format` and an rpc's\n")
	b.WriteString("`idempotency_level` at their option line. An enum number that lost one of its names is reported\n")
	b.WriteString("at each value now holding that number. A Java UTF-8 check that is not VERIFY is the field's own\n")
	b.WriteString("`utf8_validation` (Java parsers apply it), so a proto3 string moved to proto2 changes it.\n\n")
	b.WriteString("## Where contractlint reports less than buf, on purpose\n\n")
	b.WriteString("A field number that now carries another field (its name and its type or shape changed) is one\n")
	b.WriteString("`field-number-reused` finding; buf's FIELD_SAME_NAME, FIELD_SAME_JSON_NAME, FIELD_SAME_TYPE,\n")
	b.WriteString("FIELD_*_COMPATIBLE_TYPE and FIELD_*_CARDINALITY findings at that field are superseded by it.\n\n")
	b.WriteString("A field that keeps its number and name but changes meaning (a type old readers misread, another\n")
	b.WriteString("shape, another unit: `double price` becoming `int64 price`) is one `field-redefined` finding, in the\n")
	b.WriteString("words it uses for the same edit in OpenAPI; buf's FIELD_SAME_TYPE, FIELD_*_COMPATIBLE_TYPE and\n")
	b.WriteString("FIELD_*_CARDINALITY findings at that field are superseded by it. Every finding names, in JSON's\n")
	b.WriteString("`also`, the rules it stands for (one edit, one finding), so `.ci/parity-buf` still counts those\n")
	b.WriteString("buf rules as reported.\n\n")
	b.WriteString("At the `wire` level an enum field's type may change to another enum that keeps every old number\n")
	b.WriteString("(the wire carries numbers only); buf's FIELD_WIRE_COMPATIBLE_TYPE also wants the same enum short\n")
	b.WriteString("name and the same value names. The value names matter to JSON, where `wire-json` reports them.\n\n")
	b.WriteString("At the `wire-json` and `wire` levels a field moved alone into a oneof the message did not have is\n")
	b.WriteString("not reported (a oneof of one field encodes as the field did, in binary and JSON), nor a message field\n")
	b.WriteString("whose type is swapped for a message with the same field numbers, kinds, cardinalities and JSON\n")
	b.WriteString("names, nested messages alike. buf reports both (FIELD_SAME_ONEOF, FIELD_WIRE*_COMPATIBLE_TYPE);\n")
	b.WriteString("`file` and `package` still do, as generated code changes. At those two levels FIELD_SAME_ONEOF is\n")
	b.WriteString("`proto-field-oneof-changed`; at the wire levels `proto-field-oneof-wire-incompatible` judges it.\n\n")
	b.WriteString("## Proto rules buf does not have\n\n| contractlint rule | pack | levels | what |\n|---|---|---|---|\n")
	for _, r := range reg.All() {
		if r.Formats&rules.Proto == 0 || len(r.Buf) > 0 || r.Mode != rules.DiffRule {
			continue
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", r.ID, r.Pack, levels(r.Levels), r.Doc.Title)
	}
	return b.String()
}

func TestBufMapping(t *testing.T) {
	reg := rules.Default()
	covered := map[string]bool{}
	for _, r := range reg.All() {
		for _, name := range r.Buf {
			if covered[name] {
				t.Errorf("buf rule %s is covered twice", name)
			}
			covered[name] = true
			if r.Formats != rules.Proto || r.Levels == 0 {
				t.Errorf("%s covers %s but is not a leveled proto rule", r.ID, name)
			}
		}
	}
	for _, name := range bufRules {
		if !covered[name] {
			t.Errorf("buf rule %s has no contractlint rule", name)
		}
	}
	path := filepath.Join("..", "docs", "buf-mapping.md")
	want := bufMapping(reg)
	if *updateDocs {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./rules -run TestBufMapping -update)", err)
	}
	if string(got) != want {
		t.Errorf("%s is out of date: run go test ./rules -run TestBufMapping -update", path)
	}
}
