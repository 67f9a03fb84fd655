package review

import (
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v4"

	"github.com/contractlint/contractlint/internal/par"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/openapi"
	"github.com/contractlint/contractlint/protobuf"
)

// graph is what one side's contracts reach: for each file read, the files
// it names ($ref targets, imports). It reads no file twice and parses only
// what a root reaches, so a review of a repository of contracts costs one
// YAML parse per contract.
type graph struct {
	src        source.Source
	protoPaths []string
	edges      map[string][]string
	// links are the symbolic links a file's names pass through: a change
	// that only re-points one changes what the file reaches.
	links map[string][]linkedName
	// exists remembers which import candidates are files: most .proto
	// files of a tree import the same few, and each Stat is a system call.
	exists map[string]bool
	mu     sync.Mutex // prefetch fills edges and exists on every core
}

func newGraph(src source.Source, protoPaths []string) *graph {
	return &graph{src: src, protoPaths: protoPaths, edges: map[string][]string{}, links: map[string][]linkedName{}, exists: map[string]bool{}}
}

// reaches lists the targets root reaches, itself excepted, in the order
// found.
func (g *graph) reaches(root string, targets map[string]bool) []string {
	return g.reachesIf(root, func(n string) bool { return targets[n] })
}

// reachesIf lists the files root reaches for which target holds, itself
// excepted, in the order found.
func (g *graph) reachesIf(root string, target func(string) bool) []string {
	seen := map[string]bool{root: true}
	queue := []string{root}
	var out []string
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		next, links := g.namesVia(name)
		for _, l := range links {
			// The name as written is reached when its link changed: it is
			// the one name both sides have for what the link leads to.
			if target(l.link) && !seen[l.name] {
				seen[l.name] = true
				out = append(out, l.name)
			}
		}
		for _, next := range next {
			if target(next) && !seen[next] {
				out = append(out, importedAs(next, links))
			}
			if !seen[next] {
				seen[next] = true
				queue = append(queue, next)
			}
		}
	}
	return out
}

// names lists the files name refers to directly; a file that cannot be
// read or parsed names none (loading it reports the problem).
func (g *graph) names(name string) []string {
	out, _ := g.namesVia(name)
	return out
}

// linkedName is a name as a file wrote it, a symbolic link on its way and
// the file it leads to.
type linkedName struct{ name, link, real string }

// importedAs is the name a .proto file reached through a link was imported
// by: the compiler knows it by that name, so a compare that adds it under
// the name it has behind the link would declare its symbols twice. Any
// other file is known by its own name.
func importedAs(real string, links []linkedName) string {
	if !isProto(real) {
		return real
	}
	for _, l := range links {
		if l.real == real {
			return l.name
		}
	}
	return real
}

// namesVia is names, with the symbolic links those names pass through.
func (g *graph) namesVia(name string) (out []string, links []linkedName) {
	g.mu.Lock()
	out, ok := g.edges[name]
	links = g.links[name]
	g.mu.Unlock()
	if ok {
		return out, links
	}
	if b, err := g.src.ReadFile(name); err == nil {
		if isProto(name) {
			out = g.imports(name, b)
		} else {
			out = refTargets(name, b)
		}
	}
	// A file is known by the name git lists it under: a $ref or import
	// through a symbolic link reaches the change to the file it names.
	for i, n := range out {
		if real, err := source.Resolve(g.src, n); err == nil && real != n {
			for _, l := range linksOn(g.src, n) {
				links = append(links, linkedName{name: n, link: l, real: real})
			}
			out[i] = real
		}
	}
	g.mu.Lock()
	g.edges[name], g.links[name] = out, links
	g.mu.Unlock()
	return out, links
}

// linksOn lists the symbolic links name passes through, each by the name
// git lists it under: the first on the way, then any its target leads to.
func linksOn(src source.Source, name string) []string {
	var links []string
	cur := "."
	for comp := range strings.SplitSeq(name, "/") {
		next := path.Join(cur, comp)
		real, err := source.Resolve(src, next)
		if err != nil {
			break
		}
		if real != next {
			links = append(links, next)
		}
		cur = real
	}
	return links
}

// prefetch reads the files names refer to on every core: a review of a
// large tree reads every contract in it, and reading is most of that.
func (g *graph) prefetch(names []string) {
	par.Each(len(names), func(i int) { g.names(names[i]) })
}

var importRE = regexp.MustCompile(`(?m)^\s*import\s+(?:public\s+|weak\s+)?"([^"]+)"\s*;`)

// imports resolves a .proto file's imports against the directories the
// compiler may search: the file's own, the --proto-path roots and the top.
// Every candidate that exists counts: reaching too much only compares a
// contract more.
func (g *graph) imports(name string, b []byte) []string {
	names, _, ok := protobuf.Scan(b)
	if !ok {
		// An import the scan cannot read for sure: the pattern still finds
		// every plain one, and reaching too much is safe.
		for _, m := range importRE.FindAllSubmatch(b, -1) {
			names = append(names, string(m[1]))
		}
	}
	var out []string
	for _, imp := range names {
		for _, dir := range append([]string{path.Dir(name), "."}, g.protoPaths...) {
			c, err := source.Clean(path.Join(dir, imp))
			if err == nil && g.isFile(c) && !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	return out
}

func (g *graph) isFile(name string) bool {
	g.mu.Lock()
	ok, seen := g.exists[name]
	g.mu.Unlock()
	if !seen {
		_, err := g.src.Stat(name)
		ok = err == nil
		g.mu.Lock()
		g.exists[name] = ok
		g.mu.Unlock()
	}
	return ok
}

// refTargets lists the files a YAML or JSON document's $refs name, relative
// to the document; a remote or in-document $ref names none. Aliases are not
// followed, so a document cannot make this walk grow past its own size.
func refTargets(name string, b []byte) []string {
	doc := openapi.Parse(b)
	if doc == nil {
		return refTargetsScan(name, b)
	}
	var out []string
	stack := []*yaml.Node{doc}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				if k.Value == "$ref" && v.Kind == yaml.ScalarNode {
					if t, ok := refFile(name, v.Value); ok && !slices.Contains(out, t) {
						out = append(out, t)
					}
				}
			}
		}
		if n.Kind != yaml.AliasNode {
			stack = append(stack, n.Content...)
		}
	}
	return out
}

// refTargetsScan finds the $refs of a document no parser reads: loading it
// fails anyway, and naming too many files only compares a contract more.
func refTargetsScan(name string, b []byte) []string {
	var out []string
	for _, ref := range refRE.FindAllSubmatch(b, -1) {
		if t, ok := refFile(name, string(ref[1])+string(ref[2])+string(ref[3])); ok && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

var refRE = regexp.MustCompile(`["']?\$ref["']?\s*:\s*(?:"([^"]*)"|'([^']*)'|([^\s,{}\[\]'"#]+))`)

// refFile is the repository-relative file a $ref in name points into, read
// as the loader reads it: a URI reference, so percent-escapes are decoded
// and a query is no part of the file's name.
func refFile(name, ref string) (string, bool) {
	u, err := url.Parse(ref)
	if err != nil || u.Scheme != "" || u.Host != "" || u.Opaque != "" || u.Path == "" {
		return "", false
	}
	c, err := source.Clean(path.Join(path.Dir(name), u.Path))
	return c, err == nil
}
