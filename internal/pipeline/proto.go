package pipeline

import (
	"cmp"
	"errors"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/protobuf"
	"github.com/contractlint/contractlint/rules"
)

// resolveProto finds a side's import roots and the files it compiles. A
// directory side is its own root, or its buf.yaml/buf.work.yaml modules (then
// only the files they hold); a side of single files finds its roots as buf
// does (buf.yaml, buf.work.yaml, else the directory its imports resolve
// from) unless --proto-path or proto.paths name them, which then follow the
// file's own directory. Files are matched across sides by their path
// relative to their root.
func resolveProto(s Side, o Options) (Side, []string, error) {
	imports, err := importRoots(s, o)
	if err != nil {
		return s, nil, err
	}
	if s.Dir != "" {
		roots, held, err := protobuf.DirRoots(s.Src, s.Dir, s.Files)
		if err != nil {
			return s, nil, err
		}
		if roots != nil {
			imports, s.Files = append(roots, append(slices.Clip(s.ProtoPaths), o.ProtoPaths...)...), held
		}
	}
	return s, imports, nil
}

func importRoots(s Side, o Options) ([]string, error) {
	extra := append(slices.Clip(s.ProtoPaths), o.ProtoPaths...)
	switch {
	case s.Dir != "":
		return append([]string{s.Dir}, extra...), nil
	case len(s.Files) == 0:
		return append([]string{"."}, extra...), nil
	}
	// --proto-path and proto.paths add to the roots buf.yaml declares:
	// an import resolved through the module root must still resolve.
	roots, err := protobuf.FindRoots(s.Src, s.Files[0])
	if err != nil {
		return nil, err
	}
	for _, e := range extra {
		if !slices.Contains(roots, path.Clean(e)) {
			roots = append(roots, path.Clean(e))
		}
	}
	return roots, nil
}

// ProtoRoots are the import roots one .proto file of src is compiled
// with, as Load finds them for a side of that file alone.
func ProtoRoots(src source.Source, file string, o Options) ([]string, error) {
	return importRoots(Side{Src: src, Files: []string{file}}, o)
}

// protoPathHint says how to fix an import that was not found.
func protoPathHint(given bool) string {
	if given {
		return "add the directory it is under with --proto-path DIR or proto.paths in .contractlint.yaml"
	}
	return "declare the module root in buf.yaml (modules[].path) or buf.work.yaml (directories), or pass --proto-path DIR or set proto.paths in .contractlint.yaml"
}

// loadProto compiles the files of one side (named old or new in --stats)
// against roots.
func loadProto(side string, s Side, roots []string, o Options) (*protobuf.Tree, error) {
	t, err := protobuf.Load(s.Src, s.Files, protoOptions(side, s, roots, o))
	return t, s.labelled(err)
}

func protoOptions(side string, s Side, roots []string, o Options) protobuf.Options {
	po := protobuf.Options{ImportPaths: roots, Display: s.Display,
		Hint: protoPathHint(len(s.ProtoPaths)+len(o.ProtoPaths) > 0)}
	if o.Cache != nil {
		po.Cache = o.Cache
		po.Cached = func(hits, files int) { o.Stats.cached(side, hits, files) }
	}
	return po
}

