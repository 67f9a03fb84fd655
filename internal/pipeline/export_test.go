package pipeline

import (
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/openapi"
)

// WithLoader is o loading each OpenAPI document with load instead of
// openapi.Load: the tests' reference run shares one whole load of a
// document among every comparison that reads it (see wholeload_test.go).
func WithLoader(o Options, load func(src source.Source, name string, display func(string) string) (*openapi.Doc, error)) Options {
	o.loadDoc = load
	return o
}
