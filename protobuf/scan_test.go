package protobuf

import (
	"slices"
	"testing"
)

func TestStripComments(t *testing.T) {
	in := "a // c1 \"x\"\nb \"s // not\" /* c2\n c2 */ c 'q\\'/*' d /* unclosed"
	want := "a \nb \"s // not\"   c 'q\\'/*' d "
	if got := string(stripComments([]byte(in))); got != want {
		t.Errorf("stripComments = %q, want %q", got, want)
	}
}

func TestScan(t *testing.T) {
	imports, pkg, ok := Scan([]byte(`syntax = "proto3";
// import "commented.proto";
import public "a/pub.proto"; import weak "b/weak.proto";
import
  "c/split.proto";
import/* between */'d/single.proto';
option go_package = "example.com/package x;";
message reimport { string import_path = 1; }
package shop.v1 ;
`))
	if want := []string{"a/pub.proto", "b/weak.proto", "c/split.proto", "d/single.proto"}; !ok || !slices.Equal(imports, want) {
		t.Errorf("imports %q (ok %v), want %q", imports, ok, want)
	}
	if pkg != "shop.v1" {
		t.Errorf("package %q, want shop.v1", pkg)
	}
}

// An import the scan cannot read for sure makes it say so: callers that
// follow imports (the unchanged plan, the cache key) must not then assume
// they saw every one.
func TestScanUnsure(t *testing.T) {
	for _, text := range []string{
		`syntax = "proto3"; import "a" "b.proto";`,
		`syntax = "proto3"; import "a\x2fb.proto";`,
		"syntax = \"proto3\";\nimport\n",
		`message M {} import "a.proto" ;; import 'b.proto"c';`,
	} {
		if got, _, ok := Scan([]byte(text)); ok {
			t.Errorf("Scan(%q) = %q, sure; want unsure", text, got)
		}
	}
	// Not a statement: a string that mentions import is not one.
	if got, _, ok := Scan([]byte(`option (x) = "import it";`)); !ok || len(got) != 0 {
		t.Errorf("option text: %q, %v; want none, sure", got, ok)
	}
}
