package review

import (
	"path/filepath"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/contractlint/contractlint/internal/source"
)

// TestGraphImports: an import is what the compiler would read, single
// quotes included, and one commented out reaches nothing.
func TestGraphImports(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"api/a.proto": "syntax = \"proto3\";\n// import \"api/c.proto\";\n/* import \"api/d.proto\"; */\nimport 'api/b.proto';\nimport public \"e.proto\";\n",
		"api/b.proto": "syntax = \"proto3\";\n",
		"api/c.proto": "syntax = \"proto3\";\n",
		"api/d.proto": "syntax = \"proto3\";\n",
		"api/e.proto": "syntax = \"proto3\";\n",
	}
	for name, text := range files {
		writeFile(t, filepath.Join(dir, name), text)
	}
	src, err := source.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	g := newGraph(src, nil)
	g.prefetch([]string{"api/a.proto", "api/b.proto"})
	want := []string{"api/b.proto", "api/e.proto"} // e.proto beside a.proto
	if d := gocmp.Diff(want, g.names("api/a.proto")); d != "" {
		t.Errorf("imports of api/a.proto (-want +got):\n%s", d)
	}
}
