package pipeline

import (
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/protobuf"
	"github.com/contractlint/contractlint/rules"
)

// withBuf applies the buf.yaml `breaking:` settings that govern a proto
// side when neither --proto-level nor .contractlint.yaml set a level: a buf
// user gets the gate buf breaking would give. `use` names the category
// (FILE, PACKAGE, WIRE_JSON, WIRE; the strictest listed wins); `except`
// switches off the rules that cover the buf rules it names, unless the
// command line or config switched them on by name. The old side's settings
// govern a compare, like the base's config in review: a change that loosens
// buf.yaml takes effect once it is the base.
func withBuf(old, new Side, o Options) (Options, error) {
	if o.Settings == nil || o.Settings.ProtoLevel != 0 || FormatOf(new) != rules.Proto {
		return o, nil
	}
	gov := old
	if old.Src == nil {
		gov = new // a lint: one side only
	}
	br, err := breakingOf(gov)
	if err != nil || !br.Found {
		return o, err
	}
	set := *o.Settings
	for _, u := range br.Use {
		lvl, err := rules.ParseProtoLevel(u)
		if err != nil {
			return o, source.Errorf(br.File, 0, 0, "breaking.use: %q is not a category contractlint knows (want FILE, PACKAGE, WIRE_JSON or WIRE); pass --proto-level to choose one", u)
		}
		// FILE is the strictest category and WIRE the loosest: each
		// holds every rule of the ones after it.
		if set.ProtoLevel == 0 || lvl < set.ProtoLevel {
			set.ProtoLevel = lvl
		}
	}
	if len(br.Except) > 0 {
		set.Rules = maps.Clone(set.Rules)
		if set.Rules == nil {
			set.Rules = map[string]bool{}
		}
		for _, r := range o.Registry.All() {
			if _, named := o.Settings.Rules[r.ID]; named || len(r.Buf) == 0 {
				continue
			}
			if slices.ContainsFunc(r.Buf, func(id string) bool { return slices.Contains(br.Except, id) }) {
				set.Rules[r.ID] = false
			}
		}
	}
	o.Settings = &set
	o.bufDrop = bufIgnores(br, o.Registry, old, new)
	return o, nil
}

// bufIgnores is the filter buf.yaml's ignore, ignore_only and
// ignore_unstable_packages ask for: a finding in an ignored file (on either
// side), or of a rule ignored in its file, or about an element of an
// unstable package, is dropped. nil when buf.yaml ignores nothing.
func bufIgnores(br protobuf.Breaking, reg *rules.Registry, sides ...Side) func(rules.Finding) bool {
	if len(br.Ignore) == 0 && len(br.IgnoreOnly) == 0 && !br.IgnoreUnstable {
		return nil
	}
	all := map[string]bool{}             // shown file -> every rule ignored there
	some := map[string]map[string]bool{} // shown file -> the rules ignored there
	for _, s := range sides {
		for _, n := range s.Files {
			shown := s.display(n)
			all[shown] = all[shown] || coveredBy(n, br.Ignore)
			for id, paths := range br.IgnoreOnly {
				if !coveredBy(n, paths) {
					continue
				}
				if some[shown] == nil {
					some[shown] = map[string]bool{}
				}
				ids, _ := reg.Resolve(id)
				for _, r := range ids {
					some[shown][r] = true
				}
			}
		}
	}
	return func(f rules.Finding) bool {
		files := []string{f.Where.File}
		if f.Old != nil {
			files = append(files, f.Old.File)
		}
		for _, file := range files {
			if all[file] || some[file][f.Rule] {
				return true
			}
		}
		return br.IgnoreUnstable && unstablePackage(f.Path)
	}
}

// coveredBy reports whether root-relative name is one of paths or lies
// under one.
func coveredBy(name string, paths []string) bool {
	return slices.ContainsFunc(paths, func(p string) bool { return name == p || p == "." || strings.HasPrefix(name, p+"/") })
}

// unstableVersion is buf's unstable package version: v1alpha1, v1beta2,
// v1p2beta1, v1test.
var unstableVersion = regexp.MustCompile(`^v\d+(?:p\d+)?(?:alpha|beta)\d*$|^v\d+test\w*$`)

// unstablePackage reports whether a full proto name has an unstable
// version among its package components.
func unstablePackage(full string) bool {
	return slices.ContainsFunc(strings.Split(full, "."), unstableVersion.MatchString)
}

// breakingOf reads the breaking settings above a side's first file, or in
// its directory.
func breakingOf(s Side) (protobuf.Breaking, error) {
	name := firstName(s)
	if s.Dir != "" {
		name = path.Join(s.Dir, "buf.yaml")
	}
	if s.Src == nil || name == "" {
		return protobuf.Breaking{}, nil
	}
	return protobuf.BreakingFor(s.Src, name)
}
