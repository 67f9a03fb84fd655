package protobuf

import (
	"bytes"
	"errors"
	"path"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/contractlint/contractlint/internal/source"
)

// bufConfig is what contractlint reads of a buf.yaml (v1beta1, v1 or v2)
// or buf.work.yaml: where the module roots are and what they leave out.
type bufConfig struct {
	Version string `yaml:"version"`
	// v1beta1 (and v1 files that kept it): build.roots and build.excludes.
	Build struct {
		Roots    []string `yaml:"roots"`
		Excludes []string `yaml:"excludes"`
	} `yaml:"build"`
	// v1beta1 also allowed roots at the top.
	Roots []string `yaml:"roots"`
	// v2: modules[].path and modules[].excludes, relative to the file.
	Modules []struct {
		Path     string   `yaml:"path"`
		Excludes []string `yaml:"excludes"`
	} `yaml:"modules"`
	// buf.work.yaml: directories, each a module root.
	Directories []string `yaml:"directories"`
}

// moduleRoot is one import root a buf configuration declares, with the
// directories it excludes (all relative to the source's top).
type moduleRoot struct {
	dir      string
	excludes []string
}

func (r moduleRoot) holds(file string) bool {
	if !under(file, r.dir) {
		return false
	}
	return !slices.ContainsFunc(r.excludes, func(x string) bool { return under(file, x) })
}

// under reports whether name lies in dir ("." holds everything).
func under(name, dir string) bool {
	return dir == "." || strings.HasPrefix(name, dir+"/")
}

// FindRoots finds the import roots of a .proto file the way a buf user
// expects, with no flags: the module roots the buf.yaml and buf.work.yaml
// files above it declare (the root holding the file first, then the
// others, so imports across modules resolve), else the nearest ancestor
// directory from which every import of the file resolves, else the file's
// own directory. Names are relative to src's top.
func FindRoots(src source.Source, file string) ([]string, error) {
	roots, err := declaredRoots(src, path.Dir(file))
	if err != nil {
		return nil, err
	}
	var own []string
	for _, r := range roots {
		if r.holds(file) && !slices.Contains(own, r.dir) {
			own = append(own, r.dir)
		}
	}
	if len(own) == 0 {
		own = []string{resolvingAncestor(src, file)}
	}
	// The innermost root that holds the file names it, as buf would.
	slices.SortStableFunc(own, func(a, b string) int { return len(b) - len(a) })
	out := own
	for _, r := range roots {
		if !slices.Contains(out, r.dir) {
			out = append(out, r.dir)
		}
	}
	return out, nil
}

// Declared reports whether a buf.yaml or buf.work.yaml above file names a
// module that holds it; without one, the directory handed to buf is the
// module, and a file is named by its path in it.
func Declared(src source.Source, file string) (bool, error) {
	roots, err := declaredRoots(src, path.Dir(file))
	if err != nil {
		return false, err
	}
	return slices.ContainsFunc(roots, func(r moduleRoot) bool { return r.holds(file) }), nil
}

// Configured reports whether a buf.yaml or buf.work.yaml above file
// declares any module, whether or not one holds the file.
func Configured(src source.Source, file string) (bool, error) {
	roots, err := declaredRoots(src, path.Dir(file))
	return len(roots) > 0, err
}

// Excluded reports whether the buf configuration above file leaves it out
// of every module that would hold it (buf.yaml excludes): buf never builds
// it, so neither does review.
func Excluded(src source.Source, file string) (bool, error) {
	roots, err := declaredRoots(src, path.Dir(file))
	if err != nil {
		return false, err
	}
	out := false
	for _, r := range roots {
		if r.holds(file) {
			return false, nil
		}
		out = out || under(file, r.dir)
	}
	return out, nil
}

// configNames are the files that declare roots, in the order read in a
// directory.
var configNames = []string{"buf.work.yaml", "buf.yaml"}

// declaredRoots reads every buf.work.yaml and buf.yaml from dir up to the
// top, nearest first.
func declaredRoots(src source.Source, dir string) ([]moduleRoot, error) {
	var out []moduleRoot
	for d := dir; ; d = path.Dir(d) {
		for _, name := range configNames {
			rs, err := readBufConfig(src, path.Join(d, name))
			if err != nil {
				return nil, err
			}
			out = append(out, rs...)
		}
		if d == "." || d == "/" {
			return out, nil
		}
	}
}

func readBufConfig(src source.Source, name string) ([]moduleRoot, error) {
	if _, err := src.Stat(name); err != nil {
		return nil, nil
	}
	b, err := src.ReadFile(name)
	if err != nil {
		return nil, source.Errorf(name, 0, 0, "cannot read: %v", err)
	}
	var c bufConfig
	if err := yaml.Unmarshal(b, &c); err != nil {
		return nil, source.Errorf(name, 0, 0, "%s (contractlint reads it for the .proto import roots; pass --proto-path to bypass it)",
			strings.Join(strings.Fields(err.Error()), " "))
	}
	dir := path.Dir(name)
	var out []moduleRoot
	add := func(p string, excludes []string) error {
		r := moduleRoot{dir: path.Join(dir, p)}
		for _, x := range excludes {
			r.excludes = append(r.excludes, path.Join(dir, x))
		}
		for _, d := range append([]string{r.dir}, r.excludes...) {
			if c, err := source.Clean(d); err != nil || c != d {
				return source.Errorf(name, 0, 0, "%q leaves the repository", d)
			}
		}
		out = append(out, r)
		return nil
	}
	var err2 error
	switch {
	case path.Base(name) == "buf.work.yaml":
		for _, d := range c.Directories {
			err2 = errors.Join(err2, add(d, nil))
		}
	case c.Version == "v2":
		for _, m := range c.Modules {
			// v2 paths and excludes are relative to the buf.yaml.
			err2 = errors.Join(err2, add(orDot(m.Path), m.Excludes))
		}
		if len(c.Modules) == 0 {
			err2 = add(".", nil)
		}
	default:
		roots := append(slices.Clone(c.Build.Roots), c.Roots...)
		if len(roots) == 0 {
			roots = []string{"."}
		}
		for _, r := range roots {
			// v1 excludes are relative to the module (the buf.yaml's directory).
			err2 = errors.Join(err2, add(r, c.Build.Excludes))
		}
	}
	return out, err2
}

