package openapi

import (
	"net/url"
	"sort"
)

// A plan's fragment is parsed with its left-out chunks' lines removed, not
// kept as empty lines: kin-openapi's origin index takes every line of the
// text it parses, one by one, and walks each run of empty lines again for
// every node that ends before one, so a fragment holding a tenth of a
// document paid for all of it. Its places are moved back to the
// document's lines when they are reported (Doc.Loc).

// lineMap takes a line of a compacted text back to the document's.
type lineMap struct{ segs []lineSeg }

// lineSeg: from the compacted text's 1-based line from on, each line is by
// lines further down in the document.
type lineSeg struct{ from, by int }

// add records that the compacted text's line at is the document's line
// orig.
func (m *lineMap) add(at, orig int) {
	if n := len(m.segs); n > 0 && m.segs[n-1].by == orig-at || n == 0 && orig == at {
		return
	}
	m.segs = append(m.segs, lineSeg{from: at, by: orig - at})
}

// line is the document's line of the compacted text's line l.
func (m *lineMap) line(l int) int {
	i := sort.Search(len(m.segs), func(i int) bool { return m.segs[i].from > l }) - 1
	if i < 0 {
		return l
	}
	return l + m.segs[i].by
}

// lineMaps are the compacted texts a model was parsed from, by the name its
// places carry (a Location's File): each text is parsed under a name of
// its own (partName).
type lineMaps map[string]*lineMap

// partName is the name a compacted text is parsed under: the document's,
// with a query telling its places from those of the model's other parts.
func partName(name, query string) *url.URL {
	return &url.URL{Path: name, RawQuery: query}
}

// union is a map of every text m and o map, neither changed.
func (m lineMaps) union(o lineMaps) lineMaps {
	out := make(lineMaps, len(m)+len(o))
	for _, from := range []lineMaps{m, o} {
		for k, v := range from {
			out[k] = v
		}
	}
	return out
}

// mapOf is the maps of one compacted text parsed under at.
func mapOf(at *url.URL, lm *lineMap) lineMaps {
	return lineMaps{at.String(): lm}
}
