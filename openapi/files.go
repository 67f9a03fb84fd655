package openapi

import (
	"regexp"
	"strconv"
	"strings"
)

// A split spec's root is mostly $refs to other files (`/v1/charges: {$ref:
// paths/v1_charges.yaml}`), so a one-file change in a tree of hundreds loads
// and diffs everything unless the subset load reaches into files. PlanFiles
// is PlanSubset for such a root: the root is cut into the same chunks, and a
// chunk also counts as changed when a file it reaches (through $refs,
// transitively) differs between the sides; a $ref those files make back into
// the root keeps the chunk it names. Files no kept chunk reaches are never
// read by the loader, so never parsed.

// FileReach answers, for one side, what the $refs to other files written in
// text, one chunk of the root, reach: whether a file among them (transitively) differs
// from the other side, and the pointers into the root those files $ref. ok
// is false when it cannot tell (a file that does not read, a $ref it cannot
// follow): the whole documents are then loaded.
type FileReach func(old bool, text []byte) (dirty bool, back []string, ok bool)

// fileRefRE finds a $ref key whose value names another file (not `#...`).
var fileRefRE = regexp.MustCompile(`\$ref(["']?[ \t]*:[ \t]*["']?)[^#\s"'>|]`)

// mask hides the $refs to other files from the cutter, which follows only
// $refs within the document: `$ref` becomes `xref`, of the same length, so
// every line and column stays where it was.
func mask(b []byte) []byte {
	return fileRefRE.ReplaceAllFunc(b, func(m []byte) []byte {
		out := append([]byte(nil), m...)
		out[0] = 'x'
		return out
	})
}

// PlanFiles plans a subset load of two roots that $ref other files; ok is
// why it is not when the roots are not of the plain block style PlanSubset
// is sure of, reach cannot tell, or nothing would be left out.
func PlanFiles(old, new []byte, reach FileReach) (*Subset, *NoPlan) {
	o, n, owhy, why := cutPair(mask(old), mask(new))
	if owhy != nil {
		return nil, owhy
	}
	if why != nil {
		return nil, why.onSide(true) // cutPair compared the headers too
	}
	// The masked texts are the same length as the real ones, line by line:
	// the chunks' spans hold for both.
	// The text outside the chunks is kept, with all it reaches: a file it
	// $refs is loaded on both sides and compared whole.
	o.src, n.src = old, new
	more := map[string][]string{}
	dirty := map[string]bool{}
	for _, side := range []struct {
		d   *pieces
		old bool
	}{{o, true}, {n, false}} {
		for p, c := range side.d.chunks {
			text := side.d.text(c)
			if !fileRefRE.Match(text) {
				continue
			}
			changed, back, ok := reach(side.old, text)
			if !ok {
				return nil, &NoPlan{Reason: "a $ref into another file whose reach is not read, in " + strconv.QuoteToASCII(p), New: !side.old}
			}
			dirty[p] = dirty[p] || changed
			for _, b := range back {
				more[p] = append(more[p], chunkOf(b))
			}
		}
	}
	keep, whole, changed := plan(o, n, more, func(p string) bool { return dirty[p] })
	s, ok := subset(o, n, keep, whole, changed, false)
	if !ok {
		return nil, &NoPlan{Reason: "every chunk of the root is changed or reaches a change"}
	}
	s.files = true
	return s, nil
}

// chunkOf is the chunk a pointer into the root lands in: a paths entry or a
// component ("#/components/schemas/charge/properties/id" is in
// "#/components/schemas/charge").
func chunkOf(ptr string) string {
	parts := strings.SplitN(strings.TrimPrefix(ptr, "#/"), "/", 4)
	switch {
	case len(parts) >= 2 && parts[0] == "paths":
		return "#/paths/" + parts[1]
	case len(parts) >= 3 && parts[0] == "components":
		return "#/components/" + parts[1] + "/" + parts[2]
	}
	return ptr
}
