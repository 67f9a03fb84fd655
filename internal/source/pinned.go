package source

import (
	"io/fs"
	"path"
)

// Pinned returns a Source that reads name as the blob oid holds it and every
// other file from g: a past version of one file, its imports read from g.
// The review's history walk loads each version of a file this way, from the
// blob ids one `git log` lists, instead of listing every commit's tree.
// label names the version in messages (a commit id).
func (g *Git) Pinned(name, oid, label string) Source {
	return &pinned{g: g, name: name, oid: oid, label: label}
}

type pinned struct {
	g                *Git
	name, oid, label string
}

func (p *pinned) Label() string { return p.label }

func (p *pinned) ReadFile(name string) ([]byte, error) {
	if c, err := Clean(name); err == nil && c == p.name {
		return p.g.blob(p.oid)
	}
	return p.g.ReadFile(name)
}

func (p *pinned) Stat(name string) (fs.FileInfo, error) {
	c, err := Clean(name)
	if err != nil || c != p.name {
		return p.g.Stat(name)
	}
	size, err := p.g.blobSize(p.oid)
	if err != nil {
		return nil, err
	}
	return gitInfo{name: path.Base(c), mode: 0o644, size: size}, nil
}

func (p *pinned) ReadDir(name string) ([]fs.DirEntry, error) { return p.g.ReadDir(name) }
