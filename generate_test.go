package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// updateFlag is how a test declares its -update flag (split, so this file
// does not declare one itself).
const updateFlag = "flag.Bool(" + `"update"`

// TestGenerateCoversUpdates: every test package with an -update flag (a
// test that rewrites a generated file) is among those the go:generate
// line of generate.go runs, so `go generate ./...` rewrites them all.
func TestGenerateCoversUpdates(t *testing.T) {
	b, err := os.ReadFile("generate.go")
	if err != nil {
		t.Fatal(err)
	}
	_, line, ok := strings.Cut(string(b), "//go:generate go test ")
	if !ok {
		t.Fatal("generate.go has no go:generate go test line")
	}
	line, _, _ = strings.Cut(line, "\n")
	run := strings.Fields(line)
	var want []string
	err = filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.Contains(string(src), updateFlag) {
			want = append(want, "./"+filepath.ToSlash(filepath.Dir(p)))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(want) == 0 {
		t.Fatal("found no test with an -update flag")
	}
	for _, dir := range want {
		if !slices.Contains(run, dir) {
			t.Errorf("%s has an -update test that generate.go's go:generate line does not run", dir)
		}
	}
}
