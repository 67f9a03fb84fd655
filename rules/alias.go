package rules

import (
	"regexp"
	"slices"
	"strings"
)

// How a name given where a rule ID is expected was resolved.
const (
	ViaBufRule      = "buf rule"
	ViaBufCategory  = "buf category"
	ViaOasdiffCheck = "oasdiff check"
)

// bufCategories are buf's breaking categories, as the levels they name.
var bufCategories = map[string]ProtoLevel{"FILE": LevelFile, "PACKAGE": LevelPackage, "WIRE_JSON": LevelWireJSON, "WIRE": LevelWire}

// Resolve returns the IDs of the rules a name stands for, so a team moving
// from buf or oasdiff keeps the names its config already uses: a rule's own
// ID; a buf rule (FIELD_NO_DELETE) or category (WIRE_JSON); an oasdiff
// check ID (api-path-removed-without-deprecation); or a released ID since
// renamed or retired, contractlint's or buf's (see Retirement), which
// stands for the rules now covering it. via says which kind of alias
// matched ("" for a rule's own ID); no IDs means the name is unknown, or a
// retired ID nothing covers now (Retired tells the two apart).
func (r *Registry) Resolve(name string) (ids []string, via string) {
	if _, ok := r.byID[name]; ok {
		return []string{name}, ""
	}
	if t, ok := r.Retired(name); ok {
		return r.resolveRetired(t)
	}
	if lvl, ok := bufCategories[name]; ok {
		for _, x := range r.rules {
			if x.Levels&lvl != 0 {
				ids = append(ids, x.ID)
			}
		}
		return ids, ViaBufCategory
	}
	for _, x := range r.rules {
		if slices.Contains(x.Buf, name) {
			ids = append(ids, x.ID)
		}
	}
	if len(ids) > 0 {
		return ids, ViaBufRule
	}
	for _, x := range r.rules {
		if slices.ContainsFunc(x.Oasdiff, func(p string) bool { return OasdiffPattern(p).MatchString(name) }) {
			ids = append(ids, x.ID)
		}
	}
	if len(ids) > 0 {
		return ids, ViaOasdiffCheck
	}
	return nil, ""
}

// OasdiffPattern turns a Rule.Oasdiff check ID pattern into a regexp: `*`
// stands for one or more dash-separated words.
func OasdiffPattern(p string) *regexp.Regexp {
	return regexp.MustCompile("^" + strings.ReplaceAll(regexp.QuoteMeta(p), `\*`, `[a-z0-9]+(?:-[a-z0-9]+)*`) + "$")
}
