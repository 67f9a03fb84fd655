package pipeline

import (
	"cmp"
	"path"
	"sync"

	"github.com/contractlint/contractlint/protobuf"
	"github.com/contractlint/contractlint/rules"
)

// protoRoots are a side's import roots: its own root (the directory it was
// given, or a single file's directory) first, then the --proto-path
// directories. Files are matched across sides by their path relative to
// that root.
func protoRoots(s Side, o Options) []string {
	root := s.Dir
	if root == "" && len(s.Files) > 0 {
		root = path.Dir(s.Files[0])
	}
	if root == "" {
		root = "."
	}
	return append([]string{root}, o.ProtoPaths...)
}

// loadProto compiles the files of one side against roots.
func loadProto(s Side, roots []string, o Options) (*protobuf.Tree, error) {
	return protobuf.Load(s.Src, s.Files, protobuf.Options{ImportPaths: roots, Display: s.Display})
}

// diffProto compiles both sides at once (unless both are large): each
// compile uses every core, but a small one also waits on reads and on its
// own import order, and the other side fills those gaps. The GC target is
// lowered once around both compiles.
// Files unchanged on both sides, imports included, are left out (see
// planProto); identical trees compile nothing.
func diffProto(old, new Side, o Options) (*rules.Input, error) {
	oldRoots, newRoots := protoRoots(old, o), protoRoots(new, o)
	var plan protoPlan
	var planned bool
	o.Stats.measure("scan", func() error {
		plan, planned = planProto(old, new, o)
		return nil
	})
	if planned {
		old.Files, new.Files = plan.old, plan.new
		o.Stats.files(max(len(plan.old), len(plan.new)), len(plan.same))
		if len(old.Files) == 0 && len(new.Files) == 0 {
			return &rules.Input{}, nil
		}
	} else {
		o.Stats.files(len(new.Files), 0)
	}
	var ot, nt *protobuf.Tree
	err := o.Stats.measure("load", func() error {
		defer protobuf.LowGC(len(old.Files) + len(new.Files))()
		if protobuf.Large(len(old.Files)) && protobuf.Large(len(new.Files)) {
			// Two large trees: each compile alone keeps every core busy,
			// and both at once took googleapis from 1.9 to 3.3 GB peak
			// with no clear gain in wall time. One after the other, only
			// one compiler's output is alive at a time.
			var err error
			if ot, err = loadProto(old, oldRoots, o); err != nil {
				return err
			}
			nt, err = loadProto(new, newRoots, o)
			return err
		}
		var oerr, nerr error
		var wg sync.WaitGroup
		wg.Go(func() { ot, oerr = loadProto(old, oldRoots, o) })
		nt, nerr = loadProto(new, newRoots, o)
		wg.Wait()
		return cmp.Or(oerr, nerr)
	})
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
		in.Changes = protobuf.Diff(ot, nt)
		wg.Wait()
		return nil
	})
	return in, nil
}

func lintProto(s Side, o Options) (*rules.Contract, error) {
	defer protobuf.LowGC(len(s.Files))()
	t, err := loadProto(s, protoRoots(s, o), o)
	if err != nil {
		return nil, err
	}
	return t.Contract(), nil
}
