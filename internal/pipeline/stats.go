package pipeline

import (
	"fmt"
	"io"
	"runtime"
	"syscall"
	"time"
)

// Stats records time and allocations per phase, for --stats: users see where
// a slow review spends its time.
type Stats struct {
	Phases []Phase
}

// Phase is one measured step.
type Phase struct {
	Name  string
	Time  time.Duration
	Alloc uint64 // bytes allocated during the phase
}

// measure runs f as the phase name; a nil Stats just runs f.
func (s *Stats) measure(name string, f func() error) error {
	if s == nil {
		return f()
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	err := f()
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	s.Phases = append(s.Phases, Phase{Name: name, Time: elapsed, Alloc: after.TotalAlloc - before.TotalAlloc})
	return err
}

// Measure times a phase run outside the pipeline (the report, say).
func (s *Stats) Measure(name string, f func() error) error { return s.measure(name, f) }

// Write prints one line per phase and the process's peak resident memory.
func (s *Stats) Write(w io.Writer) {
	var total time.Duration
	for _, p := range s.Phases {
		fmt.Fprintf(w, "stats: %-8s %8.3fs %8.1f MB allocated\n", p.Name, p.Time.Seconds(), float64(p.Alloc)/1e6)
		total += p.Time
	}
	fmt.Fprintf(w, "stats: %-8s %8.3fs\n", "total", total.Seconds())
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		fmt.Fprintf(w, "stats: peak memory %.1f MB\n", float64(ru.Maxrss)/1024)
	}
}
