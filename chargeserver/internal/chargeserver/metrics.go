package chargeserver

import (
	"fmt"
	"io"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/store"
)

// Metrics are the server's counters, exposed in Prometheus text format.
type Metrics struct {
	mu       sync.Mutex
	outcomes map[string]*atomic.Int64

	Replays, InProgress, KeyReused, WithoutKey atomic.Int64
	ReaperRuns, Reaped, PrunerRuns, Pruned     atomic.Int64
	// GaveUp counts claims settled as "unresolved" (502
	// charge_outcome_unknown), by a request or the reaper.
	GaveUp atomic.Int64
	// ReplayCacheHits counts answers (replays and 422s) given from the
	// in-process cache of final answers, without a database read.
	ReplayCacheHits atomic.Int64
}

func newMetrics() *Metrics { return &Metrics{outcomes: map[string]*atomic.Int64{}} }

// request counts one finished request by outcome.
func (m *Metrics) request(outcome string) {
	m.mu.Lock()
	c, ok := m.outcomes[outcome]
	if !ok {
		c = new(atomic.Int64)
		m.outcomes[outcome] = c
	}
	m.mu.Unlock()
	c.Add(1)
}

// Outcome reads one outcome's count.
func (m *Metrics) Outcome(outcome string) int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c, ok := m.outcomes[outcome]; ok {
		return c.Load()
	}
	return 0
}

// WriteTo writes the Prometheus text exposition.
func (m *Metrics) WriteTo(w io.Writer) (int64, error) {
	var n int64
	p := func(format string, args ...any) {
		k, _ := fmt.Fprintf(w, format, args...)
		n += int64(k)
	}
	p("# HELP chargeserver_requests_total Charge API requests by outcome.\n# TYPE chargeserver_requests_total counter\n")
	m.mu.Lock()
	names := make([]string, 0, len(m.outcomes))
	for k := range m.outcomes {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		p("chargeserver_requests_total{outcome=%q} %d\n", k, m.outcomes[k].Load())
	}
	m.mu.Unlock()
	for _, c := range []struct {
		name, help string
		v          *atomic.Int64
	}{
		{"chargeserver_replays_total", "Stored responses replayed.", &m.Replays},
		{"chargeserver_in_progress_total", "409 request_in_progress answers.", &m.InProgress},
		{"chargeserver_key_reused_total", "422 idempotency_key_reused answers.", &m.KeyReused},
		{"chargeserver_requests_without_key_total", "POSTs accepted without an Idempotency-Key.", &m.WithoutKey},
		{"chargeserver_reaper_runs_total", "Reaper runs.", &m.ReaperRuns},
		{"chargeserver_reaped_total", "Stale attempts the reaper resolved.", &m.Reaped},
		{"chargeserver_pruner_runs_total", "Pruner runs.", &m.PrunerRuns},
		{"chargeserver_pruned_keys_total", "Idempotency keys deleted past retention.", &m.Pruned},
		{"chargeserver_replay_cache_hits_total", "Answers to a known key given from the in-process cache of final answers.", &m.ReplayCacheHits},
		{"chargeserver_gave_up_total", "Claims stored as unresolved after --max-attempts or --max-unresolved-age; reconcile each with the processor.", &m.GaveUp},
	} {
		p("# HELP %s %s\n# TYPE %s counter\n%s %d\n", c.name, c.help, c.name, c.name, c.v.Load())
	}
	return n, nil
}

// claimStates are the states /metrics always reports, zero or not, so an
// alert on one of them never sees a series vanish.
var claimStates = []string{store.StatusInProgress, store.StateStale, store.StatusCompleted}

// writeClaimStats writes the claims by state and the age of the oldest in
// each: stale claims, or an in-progress one far older than the lease, are
// what an operator alerts on. Unresolved claims are never pruned, so they
// stay visible here until a re-drive or the MaxAttempts bound settles them.
func writeClaimStats(w io.Writer, stats []store.ClaimStat, now time.Time) {
	by := map[string]store.ClaimStat{}
	for _, c := range stats {
		by[c.State] = c
	}
	fmt.Fprint(w, "# HELP chargeserver_claims Idempotency claims by state: in_progress (an attempt holds the lease), "+
		"stale (the lease ran out; waiting for a retry or the reaper), completed (the answer is stored).\n# TYPE chargeserver_claims gauge\n")
	for _, st := range claimStates {
		fmt.Fprintf(w, "chargeserver_claims{state=%q} %d\n", st, by[st].Count)
	}
	fmt.Fprint(w, "# HELP chargeserver_claim_oldest_age_seconds Age of the oldest claim in each state (0 when there is none).\n"+
		"# TYPE chargeserver_claim_oldest_age_seconds gauge\n")
	for _, st := range claimStates {
		age := 0.0
		if c, ok := by[st]; ok && c.Count > 0 {
			age = max(0, now.Sub(c.Oldest).Seconds())
		}
		fmt.Fprintf(w, "chargeserver_claim_oldest_age_seconds{state=%q} %.3f\n", st, age)
	}
}
