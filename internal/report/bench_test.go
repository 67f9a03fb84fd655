package report

import (
	"fmt"
	"io"
	"testing"

	"github.com/contractlint/contractlint/rules"
)

// BenchmarkFormats renders 25,000 findings (code scanning's per-run limit,
// far beyond a real diff) in every format.
func BenchmarkFormats(b *testing.B) {
	var fs []rules.Finding
	for i := range 25000 {
		fs = append(fs, rules.Finding{Rule: "enum-value-added", Severity: rules.Severity(i%3 + 1),
			Message: fmt.Sprintf("status gained the value %q", fmt.Sprint(i)), Path: fmt.Sprint("#/x/", i),
			Where: rules.Location{File: fmt.Sprintf("api/f%d.yaml", i%7), Line: i + 1, Column: 3}})
	}
	rules.SortFindings(fs)
	for _, format := range Formats() {
		b.Run(format, func(b *testing.B) {
			rep, err := New(format, Options{Getenv: noEnv})
			if err != nil {
				b.Fatal(err)
			}
			r := &Report{Findings: fs}
			for b.Loop() {
				if err := rep.Write(io.Discard, r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
