package lsp

import (
	"strings"
	"testing"

	"github.com/contractlint/contractlint/internal/corpus"
	"github.com/contractlint/contractlint/rules"
)

// BenchmarkPlaces: what the server reads of a buffer to place findings that
// do not place themselves, on real documents: a fresh reader (one edit's),
// a pointer into the last schema's properties and twenty operations' lines
// (the most one diagnostic lists).
func BenchmarkPlaces(b *testing.B) {
	cases := []struct{ name, ptr string }{
		{"stripe-spec3-2023-09-12.yaml", "#/components/schemas/webhook_endpoint/properties/url"},
		{"openai-openapi-855e5d4.yaml", "#/components/schemas/VectorStoreObject/properties/status"},
	}
	for _, c := range cases {
		text := string(corpus.Text(b, c.name))
		ops := operationNames(text, 20)
		b.Run(strings.SplitN(c.name, "-", 2)[0], func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				p := newPlaces(text)
				if _, matched := p.pointer(c.ptr); matched != 5 {
					b.Fatalf("%s: matched %d segments of 5", c.ptr, matched)
				}
				none := span{Start: position{-1, 0}}
				for _, op := range ops {
					if p.operationSpan(rules.OpenAPI, op, none) == none {
						b.Fatalf("%s not placed", op)
					}
				}
			}
		})
	}
}

// operationNames names n operations of a block YAML document the way
// findings do ("GET /v1/charges"): its first n "get" lines under a path.
func operationNames(text string, n int) []string {
	var ops []string
	path := ""
	for l := range strings.Lines(text) {
		switch {
		case strings.HasPrefix(l, "  /") || strings.HasPrefix(l, "  '/") || strings.HasPrefix(l, "  \"/"):
			path = strings.Trim(strings.TrimSpace(l), `:'"`)
		case path != "" && strings.TrimSpace(l) == "get:" && len(ops) < n:
			ops = append(ops, "GET "+path)
		}
	}
	return ops
}
