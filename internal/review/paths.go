package review

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/contractlint/contractlint/internal/glob"
	"github.com/contractlint/contractlint/internal/source"
)

// checkPaths refuses a path argument that names nothing in the working
// tree, the index or the base: a typo must not pass as "nothing changed".
// rels are the paths relative to the top (repoPaths).
func (r *Repo) checkPaths(dir string, paths, rels []string, base source.Source) error {
	for i, p := range paths {
		if _, err := os.Lstat(filepath.Join(dir, p)); err == nil {
			continue
		}
		rel := rels[i]
		if _, err := base.Stat(rel); err == nil {
			continue
		}
		if _, err := r.git("ls-files", "--error-unmatch", "--", ":/"+rel); err == nil {
			continue
		}
		return fmt.Errorf("path %q matches no file in the working tree, the index or the base", p)
	}
	return nil
}

// checkGlobs refuses a configured contracts glob that matches no file on
// either side: a misspelt directory would otherwise select nothing, silently.
// files, when given, lists the working tree.
func (r *Repo) checkGlobs(globs []string, from, base string, files *source.Listing) error {
	if from == "" {
		return nil // the built-in globs may well match nothing
	}
	var names []string
	if files != nil {
		names = slices.Clone(files.Names)
	} else {
		head, err := r.git("ls-files", "-z", "--cached", "--others", "--exclude-standard")
		if err != nil {
			return err
		}
		names = source.SplitZ(head)
	}
	if base != source.EmptyTree {
		old, err := r.git("ls-tree", "-r", "-z", "--name-only", "--end-of-options", base)
		if err != nil {
			return err
		}
		names = append(names, source.SplitZ(old)...)
	}
	for _, g := range globs {
		if !slices.ContainsFunc(names, func(n string) bool { return glob.Match(g, n) }) {
			return fmt.Errorf("%s: contracts glob %q matches no file in the working tree, the index or the base", from, g)
		}
	}
	return nil
}
