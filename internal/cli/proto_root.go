package cli

import (
	"os"
	"path/filepath"
	"strings"
)

// protoRoot widens the root of a single .proto file named outside any git
// repository, where the root is only the file's directory: to the nearest
// directory above it holding a buf.work.yaml (else a buf.yaml), as buf
// reads it, and to hold every --proto-path the user named. Inside a
// repository the root is its top and stays so: a contract there never
// reaches outside it.
func protoRoot(root, file string, protoPaths []string) string {
	if !strings.EqualFold(filepath.Ext(file), ".proto") {
		return root
	}
	if _, err := os.Lstat(filepath.Join(root, ".git")); err == nil {
		return root
	}
	if d := nearestWith(root, "buf.work.yaml"); d != "" {
		root = d
	} else if d := nearestWith(root, "buf.yaml"); d != "" {
		root = d
	}
	for _, p := range protoPaths {
		abs, err := filepath.Abs(p)
		if err != nil {
			continue
		}
		for !within(abs, root) && filepath.Dir(root) != root {
			root = filepath.Dir(root)
		}
	}
	return root
}

func nearestWith(dir, name string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if fi, err := os.Stat(filepath.Join(d, name)); err == nil && fi.Mode().IsRegular() {
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func absAll(e *Env, ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = e.abs(p)
	}
	return out
}
