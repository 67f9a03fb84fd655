package review

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/contractlint/contractlint/internal/source"
)

// vendorDirs are the directories package managers and vendoring tools copy
// other people's code into: Go's vendor/, npm's node_modules/, Bazel's
// and Chromium's third_party/. buf leaves them out of a module only when
// buf.yaml excludes them, oasdiff compares only the files it is given;
// review, which finds its files itself, leaves a copy out unless the
// config's contracts: globs or a path argument ask for it (their own
// files are then what the user chose), and says so in the report.
var vendorDirs = []string{"vendor", "node_modules", "third_party", "third-party", "bower_components"}

// vendored is the vendored directory (vendor/, ...) a change lies under,
// or "" when it lies under none, or a path argument reaches into it.
func vendored(c FileChange, paths []string) string {
	name := cmp.Or(c.New, c.Old)
	segs := strings.Split(name, "/")
	i := slices.IndexFunc(segs[:len(segs)-1], func(s string) bool { return slices.Contains(vendorDirs, s) })
	if i < 0 {
		return ""
	}
	for _, p := range paths {
		if slices.ContainsFunc(strings.Split(filepath.ToSlash(p), "/"), func(s string) bool { return slices.Contains(vendorDirs, s) }) {
			return ""
		}
	}
	return strings.Join(segs[:i+1], "/") + "/"
}

// excludedHere says why the head leaves out a contract its base reviewed,
// "" when it does not: the change moved it under a vendored directory, or
// its buf.yaml now excludes it. A pull request cannot take its own contract
// out of review that way: review compares it as the removal of the base's
// contract (as diff and buf see it) and names the exclusion.
func excludedHere(c FileChange, o Options, oldSrc, newSrc source.Source) string {
	if c.Old == "" || c.New == "" {
		return ""
	}
	was := FileChange{Status: c.Status, Old: c.Old, New: c.Old}
	if o.GlobsFrom == "" && vendored(was, o.Paths) != "" || bufExcluded(oldSrc, was) {
		return "" // the base did not review it either
	}
	if dir := vendored(c, o.Paths); o.GlobsFrom == "" && dir != "" {
		return fmt.Sprintf("%s is under %s in this change, but the base reviewed it as %s: compared as the removal of the base's contract", c.New, dir, c.Old)
	}
	if bufExcluded(newSrc, c) {
		as := ""
		if c.Old != c.New {
			as = " as " + c.Old
		}
		return fmt.Sprintf("%s is excluded by buf.yaml (excludes) in this change, but the base reviewed it%s: compared as the removal of the base's contract", c.New, as)
	}
	return ""
}
