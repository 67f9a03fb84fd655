package pipeline

import (
	"slices"

	"github.com/contractlint/contractlint/rules"
)

// ExcludableElements are the values Options.Exclude (and oasdiff's
// --exclude-elements) take. summary and endpoints are accepted for oasdiff's
// sake and strip nothing: no rule reads an operation's summary, and
// endpoints names a section of oasdiff's own diff report.
var ExcludableElements = []string{"examples", "description", "endpoints", "title", "summary"}

// excludeElements blanks, on both sides of every field change, the parts
// the run excludes, so a meaning the rules would read only from them (a
// unit named in a description, an example's scale) is not compared.
func excludeElements(in *rules.Input, exclude []string) {
	if len(exclude) == 0 {
		return
	}
	strip := func(f *rules.Field) {
		if f == nil {
			return
		}
		if slices.Contains(exclude, "description") {
			f.Description = ""
		}
		if slices.Contains(exclude, "title") {
			f.Title = ""
		}
		if slices.Contains(exclude, "examples") {
			f.Example, f.HasExample, f.StringExample = 0, false, ""
		}
	}
	for i := range in.Changes {
		c := &in.Changes[i]
		// The fields may be shared with the lowered contracts: strip copies.
		if c.OldField != nil {
			f := *c.OldField
			strip(&f)
			c.OldField = &f
		}
		if c.NewField != nil {
			f := *c.NewField
			strip(&f)
			c.NewField = &f
		}
	}
}
