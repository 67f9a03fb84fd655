package protobuf

import (
	"strings"
	"testing"
	"testing/fstest"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/contractlint/contractlint/internal/source"
)

func TestFindRoots(t *testing.T) {
	const imp = "syntax = \"proto3\";\nimport \"google/protobuf/empty.proto\";\nimport \"a/v1/a.proto\";\n"
	cases := []struct {
		name  string
		files map[string]string
		file  string
		want  []string
		err   string
	}{
		{name: "v2 modules, the file's own first",
			files: map[string]string{"buf.yaml": "version: v2\nmodules:\n  - path: vendor\n  - path: proto\n"},
			file:  "proto/b/v1/b.proto", want: []string{"proto", "vendor"}},
		{name: "v2 without modules is one module at its directory",
			files: map[string]string{"api/buf.yaml": "version: v2\n"},
			file:  "api/b/v1/b.proto", want: []string{"api"}},
		{name: "v2 excludes leave the file to the import search",
			files: map[string]string{"buf.yaml": "version: v2\nmodules:\n  - path: proto\n    excludes: [proto/legacy]\n",
				"proto/legacy/a/v1/a.proto": "syntax = \"proto3\";\n", "proto/legacy/x.proto": imp},
			file: "proto/legacy/x.proto", want: []string{"proto/legacy", "proto"}},
		{name: "v1 excludes are relative to the module",
			files: map[string]string{"proto/buf.yaml": "version: v1\nbuild:\n  excludes: [legacy]\n"},
			file:  "proto/legacy/x.proto", want: []string{"proto/legacy", "proto"}},
		{name: "buf.work.yaml directories beside the module's buf.yaml",
			files: map[string]string{"buf.work.yaml": "version: v1\ndirectories: [proto, third_party/googleapis]\n", "proto/buf.yaml": "version: v1\n"},
			file:  "proto/b/v1/b.proto", want: []string{"proto", "third_party/googleapis"}},
		{name: "no configuration: the nearest directory the imports resolve from",
			files: map[string]string{"src/proto/a/v1/a.proto": "syntax = \"proto3\";\n", "src/proto/b/v1/b.proto": imp},
			file:  "src/proto/b/v1/b.proto", want: []string{"src/proto"}},
		{name: "no configuration and nothing resolves: the file's directory",
			files: map[string]string{"b/v1/b.proto": imp},
			file:  "b/v1/b.proto", want: []string{"b/v1"}},
		{name: "a root outside the repository is refused",
			files: map[string]string{"buf.yaml": "version: v2\nmodules:\n  - path: ../elsewhere\n"},
			file:  "b.proto", err: `buf.yaml: "../elsewhere" leaves the repository`},
		{name: "a broken buf.yaml names itself",
			files: map[string]string{"buf.yaml": "version: [v2\n"},
			file:  "b.proto", err: "buf.yaml: yaml: line 1:"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := fstest.MapFS{}
			for name, text := range c.files {
				m[name] = &fstest.MapFile{Data: []byte(text)}
			}
			if _, ok := m[c.file]; !ok {
				m[c.file] = &fstest.MapFile{Data: []byte("syntax = \"proto3\";\n")}
			}
			got, err := FindRoots(source.FS{FS: m, Name: "test"}, c.file)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want one saying %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := gocmp.Diff(c.want, got); d != "" {
				t.Errorf("roots (-want +got):\n%s", d)
			}
		})
	}
}
