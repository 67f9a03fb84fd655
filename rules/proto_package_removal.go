package rules

// inPackage makes a package-level deletion rule report where the package
// shows the deletion: a nested element whose enclosing message moved to
// another file is reported at that message (Change.Proto.PackageLoc), as buf
// does; the file-level rules keep pointing at the file it left.
func inPackage(r *Rule) *Rule {
	check := r.Check
	r.Check = func(in *Input) []Finding {
		moved := *in
		moved.Changes = make([]Change, len(in.Changes))
		for i, c := range in.Changes {
			if !c.Proto.PackageLoc.IsZero() {
				c.NewLoc = c.Proto.PackageLoc
			}
			moved.Changes[i] = c
		}
		return check(&moved)
	}
	return r
}
