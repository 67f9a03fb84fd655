package review

import (
	"cmp"
	"path/filepath"
	"slices"
	"strings"
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
