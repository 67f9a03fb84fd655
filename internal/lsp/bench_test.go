package lsp

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/contractlint/contractlint/internal/corpus"
	"github.com/contractlint/contractlint/internal/fix"
	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/internal/source"
)

const stripe = "stripe-spec3-2023-09-12.yaml"

// BenchmarkStripeEdit drives the server through the protocol on Stripe's
// spec (4 MB): the document open, then one-line edits (a property's type
// changed from the base's, to one type then another), each timed from the didChange sent to its
// diagnostics received. Each edit is made while nothing is compared, so it
// waits for no debounce (the 1 ms set here would hold back only edits made
// during a comparison): the figures are the comparison's; .ci/editor-latency
// measures the same edits in Neovim. After each edit the same change is compared whole
// (both sides loaded in full, as a run without the server's reuse would),
// so the ratio of the two is measured side by side under the same load.
// Reported: median and p99 wall latency of an edit, the first edit's (made
// as soon as the open's diagnostics came) and the open's, the median of the whole
// comparison, their ratio, the process CPU time of each (the machine's load
// does not inflate it), and the server's peak heap over the whole
// comparison's.
//
// Two edits: a property of an operation's own parameters (under paths:),
// which reaches that operation, and a property of the first schema under
// components (Stripe's account), which nearly every operation reaches, so
// the subset load takes most of the document.
func BenchmarkStripeEdit(b *testing.B) {
	r := stripeRepo(b)
	text, err := os.ReadFile(filepath.Join(r.dir, stripe))
	if err != nil {
		b.Fatal(err)
	}
	for _, section := range []string{"paths", "components"} {
		b.Run(section, func(b *testing.B) { benchEdit(b, r, string(text), section) })
	}
}

func benchEdit(b *testing.B, r *repo, orig, section string) {
	line, from, to := editLine(b, orig, section)
	wholePeak := sampleHeap()
	wholeComparison(b, r, orig, line, from, to)
	wholeMax := wholePeak()

	o := testOptions()
	o.Debounce = time.Millisecond
	peak := sampleHeap()
	c := start(b, r, o, nil)
	uri := r.uri(stripe)
	t0 := time.Now()
	c.open(uri, orig)
	c.waitDiagnostics(uri, 1, func([]diagnostic) bool { return true })
	open := time.Since(t0)
	var lat, cpu, whole, wholeCPU []time.Duration
	// Each edit is a change from the base (number, then string, then
	// number...): an edit back to the base's text would be compared by
	// bytes alone, and flatter the figures.
	alt := strings.Replace(from, "integer", "string", 1)
	v, cur := 1, from
	for b.Loop() {
		v++
		text := to
		if v%2 == 1 {
			text = alt
		}
		t0, c0 := time.Now(), cpuTime()
		c.notify("textDocument/didChange", map[string]any{
			"textDocument": map[string]any{"uri": uri, "version": v},
			"contentChanges": []map[string]any{{"range": span{Start: position{line, 0}, End: position{line, len(cur)}},
				"text": text}}})
		cur = text
		c.waitDiagnostics(uri, v, func([]diagnostic) bool { return true })
		lat, cpu = append(lat, time.Since(t0)), append(cpu, cpuTime()-c0)
		t0, c0 = time.Now(), cpuTime()
		wholeComparison(b, r, orig, line, from, to)
		whole, wholeCPU = append(whole, time.Since(t0)), append(wholeCPU, cpuTime()-c0)
	}
	serverPeak := peak()
	b.Logf("edit latencies in order: %v", lat)
	first := lat[0]
	median := func(ds []time.Duration) time.Duration { slices.Sort(ds); return ds[len(ds)/2] }
	m, mw := median(lat), median(whole)
	b.ReportMetric(float64(m.Milliseconds()), "median-ms")
	b.ReportMetric(float64(lat[min(len(lat)-1, len(lat)*99/100)].Milliseconds()), "p99-ms")
	b.ReportMetric(float64(first.Milliseconds()), "first-ms")
	b.ReportMetric(float64(open.Milliseconds()), "open-ms")
	b.ReportMetric(float64(mw.Milliseconds()), "whole-ms")
	b.ReportMetric(float64(m)/float64(mw), "edit/whole")
	b.ReportMetric(float64(median(cpu).Milliseconds()), "edit-cpu-ms")
	b.ReportMetric(float64(median(wholeCPU).Milliseconds()), "whole-cpu-ms")
	b.ReportMetric(float64(serverPeak)/float64(wholeMax), "peak/whole-peak")
}

// cpuTime is the CPU time this process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// stripeRepo is a repository whose one commit holds Stripe's spec.
func stripeRepo(b *testing.B) *repo {
	corpus.Need(b, stripe+".gz")
	r := newRepo(b, nil)
	corpus.Gunzip(b, stripe, r.dir)
	r.git(b, "add", "-A")
	r.git(b, "commit", "-q", "-m", "stripe")
	return r
}

// editLine picks the first `type: integer` below section and returns its
// line, its text and its text as `type: number`.
func editLine(b *testing.B, text, section string) (int, string, string) {
	comp := regexp.MustCompile(`(?m)^` + section + `:`).FindStringIndex(text)
	if comp == nil {
		b.Fatal("no " + section)
	}
	loc := regexp.MustCompile(`(?m)^ +type: integer$`).FindStringIndex(text[comp[0]:])
	if loc == nil {
		b.Fatal("no `type: integer` below " + section)
	}
	at := comp[0] + loc[0]
	line := strings.Count(text[:at], "\n")
	from := fix.LineAt(text, line)
	return line, from, strings.Replace(from, "integer", "number", 1)
}

// wholeComparison is one pipeline run of the base against the edited
// document, both loaded whole.
func wholeComparison(b *testing.B, r *repo, orig string, line int, from, to string) {
	edited := orig[:lineStart(orig, line)] + to + orig[lineStart(orig, line)+len(from):]
	ro, _, _ := testOptions().Configure("", "")
	po := ro.Pipeline
	po.Whole = true
	dir, err := source.OpenDir(r.dir)
	if err != nil {
		b.Fatal(err)
	}
	fs, err := pipeline.Diff(pipeline.Side{Src: dir, Files: []string{stripe}},
		pipeline.Side{Src: overlay{Source: dir, texts: map[string]string{stripe: edited}}, Files: []string{stripe}}, po)
	if err != nil || len(fs) == 0 {
		b.Fatalf("the edit is no finding (%v)", err)
	}
}

// sampleHeap samples the live heap every few milliseconds until the
// returned function is called, which returns the highest it saw.
func sampleHeap() func() uint64 {
	runtime.GC()
	var top atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	wg.Go(func() {
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > top.Load() {
				top.Store(v)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	})
	return func() uint64 {
		close(stop)
		wg.Wait()
		return top.Load()
	}
}
