package rules

import "strings"

// PointerSegments splits a JSON pointer ("#/paths/~1v1~1charges/post", the
// Path of an OpenAPI finding) into its unescaped segments.
func PointerSegments(ptr string) []string {
	ptr = strings.TrimPrefix(strings.TrimPrefix(ptr, "#"), "/")
	if ptr == "" {
		return nil
	}
	segs := strings.Split(ptr, "/")
	for i, s := range segs {
		segs[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
	}
	return segs
}
