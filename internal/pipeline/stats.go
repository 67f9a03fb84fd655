package pipeline

import (
	"fmt"
	"io"
	"runtime"
	"sync"
	"time"

	"github.com/contractlint/contractlint/openapi"
)

// Stats records time and allocations per phase, for --stats: users see where
// a slow review spends its time, and whether it used both cores.
type Stats struct {
	Phases []Phase
	// Skipped counts the files left out of the comparison because they and
	// everything they import or $ref are byte-identical on both sides.
	Skipped int
	// Compared counts the files compared (on the new side, or the old side
	// for a deleted file).
	Compared int
	// Chunks counts the paths entries and components of the OpenAPI
	// documents compared by a subset load; ChunksSkipped those left out as
	// unchanged and out of the change's reach, LinesSkipped their lines.
	Chunks, ChunksSkipped, LinesSkipped int
	// ChunksUnplaced counts the chunks kept only so that $refs resolve,
	// parsed without the places of their values.
	ChunksUnplaced int
	// Rerun counts the subset loads followed by a whole one: a validation
	// problem or a lint finding that needed the chunks left out.
	Rerun int
	// Cache counts, per side (old, new, or other for a contract loaded on
	// its own: lint, review's history walk), the files the cache held and
	// the files looked up, when --cache is on.
	Cache map[string]*CacheUse
	// Commits and Versions count review's history walk: the commits its git
	// log listed and the versions of the reviewed .proto files it loaded.
	Commits, Versions int
	// NoPlan says why the last OpenAPI pair that could have had a subset
	// plan had none ("" when it had one).
	NoPlan string

	mu sync.Mutex // both sides load at once
}

// Within returns the Stats for work measured inside one of s's phases (the
// history walk's loads): its cache use counts toward s once AddCache is
// called, its phases do not, or they would count twice. nil for a nil s.
func (s *Stats) Within() *Stats {
	if s == nil {
		return nil
	}
	return &Stats{}
}

// AddCache adds inner's cache use (see Within) to s.
func (s *Stats) AddCache(inner *Stats) {
	if s == nil || inner == nil {
		return
	}
	for side, u := range inner.Cache {
		s.cached(side, u.Hits, u.Files)
	}
}

// Walked adds one history walk's counts; a nil Stats ignores them.
func (s *Stats) Walked(commits, versions int) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Commits += commits
	s.Versions += versions
}

// CacheUse is how much of one side the cache held.
type CacheUse struct{ Hits, Files int }

// cached adds one load's cache use on side; a nil Stats ignores it.
func (s *Stats) cached(side string, hits, files int) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Cache == nil {
		s.Cache = map[string]*CacheUse{}
	}
	u := s.Cache[side]
	if u == nil {
		u = &CacheUse{}
		s.Cache[side] = u
	}
	u.Hits += hits
	u.Files += files
}

// Phase is one measured step.
type Phase struct {
	Name string
	Time time.Duration
	// CPU is the process's user and system time during the phase: CPU
	// close to Time means the phase ran on one core.
	CPU   time.Duration
	Alloc uint64 // bytes allocated during the phase
}

// measure runs f as the phase name; a nil Stats just runs f.
func (s *Stats) measure(name string, f func() error) error {
	if s == nil {
		return f()
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu := cpuTime()
	start := time.Now()
	err := f()
	elapsed := time.Since(start)
	cpu = cpuTime() - cpu
	runtime.ReadMemStats(&after)
	s.Phases = append(s.Phases, Phase{Name: name, Time: elapsed, CPU: cpu, Alloc: after.TotalAlloc - before.TotalAlloc})
	return err
}

// files adds one comparison's counts; a nil Stats ignores them.
func (s *Stats) files(compared, skipped int) {
	if s != nil {
		s.Compared += compared
		s.Skipped += skipped
	}
}

// chunks adds what a subset load left out; a nil Stats ignores it.
func (s *Stats) chunks(sub *openapi.Subset) {
	if s != nil {
		s.Chunks += sub.Chunks
		s.ChunksSkipped += sub.Skipped
		s.LinesSkipped += sub.Lines
		s.ChunksUnplaced += sub.Unplaced()
	}
}

// noPlan records why a pair got no subset plan; a nil Stats ignores it.
func (s *Stats) noPlan(why string) {
	if s != nil {
		s.mu.Lock()
		s.NoPlan = why
		s.mu.Unlock()
	}
}

// rerun counts a subset load the whole documents had to follow.
func (s *Stats) rerun() {
	if s != nil {
		s.Rerun++
	}
}

// Measure times a phase run outside the pipeline (the report, say).
func (s *Stats) Measure(name string, f func() error) error { return s.measure(name, f) }

// Write prints one line per phase (a review compares each changed file in
// turn: its phases add up under one name), the files compared and skipped,
// and the process's peak resident memory.
func (s *Stats) Write(w io.Writer) {
	var total Phase
	for _, p := range s.merged() {
		fmt.Fprintf(w, "stats: %-8s %8.3fs wall %8.3fs cpu %8.1f MB allocated\n", p.Name, p.Time.Seconds(), p.CPU.Seconds(), float64(p.Alloc)/1e6)
		total.Time += p.Time
		total.CPU += p.CPU
	}
	fmt.Fprintf(w, "stats: %-8s %8.3fs wall %8.3fs cpu\n", "total", total.Time.Seconds(), total.CPU.Seconds())
	fmt.Fprintf(w, "stats: files    %d compared, %d skipped as unchanged\n", s.Compared, s.Skipped)
	if s.Chunks > 0 {
		fmt.Fprintf(w, "stats: chunks   %d of %d skipped as unchanged and unreached (%d lines)", s.ChunksSkipped, s.Chunks, s.LinesSkipped)
		if s.ChunksUnplaced > 0 {
			fmt.Fprintf(w, ", %d parsed without places", s.ChunksUnplaced)
		}
		if s.Rerun > 0 {
			fmt.Fprintf(w, ", then loaded whole %d times", s.Rerun)
		}
		fmt.Fprintln(w)
	}
	if s.NoPlan != "" {
		fmt.Fprintf(w, "stats: %s\n", s.NoPlan)
	}
	if s.Versions > 0 || s.Commits > 0 {
		fmt.Fprintf(w, "stats: history  %d versions loaded from %d commits\n", s.Versions, s.Commits)
	}
	for _, side := range []string{"old", "new", "other"} {
		if u := s.Cache[side]; u != nil {
			fmt.Fprintf(w, "stats: cache    %s side %d of %d files lowered from the cache\n", side, u.Hits, u.Files)
		}
	}
	if maxrss, _, ok := rusage(); ok {
		fmt.Fprintf(w, "stats: peak memory %.1f MB\n", float64(maxrss)/1024)
	}
}

// merged sums the phases of one name, in the order they first ran.
func (s *Stats) merged() []Phase {
	var out []Phase
	at := map[string]int{}
	for _, p := range s.Phases {
		i, ok := at[p.Name]
		if !ok {
			at[p.Name] = len(out)
			out = append(out, p)
			continue
		}
		out[i].Time += p.Time
		out[i].CPU += p.CPU
		out[i].Alloc += p.Alloc
	}
	return out
}

// cpuTime is the user and system time the process has used so far.
func cpuTime() time.Duration {
	_, cpu, _ := rusage()
	return cpu
}
