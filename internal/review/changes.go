package review

import (
	"bytes"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/contractlint/contractlint/internal/glob"
	"github.com/contractlint/contractlint/internal/limits"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/openapi"
)

// Status is what a change did to one file.
type Status byte

const (
	Added    Status = 'A'
	Modified Status = 'M'
	Deleted  Status = 'D'
	Renamed  Status = 'R'
)

// FileChange is one changed file: Old is its name at the base, New in the
// working tree or index ("" for a deletion or an addition respectively).
type FileChange struct {
	Status   Status
	Old, New string
	// Submodule marks a gitlink: a submodule whose commit changed. Its
	// files are another repository's; review names it as not reviewed.
	Submodule bool
	// Also are changed .proto files an unchanged root imports, compared
	// with it (a root reached through $refs needs none: loading it reads them).
	Also []string
}

// changedFiles lists the files that differ between base and the working tree
// (or the index when staged), with git's rename detection. Outside the index,
// files git does not track yet count as added: a new contract is reviewed
// before anyone remembers to `git add` it; files, when given, lists them.
func (r *Repo) changedFiles(dir, base string, staged bool, files *source.Listing) ([]FileChange, error) {
	revs := []string{base}
	if staged {
		revs = []string{"--cached", base}
	}
	changes, err := gitDiff(dir, revs...)
	if err != nil {
		return nil, err
	}
	if staged {
		return changes, nil
	}
	var untracked []string
	if files != nil {
		untracked = files.Untracked
	} else {
		out, err := source.RunGit(dir, "ls-files", "--others", "--exclude-standard", "--full-name", "-z", "--", ":/")
		if err != nil {
			return nil, err
		}
		untracked = source.SplitZ(out)
	}
	for _, name := range untracked {
		changes = append(changes, FileChange{Status: Added, New: name})
	}
	return changes, nil
}

// gitDiff lists the changes git diff reports for revs, over the whole tree:
// a rename is only detected when git sees both of its sides, and a root is
// compared when a file it reaches changed, wherever that file is.
func gitDiff(dir string, revs ...string) ([]FileChange, error) {
	// --raw gives the file modes too: a submodule is mode 160000.
	args := []string{"diff", "--raw", "-z", "--find-renames", "--no-ext-diff", "--no-textconv"}
	out, err := source.RunGit(dir, append(append(args, revs...), "--")...)
	if err != nil {
		return nil, err
	}
	return parseNameStatus(source.SplitZ(out))
}

// repoPaths makes the path arguments (relative to dir) relative to the
// top; nil for none. Opening the repository from dir read dir's prefix.
func (r *Repo) repoPaths(dir string, paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	prefix := r.prefix
	if dir != r.dir {
		out, err := source.RunGit(dir, "rev-parse", "--show-prefix")
		if err != nil {
			return nil, err
		}
		prefix = strings.TrimSpace(string(out))
	}
	var roots []string
	for _, p := range paths {
		roots = append(roots, path.Join(prefix, filepath.ToSlash(p)))
	}
	return roots, nil
}

// pathFilter returns whether a repository-relative name is one of roots
// (the path arguments, see repoPaths) or inside one; with none, every name is.
func pathFilter(roots []string) func(string) bool {
	if len(roots) == 0 {
		return func(string) bool { return true }
	}
	return func(name string) bool { return under(name, roots) }
}

// under reports whether name is one of roots or inside one of them.
func under(name string, roots []string) bool {
	return name != "" && slices.ContainsFunc(roots, func(r string) bool {
		return r == "." || name == r || strings.HasPrefix(name, r+"/")
	})
}

// parseNameStatus reads `git diff --name-status -z`: a status, then one name,
// or two for a rename or copy; or `git diff --raw -z`, whose status comes
// after the modes and object ids (":100644 100644 abc def M").
func parseNameStatus(f []string) ([]FileChange, error) {
	var out []FileChange
	for i := 0; i < len(f); {
		st := f[i]
		i++
		gitlink := false
		if meta, ok := strings.CutPrefix(st, ":"); ok {
			fields := strings.Fields(meta)
			if len(fields) != 5 {
				return nil, fmt.Errorf("git diff: unexpected output near %q", st)
			}
			gitlink = fields[0] == "160000" || fields[1] == "160000"
			st = fields[4]
		}
		need := 1
		if st != "" && (st[0] == 'R' || st[0] == 'C') {
			need = 2
		}
		if st == "" || i+need > len(f) {
			return nil, fmt.Errorf("git diff: unexpected output near %q", st)
		}
		names := f[i : i+need]
		i += need
		if gitlink {
			out = append(out, FileChange{Status: Modified, Old: names[0], New: names[len(names)-1], Submodule: true})
			continue
		}
		switch st[0] {
		case 'A':
			out = append(out, FileChange{Status: Added, New: names[0]})
		case 'D':
			out = append(out, FileChange{Status: Deleted, Old: names[0]})
		case 'M', 'T':
			out = append(out, FileChange{Status: Modified, Old: names[0], New: names[0]})
		case 'R':
			out = append(out, FileChange{Status: Renamed, Old: names[0], New: names[1]})
		case 'C':
			out = append(out, FileChange{Status: Added, New: names[1]})
		}
	}
	return out, nil
}

