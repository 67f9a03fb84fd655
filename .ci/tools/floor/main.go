// Command floor times, for one pair of OpenAPI descriptions, what no diff
// built on the loader's parser can go below: reading and hashing every file
// of both sides, then parsing what the change reaches with the parser the
// loader uses (openapi.Parse: yaml v4's node tree over the text kin-openapi
// is given). What the change reaches is the loader's own plan
// (openapi.PlanSubset), never a second planner:
//
//   - one file the plan applies to: the plan's new text, each chunk the
//     change reaches (changed, reaching a change, or $ref'd by those) parsed
//     once, the rest blank. The old side's changed chunks are not parsed
//     again, so this is a lower bound.
//   - JSON the plan refuses as written (minified): the same after
//     encoding/json re-indents both sides, untimed, since a planner that
//     read minified JSON would find the same chunks.
//   - a tree whose files other than the root differ: each file of the new
//     side that differs (the loader's tree planning is the pipeline's);
//     what they reach in the root is not counted, a lower bound again.
//   - no plan: the whole new side, which overstates the floor; the output
//     says so.
//
// It prints one line, in milliseconds of wall time:
//
//	floor MS read MS parse MS reach WHAT
//
// Usage: floor OLDDIR NEWDIR ROOT, ROOT the root document's name below each
// directory. .ci/speed-table runs it beside each timed pair.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/contractlint/contractlint/openapi"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: floor OLDDIR NEWDIR ROOT")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2], filepath.ToSlash(os.Args[3])); err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
}

// side is one side's files by slash name below its directory, with each
// file's hash.
type side struct {
	text map[string][]byte
	sum  map[string]uint64
}

func run(oldDir, newDir, root string) error {
	start := time.Now()
	var o, n side
	var oerr, nerr error
	seed := maphash.MakeSeed()
	var wg sync.WaitGroup
	wg.Go(func() { o, oerr = read(oldDir, seed) })
	n, nerr = read(newDir, seed)
	wg.Wait()
	if oerr != nil {
		return oerr
	}
	if nerr != nil {
		return nerr
	}
	readMS := ms(time.Since(start))
	if o.text[root] == nil || n.text[root] == nil {
		return fmt.Errorf("%s is not on both sides", root)
	}
	texts, reach := reached(o, n, root)
	start = time.Now()
	for _, t := range texts {
		if openapi.Parse(t) == nil {
			return fmt.Errorf("what the change reaches (%s) does not parse", reach)
		}
	}
	parseMS := ms(time.Since(start))
	fmt.Printf("floor %.1f read %.1f parse %.1f reach %s\n", readMS+parseMS, readMS, parseMS, reach)
	return nil
}

// read reads and hashes every file below dir.
func read(dir string, seed maphash.Seed) (side, error) {
	s := side{text: map[string][]byte{}, sum: map[string]uint64{}}
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		name := filepath.ToSlash(rel)
		s.text[name], s.sum[name] = b, maphash.Bytes(seed, b)
		return nil
	})
	return s, err
}

// reached is the new side's text the change reaches, to be parsed, and
// how it was found (see the package comment). Nothing here is timed.
func reached(o, n side, root string) ([][]byte, string) {
	var changed []string
	for name, sum := range n.sum {
		if name != root && (o.text[name] == nil || o.sum[name] != sum || !bytes.Equal(o.text[name], n.text[name])) {
			changed = append(changed, name)
		}
	}
	if len(changed) > 0 {
		if o.sum[root] != n.sum[root] {
			changed = append(changed, root)
		}
		sort.Strings(changed)
		texts := make([][]byte, len(changed))
		for i, name := range changed {
			texts[i] = n.text[name]
		}
		return texts, fmt.Sprintf("changed-files:%d/%d", len(changed), len(n.text))
	}
	ob, nb := o.text[root], n.text[root]
	if sub, ok := openapi.PlanSubset(ob, nb); ok {
		return [][]byte{sub.NewText()}, chunks("plan", sub)
	}
	oi, ni := indented(ob), indented(nb)
	if oi != nil && ni != nil {
		if sub, ok := openapi.PlanSubset(oi, ni); ok {
			return [][]byte{sub.NewText()}, chunks("plan-reindented", sub)
		}
	}
	return [][]byte{nb}, "whole:no-plan"
}

// indented is JSON text re-indented one entry a line, or nil when b is
// not JSON.
func indented(b []byte) []byte {
	var out bytes.Buffer
	if json.Indent(&out, b, "", "  ") != nil {
		return nil
	}
	return out.Bytes()
}

func chunks(how string, s *openapi.Subset) string {
	return fmt.Sprintf("%s:%d/%d-chunks", how, s.Chunks-s.Skipped, s.Chunks)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
