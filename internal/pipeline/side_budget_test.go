package pipeline_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/contractlint/contractlint/internal/limits"
	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/rules"
)

// protoSide is files .proto files of about per elements each, every one in
// its own package so that together they compile.
func protoSide(files, per int) map[string]string {
	out := map[string]string{}
	for i := range files {
		out[fmt.Sprintf("p%d.proto", i)] = strings.Replace(protoFile(per), "package big.v1;", fmt.Sprintf("package side%d.v1;", i), 1)
	}
	return out
}

// openapiSide is a root document whose operations each answer with a schema
// $ref'd from one of files other documents, each of about per elements.
func openapiSide(files, per int) map[string]string {
	out := map[string]string{}
	var paths strings.Builder
	for i := range files {
		var schemas strings.Builder
		for j := 0; j*16 < per; j++ {
			fmt.Fprintf(&schemas, "    Item%d:\n      type: object\n      required: [id]\n      properties:\n        id: {type: string, maxLength: 64}\n        name: {type: string}\n        price_cents: {type: integer, minimum: 0}\n        tags: {type: array, items: {type: string}}\n", j)
			if j%10 == 0 {
				fmt.Fprintf(&paths, "  /p%d/items%d:\n    get:\n      responses:\n        \"200\":\n          description: the item\n          content:\n            application/json:\n              schema: {$ref: \"part%d.yaml#/components/schemas/Item%d\"}\n", i, j, i, j)
			}
		}
		out[fmt.Sprintf("part%d.yaml", i)] = good[:len(good)-len("paths: {}\n")] + "paths: {}\ncomponents:\n  schemas:\n" + schemas.String()
	}
	out["root.yaml"] = good[:len(good)-len("paths: {}\n")] + "paths:\n" + paths.String()
	return out
}

// sideAlloc loads one side made of files (its first name sorted is the
// root for OpenAPI; every .proto file is listed) and returns the bytes
// allocated and the elements its guard counts.
func sideAlloc(t *testing.T, files map[string]string, l limits.Limits) (alloc uint64, elements int, err error) {
	t.Helper()
	side := pipeline.Side{Files: []string{"root.yaml"}}
	if _, ok := files["root.yaml"]; !ok {
		side.Files = nil
	}
	for name, text := range files {
		if strings.HasSuffix(name, ".proto") {
			_, n := limits.ProtoScan([]byte(text), limits.DefaultDepth)
			elements += n
			side.Files = append(side.Files, name)
		} else {
			elements += limits.Scan([]byte(text), limits.DefaultDepth, 1<<30).Elements
		}
	}
	side.Src, _ = hostileRepo(t, files)
	alloc = allocated(func() {
		_, err = pipeline.Load(side, pipeline.Options{Registry: rules.Default(), Settings: &rules.Settings{}, Limits: l})
	})
	return alloc, elements, err
}

// TestSideBudget: at the default limits, loading one whole side (many
// files, each within the per-file limits, their total within
// --max-total-elements) allocates under limits.SideBudget, counted in bytes
// allocated, never in time. Each kind of side is loaded at two sizes (twice
// the files); the cost per element must not grow by more than 15 %, and the
// cost per element times the default total must fit the budget. A side
// that crosses the total is refused before it costs more than the total
// allows.
func TestSideBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("loads sides of 24,000 to 48,000 elements; skipped with -short")
	}
	for _, c := range []struct {
		name string
		make func(files, per int) map[string]string
	}{
		{"proto tree", protoSide},
		{"openapi with $refs", openapiSide},
	} {
		t.Run(c.name, func(t *testing.T) {
			a1, e1, err1 := sideAlloc(t, c.make(4, 6000), limits.Limits{})
			a2, e2, err2 := sideAlloc(t, c.make(8, 6000), limits.Limits{})
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			per1, per2 := float64(a1)/float64(e1), float64(a2)/float64(e2)
			atLimit := per2 * limits.DefaultTotalElements
			t.Logf("%d elements: %.0f B each; %d: %.0f B each (x%.2f); at the side limit of %d: %.0f MiB of the %d MiB budget",
				e1, per1, e2, per2, per2/per1, limits.DefaultTotalElements, atLimit/(1<<20), limits.SideBudget>>20)
			if per2 > 1.15*per1 {
				t.Errorf("the cost per element grew x%.2f when the side doubled: loading a side is not linear", per2/per1)
			}
			if atLimit > limits.SideBudget {
				t.Errorf("at the default side limit of %d elements loading would allocate %.0f MiB, over the %d MiB budget",
					limits.DefaultTotalElements, atLimit/(1<<20), limits.SideBudget>>20)
			}
			// The larger side with the total set to a quarter of it: refused,
			// naming the flag, having spent at most what a quarter costs.
			quarter := e2 / 4
			a, _, err := sideAlloc(t, c.make(8, 6000), limits.Limits{TotalElements: quarter})
			if err == nil || !strings.Contains(err.Error(), limits.TotalFlag) {
				t.Fatalf("a side over --max-total-elements: got %v, want a refusal naming %s", err, limits.TotalFlag)
			}
			if bound := 1.15*per2*float64(quarter) + 8<<20; float64(a) > bound {
				t.Errorf("refusing the side allocated %.0f MiB, more than the %.0f MiB its %d accepted elements cost", float64(a)/(1<<20), bound/(1<<20), quarter)
			}
		})
	}
}