// isContract decides whether a file review should compare: it matches one
// of the globs and is a .proto file or an OpenAPI document (a YAML or JSON
// file whose top level has `openapi:`; other YAML is not a contract).
//
// Deciding is bounded, since any file may be a YAML or JSON data file of
// any size: one larger than the file-size limit is told by its first
// sniffPrefix bytes (a contract is then refused, located, by the load),
// one larger than sniffParse by a scan for a top-level key, and only a
// small one is parsed, as the loader would.
func isContract(src source.Source, name string, globs []string) bool {
	return isContractWithin(src, name, globs, limits.Limits{})
}

// isContractWithin is isContract under the limits l (--max-file-size).
func isContractWithin(src source.Source, name string, globs []string, l limits.Limits) bool {
	if !selects(globs, name) {
		return false
	}
	switch strings.ToLower(path.Ext(name)) {
	case ".proto":
		return true
	case ".yaml", ".yml", ".json":
		return sniff(src, name, l.OrDefault().FileSize)
	}
	return false
}

const (
	// sniffPrefix is what is read of a file over the size limit.
	sniffPrefix = 64 << 10
	// sniffParse is the size up to which a file is parsed to tell.
	sniffParse = 256 << 10
)

// sniff tells whether a YAML or JSON file is an OpenAPI document.
func sniff(src source.Source, name string, max int64) bool {
	fi, err := src.Stat(name)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	if fi.Size() > max {
		b, err := source.ReadPrefix(src, name, sniffPrefix)
		return err == nil && (openapiKeyRE.Match(b) || topKeyRE.Match(b) || bytes.Contains(b, componentsRef))
	}
	b, err := source.ReadFileMax(src, name, max)
	switch {
	case err != nil:
		return false
	case len(b) <= sniffParse:
		return hasOpenAPIKey(b)
	}
	return openapiKeyRE.Match(b) || topKeyRE.Match(b) || jsonTopKey(b, "openapi")
}

// componentsRef starts a $ref into an OpenAPI document's components: what
// a prefix of one whose keys are sorted ("components" before "openapi")
// shows first.
var componentsRef = []byte("#/components/")

// topKeyRE is a block YAML document's top-level openapi key: at a line's
// start, where no nested key or continued scalar can be.
var topKeyRE = regexp.MustCompile(`(?m)^["']?openapi["']?[ \t]*:`)

// jsonTopKey reports whether a JSON document's top-level object has key,
// scanning its bytes once without building any value.
func jsonTopKey(b []byte, key string) bool {
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case '"':
			end := i + 1
			for end < len(b) && b[end] != '"' {
				if b[end] == '\\' {
					end++
				}
				end++
			}
			if end >= len(b) {
				return false
			}
			if depth == 1 && string(b[i+1:end]) == key && isKey(b[end+1:]) {
				return true
			}
			i = end
		}
	}
	return false
}

// isKey reports whether what follows a string makes it a key: a colon.
func isKey(rest []byte) bool {
	rest = bytes.TrimLeft(rest, " \t\r\n")
	return len(rest) > 0 && rest[0] == ':'
}

// selects reports whether one of globs matches name, its extension's case
// aside: API.YAML and T.PROTO are contracts as api.yaml and t.proto are,
// on the file systems (macOS, Windows) most of them are written on.
func selects(globs []string, name string) bool {
	lower := strings.TrimSuffix(name, path.Ext(name)) + strings.ToLower(path.Ext(name))
	return slices.ContainsFunc(globs, func(g string) bool { return glob.Match(g, name) || glob.Match(g, lower) })
}

// hasOpenAPIKey reports whether a YAML (or JSON) document's top level is a
// mapping with an `openapi` key, read as the loader reads it. A document
// that does not parse but starts like one is a contract too: loading it
// reports why it cannot be read, where skipping it would pass in silence.
func hasOpenAPIKey(b []byte) bool {
	if doc := openapi.Parse(b); doc != nil {
		return lookup(doc, "openapi") != nil
	}
	return openapiKeyRE.Match(b)
}

// openapiKeyRE is a first key `openapi` in YAML or JSON, after comments.
var openapiKeyRE = regexp.MustCompile(`\A(?:\xef\xbb\xbf)?(?:\s*#[^\n]*\n|\s)*\{?\s*["']?openapi["']?\s*:`)