func orDot(p string) string {
	if p == "" {
		return "."
	}
	return p
}

// importPaths finds a .proto file's imports without compiling it: the
// path each match of `(?m)^\s*import\s+(?:public\s+|weak\s+)?"([^"\n]+)"\s*;`
// names, in order (importRE in the tests), read from where "import"
// stands instead of by the expression, which tries every line start of the
// file: review's history walk finds the roots of many versions of large
// files (in a profile of eight of milvus-proto's reviews, the expression
// took 0.16 s of the 1.71 s their walks read versions in). A match starts
// at a line start, takes white space (line breaks too) up to "import", and
// ends at its ";": an "import" is one when the white space before it holds
// a line start, and what follows it reads as the expression reads it.
func importPaths(b []byte) []string {
	var out []string
	for at := 0; ; {
		i := bytes.Index(b[at:], []byte("import"))
		if i < 0 {
			return out
		}
		i += at
		at = i + len("import")
		if !afterLineStart(b, i) {
			continue
		}
		if imp, end, ok := importAt(b, at); ok {
			out = append(out, imp)
			at = end
		}
	}
}

// reSpace is \s of the expression: not \v.
func reSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }

// afterLineStart reports whether only white space holding a line start
// (a line break, or the text's start) stands before b[i].
func afterLineStart(b []byte, i int) bool {
	for j := i - 1; j >= 0; j-- {
		switch {
		case b[j] == '\n':
			return true
		case !reSpace(b[j]):
			return false
		}
	}
	return true
}

// importAt reads the rest of an import from b[k], just after "import":
// white space, "public" or "weak" and white space, the quoted path, white
// space and ";". end is just after the ";".
func importAt(b []byte, k int) (imp string, end int, ok bool) {
	space := func(k int) int {
		for k < len(b) && reSpace(b[k]) {
			k++
		}
		return k
	}
	if j := space(k); j > k {
		k = j
	} else {
		return "", 0, false
	}
	for _, w := range []string{"public", "weak"} {
		if bytes.HasPrefix(b[k:], []byte(w)) {
			if j := space(k + len(w)); j > k+len(w) {
				k = j
			}
			break
		}
	}
	if k >= len(b) || b[k] != '"' {
		return "", 0, false
	}
	start := k + 1
	k = start
	for k < len(b) && b[k] != '"' && b[k] != '\n' {
		k++
	}
	if k == start || k >= len(b) || b[k] != '"' {
		return "", 0, false
	}
	imp = string(b[start:k])
	if k = space(k + 1); k >= len(b) || b[k] != ';' {
		return "", 0, false
	}
	return imp, k + 1, true
}

// resolvingAncestor is the nearest directory above file from which every
// import of the file (the standard google/protobuf ones aside) exists.
func resolvingAncestor(src source.Source, file string) string {
	own := path.Dir(file)
	b, err := src.ReadFile(file)
	if err != nil {
		return own
	}
	var imports []string
	for _, imp := range importPaths(b) {
		if !strings.HasPrefix(imp, "google/protobuf/") {
			imports = append(imports, imp)
		}
	}
	if len(imports) == 0 {
		return own
	}
	for d := own; ; d = path.Dir(d) {
		if slices.IndexFunc(imports, func(imp string) bool { return !exists(src, path.Join(d, imp)) }) < 0 {
			return d
		}
		if d == "." || d == "/" {
			return own
		}
	}
}

func exists(src source.Source, name string) bool {
	_, err := src.Stat(name)
	return err == nil
}

// DirRoots are the module roots a directory side declares in its own
// buf.work.yaml or buf.yaml (innermost first), and the files of files those
// modules hold, the only ones buf builds. A file is then named by its path
// in its module, so a module moved under roots/ still matches by name.
// No roots (and every file) when the directory declares none.
func DirRoots(src source.Source, dir string, files []string) (roots, held []string, err error) {
	var declared []moduleRoot
	for _, name := range configNames {
		rs, err := readBufConfig(src, path.Join(dir, name))
		if err != nil {
			return nil, nil, err
		}
		declared = append(declared, rs...)
	}
	if len(declared) == 0 {
		return nil, files, nil
	}
	for _, r := range declared {
		if !slices.Contains(roots, r.dir) {
			roots = append(roots, r.dir)
		}
	}
	slices.SortStableFunc(roots, func(a, b string) int { return len(b) - len(a) })
	for _, f := range files {
		if slices.ContainsFunc(declared, func(r moduleRoot) bool { return r.holds(f) }) {
			held = append(held, f)
		}
	}
	return roots, held, nil
}
