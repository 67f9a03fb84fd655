package pipeline

import (
	"maps"
	"path"
	"slices"

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
	return o, nil
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
