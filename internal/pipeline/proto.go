package pipeline

import (
	"path"

	"github.com/contractlint/contractlint/protobuf"
	"github.com/contractlint/contractlint/rules"
)

// loadProto compiles one side. Its own root (the directory it was given, or
// a single file's directory) comes first among the import paths, then the
// --proto-path directories. Files are matched across sides by their path
// relative to that root.
func loadProto(s Side, o Options) (*protobuf.Tree, error) {
	root := s.Dir
	if root == "" && len(s.Files) > 0 {
		root = path.Dir(s.Files[0])
	}
	if root == "" {
		root = "."
	}
	imports := append([]string{root}, o.ProtoPaths...)
	return protobuf.Load(s.Src, s.Files, protobuf.Options{ImportPaths: imports, Display: s.Display})
}

// diffProto compiles the sides one after the other: each compile already
// uses every core, and only one compiled tree is alive at a time.
func diffProto(old, new Side, o Options) (*rules.Input, error) {
	var ot, nt *protobuf.Tree
	err := o.Stats.measure("load", func() (err error) {
		if ot, err = loadProto(old, o); err != nil {
			return err
		}
		nt, err = loadProto(new, o)
		return err
	})
	if err != nil {
		return nil, err
	}
	in := &rules.Input{}
	o.Stats.measure("diff", func() error {
		in.Changes, in.Old, in.New = protobuf.Diff(ot, nt), ot.Contract(), nt.Contract()
		return nil
	})
	return in, nil
}

func lintProto(s Side, o Options) (*rules.Contract, error) {
	t, err := loadProto(s, o)
	if err != nil {
		return nil, err
	}
	return t.Contract(), nil
}
