package changelog_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractlint/contractlint/internal/changelog"
	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

var update = flag.Bool("update", false, "rewrite the golden changelogs in testdata")

// logOf builds the changelog of dir's old and new contracts.
func logOf(tb testing.TB, dir, old, new string) (*changelog.Log, *rules.Input) {
	tb.Helper()
	src, err := source.OpenDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	o := pipeline.Options{Registry: rules.Default(), Settings: &rules.Settings{}}
	in, err := pipeline.Compare(pipeline.Side{Src: src, Files: []string{old}}, pipeline.Side{Src: src, Files: []string{new}}, o)
	if err != nil {
		tb.Fatal(err)
	}
	return changelog.Of(in, o.Registry, o.Settings), in
}

// TestGolden pins the changelog of each case in every format. shop: the
// removed operation under its own heading, the shared Order schema once with
// the three operations it reaches, the deprecation read off the contracts.
// proto: rpcs, then each message and enum (an enum value found by its enum,
// though proto scopes it beside the enum).
//
// multifile: a spec split into files, its schemas $ref'd from the paths and
// from components: each schema group named by its file's title (Order,
// Refund, Error) and each change in it once, named, however it is reached.
func TestGolden(t *testing.T) {
	for dir, sides := range map[string][2]string{
		"shop":      {"old.yaml", "new.yaml"},
		"proto":     {"old.proto", "new.proto"},
		"multifile": {"old/api/openapi.yaml", "new/api/openapi.yaml"},
	} {
		l, _ := logOf(t, filepath.Join("testdata", dir), sides[0], sides[1])
		for _, format := range changelog.Formats {
			t.Run(dir+"/"+format, func(t *testing.T) {
				var b bytes.Buffer
				if err := changelog.Write(&b, l, format); err != nil {
					t.Fatal(err)
				}
				golden := filepath.Join("testdata", dir, "want."+format)
				if *update {
					if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(string(want), b.String()); d != "" {
					t.Errorf("%s changelog differs from %s (-want +got; -update rewrites it):\n%s", format, golden, d)
				}
			})
		}
	}
}

func TestSharedSchemaOnce(t *testing.T) {
	l, _ := logOf(t, filepath.Join("testdata", "shop"), "old.yaml", "new.yaml")
	var order *changelog.Group
	for i, g := range l.Groups {
		if g.Name == "Order" {
			order = &l.Groups[i]
		}
		for _, e := range g.Entries {
			if g.Kind == changelog.OperationGroup && e.Path != "" && bytes.Contains([]byte(e.Path), []byte("components")) {
				t.Errorf("shared-schema change %s listed under operation %s", e.Path, g.Name)
			}
		}
	}
	if order == nil {
		t.Fatal("no group for the shared schema Order")
	}
	want := []string{"GET /orders", "GET /orders/{id}", "POST /orders"}
	if d := cmp.Diff(want, order.Operations); d != "" {
		t.Errorf("Order reaches (-want +got):\n%s", d)
	}
}

func TestBreakingDirections(t *testing.T) {
	l, _ := logOf(t, filepath.Join("testdata", "shop"), "old.yaml", "new.yaml")
	got := map[string]bool{}
	for _, g := range l.Groups {
		for _, e := range g.Entries {
			got[fmt.Sprintf("%s %s backward=%v forward=%v", e.Action, e.Path, e.Breaking(rules.Backward), e.Breaking(rules.Forward))] = true
		}
	}
	for _, want := range []string{
		"removed #/paths/~1orders~1{id}/delete backward=true forward=false",
		"added #/paths/~1refunds/get backward=false forward=true",
		"added #/components/schemas/Order/properties/currency backward=false forward=true",
		"deprecated #/components/schemas/Order/properties/note backward=false forward=false",
		"changed #/components/schemas/Order/properties/price backward=true forward=true",
	} {
		if !got[want] {
			t.Errorf("missing entry %q in %v", want, got)
		}
	}
}

func TestNoChanges(t *testing.T) {
	l, _ := logOf(t, filepath.Join("testdata", "shop"), "old.yaml", "old.yaml")
	var b bytes.Buffer
	if err := changelog.Write(&b, l, "text"); err != nil {
		t.Fatal(err)
	}
	if b.String() != "no changes\n" {
		t.Errorf("same contract twice: got %q, want no changes", b.String())
	}
	if err := changelog.Write(&b, l, "yaml"); err == nil {
		t.Error("an unknown format was accepted")
	}
}

// TestEverySubjectNamed: an entry of any subject the diff may give reads
// with its noun, in text and JSON; contractlint.lock's included.
func TestEverySubjectNamed(t *testing.T) {
	for _, s := range rules.Subjects() {
		l := &changelog.Log{Groups: []changelog.Group{{Kind: changelog.ContractGroup, Name: "c",
			Entries: []changelog.Entry{{Action: changelog.Changed, Subject: s, Element: "x"}}}}}
		for format, want := range map[string]string{"text": s.Noun() + " ", "json": fmt.Sprintf("%q", s.Noun())} {
			var b bytes.Buffer
			if err := changelog.Write(&b, l, format); err != nil {
				t.Fatal(err)
			}
			if s.Noun() == "" || !bytes.Contains(b.Bytes(), []byte(want)) {
				t.Errorf("%s, %s: %q names no %q", s, format, b.String(), want)
			}
		}
	}
}
