package protobuf

// AddUnchanged records a file that was not compiled because it, and all it
// imports, are byte-identical on both sides of a diff. Added to both trees,
// it keeps the file and its package known to the diff (a package still
// declared there is not removed; a tree of one file stays one file) while
// adding no change.
func (t *Tree) AddUnchanged(name, pkg string) {
	t.Files[name] = &File{Name: name, Package: pkg}
}
