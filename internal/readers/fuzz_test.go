package readers_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/contractlint/contractlint/internal/readers"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

// FuzzParse feeds mutated Pact, usage and traffic files (HAR, OTLP, access
// logs; JSON, and CSV when csv is
// set) to the parser, then binds what it read to a contract. Whatever the
// bytes, the result is entries or an input error naming the file; never a
// panic. Seeds are every evidence file in testdata.
func FuzzParse(f *testing.F) {
	var files []string
	for _, glob := range []string{"testdata/*.json", "testdata/*.csv", "testdata/same/*", "../../testdata/story/*/*.json", "../../testdata/rules/*/*/readers/*"} {
		m, _ := filepath.Glob(glob)
		files = append(files, m...)
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, filepath.Ext(name) == ".csv")
	}
	c := contract()
	f.Fuzz(func(t *testing.T, data []byte, csv bool) {
		name := "evidence.json"
		if csv {
			name = "evidence.csv"
		}
		es, err := readers.Parse(name, data, func(string) {})
		if err != nil {
			if !source.Named(err) {
				t.Fatalf("error is not an input error naming its file: %T %v", err, err)
			}
			return
		}
		s := &readers.Set{Entries: es, Window: readers.DefaultWindow, Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
		for _, format := range []rules.Format{rules.OpenAPI, rules.Proto} {
			if _, err := s.Bind(format, c); err != nil && !source.Named(err) {
				t.Fatalf("bind: error is not an input error naming its file: %T %v", err, err)
			}
		}
	})
}