// diffProto compiles both sides at once (unless both are large): each
// compile uses every core, but a small one also waits on reads and on its
// own import order, and the other side fills those gaps. The GC target is
// lowered once around both compiles.
// Files unchanged on both sides, imports included, are left out (see
// planProto); identical trees compile nothing.
func diffProto(old, new Side, o Options) (*rules.Input, error) {
	old, oldRoots, oerr := resolveProto(old, o)
	new, newRoots, nerr := resolveProto(new, o)
	if err := joinSides(old, new, old.labelled(oerr), new.labelled(nerr)); err != nil {
		return nil, err
	}
	var plan protoPlan
	var planned bool
	o.Stats.measure("scan", func() error {
		plan, planned = planProto(old, new, oldRoots, newRoots, o)
		return nil
	})
	newFull := new
	if planned {
		old.Files, new.Files = plan.old, plan.new
		o.Stats.files(max(len(plan.old), len(plan.new)), len(plan.same))
		if len(old.Files) == 0 && len(new.Files) == 0 {
			return &rules.Input{}, checkUnchanged(old, newFull, new.Files, newRoots, nil, o)
		}
	} else {
		o.Stats.files(len(new.Files), 0)
	}
	var ot, nt *protobuf.Tree
	err := o.Stats.measure("load", func() error {
		defer protobuf.CompileGC(len(old.Files) + len(new.Files))()
		if protobuf.Large(len(old.Files)) && protobuf.Large(len(new.Files)) {
			// Two large trees: each compile alone keeps every core busy,
			// and both at once took googleapis from 1.9 to 3.3 GB peak
			// with no clear gain in wall time. One after the other, only
			// one compiler's output is alive at a time.
			// Both are loaded whatever the first gives: every error of
			// either side is reported.
			var oerr, nerr error
			ot, oerr = loadProto("old", old, oldRoots, o)
			nt, nerr = loadProto("new", new, newRoots, o)
			return joinSides(old, new, oerr, nerr)
		}
		var oerr, nerr error
		var wg sync.WaitGroup
		wg.Go(func() { ot, oerr = loadProto("old", old, oldRoots, o) })
		nt, nerr = loadProto("new", new, newRoots, o)
		wg.Wait()
		return joinSides(old, new, oerr, nerr)
	})
	if planned {
		if err := checkUnchanged(old, newFull, new.Files, newRoots, err, o); err != nil {
			return nil, err
		}
	}
	if err == nil {
		err = o.cancelled()
	}
	if err != nil {
		return nil, err
	}
	for name, pkg := range plan.same {
		ot.AddUnchanged(name, pkg)
		nt.AddUnchanged(name, pkg)
	}
	in := &rules.Input{}
	o.Stats.measure("diff", func() error {
		var wg sync.WaitGroup
		wg.Go(func() { in.Old = ot.Contract() })
		wg.Go(func() { in.New = nt.Contract() })
		// Directories are compared by path, as buf compares modules: one
		// file each under two names is a removal and an addition.
		if old.ByName || new.ByName || old.Dir != "" || new.Dir != "" {
			in.Changes = protobuf.DiffByName(ot, nt)
		} else {
			in.Changes = protobuf.Diff(ot, nt)
		}
		wg.Wait()
		return nil
	})
	return in, nil
}

// checkUnchanged compiles the files left out as unchanged, on the new side
// (they are byte-identical on the old one): skipping them is an
// optimisation, and must never hide a file that does not compile. Its
// problems join those of the compile that ran (prior), so every error of
// every file is reported.
func checkUnchanged(old, full Side, compiled, roots []string, prior error, o Options) error {
	done := map[string]bool{}
	for _, f := range compiled {
		done[f] = true
	}
	rest := slices.DeleteFunc(slices.Clone(full.Files), func(f string) bool { return done[f] })
	if len(rest) == 0 {
		return prior
	}
	var ps, more source.Problems
	if prior != nil && !errors.As(prior, &ps) {
		return prior
	}
	err := o.Stats.measure("check", func() error {
		defer protobuf.CompileGC(len(rest))()
		return bothLabelled(old, full, protobuf.Check(full.Src, rest, protoOptions("new", full, roots, o)))
	})
	switch {
	case errors.As(err, &more):
		return sortedOnce(slices.Concat(ps, more))
	case err != nil:
		return err
	}
	return prior
}

func lintProto(s Side, o Options) (*rules.Contract, error) {
	s, roots, err := resolveProto(s, o)
	if err != nil {
		return nil, s.labelled(err)
	}
	defer protobuf.CompileGC(len(s.Files))()
	t, err := loadProto("other", s, roots, o)
	if err != nil {
		return nil, err
	}
	return t.Contract(), nil
}

// CheckProto compiles .proto files and lowers nothing, for the files a
// review compares with no other version because they did not change: as
// in a diff of two trees, an unchanged file that does not compile is never
// hidden by the skip. Files are grouped by the import roots each finds, so
// files of several modules are each compiled against their own. Problems
// carry the side's Label.
func CheckProto(s Side, o Options) error {
	s, err := guard(s, o)
	if err != nil {
		return err
	}
	groups := map[string][]string{}
	var keys []string
	for _, f := range s.Files {
		one := s
		one.Files = []string{f}
		_, roots, err := resolveProto(one, o)
		if err != nil {
			return s.labelled(err)
		}
		k := strings.Join(roots, "\x00")
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], f)
	}
	var all source.Problems
	for _, k := range keys {
		g := s
		g.Files = groups[k]
		roots := strings.Split(k, "\x00")
		err := o.Stats.measure("check", func() error {
			defer protobuf.CompileGC(len(g.Files))()
			return protobuf.Check(g.Src, g.Files, protoOptions("new", g, roots, o))
		})
		var ps source.Problems
		switch {
		case errors.As(err, &ps):
			all = append(all, ps...)
		case err != nil:
			return err
		}
	}
	if len(all) == 0 {
		return nil
	}
	return s.labelled(sortedOnce(all))
}

// sortedOnce sorts problems by place and keeps each once.
func sortedOnce(ps source.Problems) source.Problems {
	slices.SortFunc(ps, func(a, b source.Problem) int {
		return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column), strings.Compare(a.Msg, b.Msg))
	})
	return slices.CompactFunc(ps, func(a, b source.Problem) bool { return a == b })
}
