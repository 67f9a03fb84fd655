// Package glob matches slash-separated paths against globs in which **
// spans directories: config ignores, contract lists and review's paths.
package glob

import (
	"path"
	"strings"
)

// Match matches a slash-separated path against a glob in which ** spans
// directories and *, ? and [] work as in path.Match.
func Match(glob, name string) bool {
	return matchParts(strings.Split(glob, "/"), strings.Split(name, "/"))
}

func matchParts(g, n []string) bool {
	for len(g) > 0 {
		if g[0] == "**" {
			for i := 0; i <= len(n); i++ {
				if matchParts(g[1:], n[i:]) {
					return true
				}
			}
			return false
		}
		if len(n) == 0 {
			return false
		}
		if ok, _ := path.Match(g[0], n[0]); !ok {
			return false
		}
		g, n = g[1:], n[1:]
	}
	return len(n) == 0
}
