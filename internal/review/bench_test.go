package review

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/internal/source"
)

// benchRepo is a repository of 50 contracts (25 OpenAPI roots, each with a
// $ref'd schema file, and 25 .proto files) and a three-commit pull request
// that changes three schemas and three .proto files.
func benchRepo(b *testing.B) (*testRepo, []FileChange) {
	r := newRepo(b, "main")
	for i := range 25 {
		var props, fields, routes strings.Builder
		for j := range 30 {
			fmt.Fprintf(&props, "  f%d: {type: string}\n", j)
			fmt.Fprintf(&fields, "  string f%d = %d;\n", j, j+1)
		}
		for k := range 10 {
			fmt.Fprintf(&routes, "  /r%d/%d:\n    get:\n      responses:\n        \"200\":\n          description: ok\n"+
				"          content:\n            application/json:\n              schema: {$ref: \"../schemas/s%d.yaml\"}\n", i, k, i)
		}
		r.write(fmt.Sprintf("schemas/s%d.yaml", i), "type: object\nproperties:\n"+props.String())
		r.write(fmt.Sprintf("api/a%d.yaml", i), fmt.Sprintf("openapi: 3.0.3\ninfo: {title: a%d, version: \"1\"}\npaths:\n%s", i, routes.String()))
		r.write(fmt.Sprintf("proto/p%d.proto", i), fmt.Sprintf("syntax = \"proto3\";\npackage p%d;\nmessage M {\n%s}\n", i, fields.String()))
	}
	r.commit("base")
	r.newBranch("pr")
	var compared []FileChange
	for i := 1; i <= 3; i++ {
		s, p := fmt.Sprintf("schemas/s%d.yaml", i), fmt.Sprintf("proto/p%d.proto", i)
		r.write(s, strings.Replace(gitIn(b, r.top, "show", "HEAD:"+s)+"\n", fmt.Sprintf("f%d: {type: string}", i), fmt.Sprintf("f%d: {type: integer}", i), 1))
		r.write(p, strings.Replace(gitIn(b, r.top, "show", "HEAD:"+p)+"\n", fmt.Sprintf("string f%d =", i), fmt.Sprintf("int64 f%d =", i), 1))
		r.commit(fmt.Sprintf("change %d", i))
		a := fmt.Sprintf("api/a%d.yaml", i)
		compared = append(compared, FileChange{Status: Modified, Old: a, New: a}, FileChange{Status: Modified, Old: p, New: p})
	}
	return r, compared
}

// BenchmarkReview50 reviews a three-commit pull request in a repository of
// 50 contracts. It reports the review's time as a ratio to comparing the
// same six contracts directly (git, the $ref graph and the history walk are
// the difference), and ms/review for the README.
func BenchmarkReview50(b *testing.B) {
	r, compared := benchRepo(b)
	o := options(r.top)
	res, err := Run(o)
	if err != nil {
		b.Fatal(err)
	}
	if res.Compared != 6 {
		b.Fatalf("compared %d contracts, want 6", res.Compared)
	}
	repo := r.repo()
	base, err := repo.ResolveBase("")
	if err != nil {
		b.Fatal(err)
	}
	direct := func() {
		oldSrc, newSrc := openSides(b, repo, base.Commit)
		defer oldSrc.Close()
		for _, c := range compared {
			if _, err := pipeline.Diff(side(oldSrc, c.Old), side(newSrc, c.New), o.Pipeline); err != nil {
				b.Fatal(err)
			}
		}
	}
	var reviewTime, directTime time.Duration
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		if _, err := Run(o); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		direct()
		reviewTime += t1.Sub(t0)
		directTime += time.Since(t1)
	}
	b.ReportMetric(float64(reviewTime)/float64(directTime), "review/direct")
	b.ReportMetric(float64(reviewTime.Milliseconds())/float64(b.N), "ms/review")
}

// openSides opens the base revision and the working tree of repo.
func openSides(b *testing.B, repo *Repo, base string) (*source.Git, *source.Dir) {
	oldSrc, err := source.OpenRev(repo.Top, base)
	if err != nil {
		b.Fatal(err)
	}
	newSrc, err := source.OpenDir(repo.Top)
	if err != nil {
		b.Fatal(err)
	}
	return oldSrc, newSrc
}
