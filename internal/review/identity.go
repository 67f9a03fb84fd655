package review

import (
	"regexp"
	"slices"

	"go.yaml.in/yaml/v4"

	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/openapi"
)

// pairByIdentity turns a deleted contract and an added one with the same
// identity into a rename: a move plus a large edit falls under git's
// similarity threshold, and must still be compared as one contract rather
// than reported deleted. An identity shared by more than one deleted or
// added file pairs nothing: a guess would compare the wrong contracts.
func pairByIdentity(files []FileChange, oldSrc, newSrc source.Source) []FileChange {
	deleted, added := map[string][]int{}, map[string][]int{}
	for i, c := range files {
		switch c.Status {
		case Deleted:
			if id := identity(oldSrc, c.Old); id != "" {
				deleted[id] = append(deleted[id], i)
			}
		case Added:
			if id := identity(newSrc, c.New); id != "" {
				added[id] = append(added[id], i)
			}
		}
	}
	drop := map[int]bool{}
	for id, ds := range deleted {
		as := added[id]
		if len(ds) != 1 || len(as) != 1 {
			continue
		}
		files[ds[0]] = FileChange{Status: Renamed, Old: files[ds[0]].Old, New: files[as[0]].New}
		drop[as[0]] = true
	}
	out := files[:0]
	for i, c := range files {
		if !drop[i] {
			out = append(out, c)
		}
	}
	return slices.Clip(out)
}

var packageRE = regexp.MustCompile(`(?m)^\s*package\s+([A-Za-z_][\w.]*)\s*;`)

// identity names the API a contract file declares: its proto package, or
// its OpenAPI info.title; "" when it has none.
func identity(src source.Source, name string) string {
	b, err := src.ReadFile(name)
	if err != nil {
		return ""
	}
	if isProto(name) {
		if m := packageRE.FindSubmatch(b); m != nil {
			return "proto package " + string(m[1])
		}
		return ""
	}
	// A node tree, not a decode: aliases stay unexpanded.
	title := lookup(lookup(openapi.Parse(b), "info"), "title")
	if title == nil || title.Kind != yaml.ScalarNode || title.Value == "" {
		return ""
	}
	return "openapi title " + title.Value
}

// lookup is the value of key in a mapping node (openapi.Lookup).
func lookup(n *yaml.Node, key string) *yaml.Node { return openapi.Lookup(n, key) }
