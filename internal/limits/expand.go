package limits

import (
	"bytes"

	"github.com/contractlint/contractlint/internal/places"
)

// mayAlias tells whether YAML text may hold an anchor (&name) where a node
// begins: without one there is nothing to alias, and Scan's count is all
// that will be built. A false positive (an "&x" inside a quoted string)
// only costs a parse.
func mayAlias(b []byte) bool {
	for i := bytes.IndexByte(b, '&'); i >= 0; {
		if i+1 < len(b) && !isBlank(b[i+1]) && (i == 0 || isBlank(b[i-1]) || bytes.IndexByte([]byte("[{,:-?!"), b[i-1]) >= 0) {
			return true
		}
		j := bytes.IndexByte(b[i+1:], '&')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// Expanded counts the elements (mapping keys and list items) of every YAML
// document in b as a decoder builds them, with each alias expanded to its
// anchor's content, stopping once the count passes limit (see
// places.Doc.Elements). line is where the count passed the limit, 0 when it
// did not. Text without an anchor, or that the YAML parser refuses, counts
// 0 here: Scan's count holds for it, and the loader reports errors.
func Expanded(b []byte, limit int) (count, line int) {
	if !mayAlias(b) {
		return 0, 0
	}
	d, err := places.Read(b)
	if err != nil {
		return 0, 0
	}
	return d.Elements(limit)
}
