package pipeline

import (
	"path"

	"github.com/contractlint/contractlint/protobuf"
	"github.com/contractlint/contractlint/rules"
)

// loadProto compiles one side. A directory side is its own root; a side
// of single files finds its roots as buf does (buf.yaml, buf.work.yaml,
// else the directory its imports resolve from) unless --proto-path or
// proto.paths name them, which then follow the file's own directory.
// Files are matched across sides by their path relative to their root; a
// directory with its own buf.yaml or buf.work.yaml has its modules as roots.
func loadProto(s Side, o Options) (*protobuf.Tree, error) {
	imports, err := importRoots(s, o)
	if err != nil {
		return nil, err
	}
	files := s.Files
	if s.Dir != "" {
		roots, held, err := protobuf.DirRoots(s.Src, s.Dir, s.Files)
		if err != nil {
			return nil, err
		}
		if roots != nil {
			imports, files = append(roots, o.ProtoPaths...), held
		}
	}
	return protobuf.Load(s.Src, files, protobuf.Options{ImportPaths: imports, Display: s.Display,
		Hint: protoPathHint(len(o.ProtoPaths) > 0 || s.Dir != "")})
}

func importRoots(s Side, o Options) ([]string, error) {
	switch {
	case s.Dir != "":
		return append([]string{s.Dir}, o.ProtoPaths...), nil
	case len(s.Files) == 0:
		return append([]string{"."}, o.ProtoPaths...), nil
	case len(o.ProtoPaths) > 0:
		return append([]string{path.Dir(s.Files[0])}, o.ProtoPaths...), nil
	}
	return protobuf.FindRoots(s.Src, s.Files[0])
}

// protoPathHint says how to fix an import that was not found.
func protoPathHint(given bool) string {
	if given {
		return "add the directory it is under with --proto-path DIR or proto.paths in .contractlint.yaml"
	}
	return "declare the module root in buf.yaml (modules[].path) or buf.work.yaml (directories), or pass --proto-path DIR or set proto.paths in .contractlint.yaml"
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
