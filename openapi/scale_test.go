package openapi_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractlint/contractlint/internal/engine"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/openapi"
	"github.com/contractlint/contractlint/rules"
)

// synthetic writes a contract with n operations, each with its own request
// and response schema and all sharing one component; changed alters one
// property of the shared component and one of every hundredth operation.
func synthetic(n int, changed bool) string {
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: synthetic, version: \"1\"}\npaths:\n")
	for i := range n {
		limit := 100
		if changed && i%100 == 0 {
			limit = 50
		}
		fmt.Fprintf(&b, `  /things%d/{id}:
    put:
      operationId: putThing%d
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                name: {type: string, maxLength: %d}
                owner: {$ref: "#/components/schemas/Owner"}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Owner"}
`, i, i, limit)
	}
	unit := "number"
	if changed {
		unit = "integer"
	}
	fmt.Fprintf(&b, `components:
  schemas:
    Owner:
      type: object
      properties:
        id: {type: string}
        balance: {type: %s}
`, unit)
	return b.String()
}

// BenchmarkScale diffs synthetic contracts of growing size: time and memory
// per operation should stay flat (linear growth), with the diff a small
// fraction of the load.
func BenchmarkScale(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		b.Run(fmt.Sprintf("ops=%d", n), func(b *testing.B) {
			if n > 10_000 && testing.Short() {
				b.Skip("large case skipped in -short mode")
			}
			dir := b.TempDir()
			for name, changed := range map[string]bool{"old.yaml": false, "new.yaml": true} {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(synthetic(n, changed)), 0o644); err != nil {
					b.Fatal(err)
				}
			}
			src, err := source.OpenDir(dir)
			if err != nil {
				b.Fatal(err)
			}
			reg := rules.Default()
			b.ReportAllocs()
			var found int
			for b.Loop() {
				od, nd := loadPair(b, src, "old.yaml", "new.yaml")
				in := &rules.Input{Changes: openapi.Diff(od, nd), Old: od.Contract(), New: nd.Contract()}
				found = len(engine.Run(reg, &rules.Settings{}, rules.DiffRule, in))
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(n), "µs/operation")
			b.ReportMetric(float64(found), "findings")
		})
	}
}
