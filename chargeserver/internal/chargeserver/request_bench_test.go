package chargeserver

import (
	"strings"
	"testing"
	"time"

	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/idem"
)

// BenchmarkTextChecks reports what the checks run before parsing (UTF-8,
// duplicate members, lone surrogates) cost on every request, as a ratio to
// the parse itself, on an ordinary charge and on 60 KiB bodies built to make
// the walk work hard (deep nesting, many members, many escapes).
//
//	go test ./internal/chargeserver -run '^$' -bench TextChecks
func BenchmarkTextChecks(b *testing.B) {
	members := make([]string, 0, 6000)
	for i := range 6000 {
		members = append(members, `"m`+strings.Repeat("x", i%7)+string(rune('a'+i%26))+`":`+string(rune('0'+i%10)))
	}
	bodies := []struct{ name, body string }{
		{"charge", okBody},
		{"nested-60KiB", strings.Repeat("[", 30000) + strings.Repeat("]", 30000)},
		{"members-60KiB", "{" + strings.Join(members, ",") + "}"},
		{"escapes-60KiB", `{"description":"` + strings.Repeat(`\ud83d\ude00\u00e9`, 3400) + `"}`},
	}
	for _, bb := range bodies {
		body := []byte(bb.body)
		b.Run(bb.name, func(b *testing.B) {
			t0 := time.Now()
			for range b.N {
				_, _ = idem.Parse(body)
			}
			t1 := time.Now()
			for range b.N {
				_ = textProblem(body)
			}
			t2 := time.Now()
			b.ReportMetric(float64(t2.Sub(t1))/float64(t1.Sub(t0)), "check/parse")
		})
	}
}
