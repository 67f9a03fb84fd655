package chargeserver

import (
	"context"
	"log/slog"
	"time"

	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/idem"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/processor"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/store"
)

// Reaper re-drives claims stuck in progress past their lease (a crashed or
// timed-out attempt) by asking the processor again with the same derived key
// and recording its answer. It takes the claim over first with a conditional
// update, so it never runs beside a live attempt or another reaper.
type Reaper struct {
	driver     *driver
	staleAfter time.Duration
	metrics    *Metrics
	log        *slog.Logger
}

// NewReaper builds a reaper over st and proc; m may be nil (a one-off run
// from the CLI has no /metrics to feed).
func NewReaper(cfg Config, st store.Store, proc processor.Processor, m *Metrics, log *slog.Logger) *Reaper {
	return newReaper(cfg, st, proc, m, log, realSeams().now)
}

// newReaper is NewReaper on the clock now. It takes no crash window: the one
// tests open is the request's, not the reaper's.
func newReaper(cfg Config, st store.Store, proc processor.Processor, m *Metrics, log *slog.Logger, now func() time.Time) *Reaper {
	if m == nil {
		m = newMetrics()
	}
	d := newDriver(cfg, st, proc, seams{now: now})
	return &Reaper{
		driver:     d,
		staleAfter: cfg.StaleAfter,
		metrics:    m,
		log:        log,
	}
}

// RunOnce resolves the stale claims it can and returns how many it resolved;
// a claim it fails on is left for the next run.
func (r *Reaper) RunOnce(ctx context.Context) (int, error) {
	r.metrics.ReaperRuns.Add(1)
	now := r.driver.now()
	stale, err := r.driver.store.Stale(ctx, now, 100)
	if err != nil {
		return 0, err
	}
	resolved := 0
	for _, rec := range stale {
		if r.resolve(ctx, rec, now) {
			// Counted as each one settles, so the counter lags the stored
			// answer by a moment, not by the whole batch.
			r.metrics.Reaped.Add(1)
			resolved++
		}
	}
	return resolved, nil
}

func (r *Reaper) resolve(ctx context.Context, rec store.Record, now time.Time) bool {
	owner := newOwner("reaper")
	ok, err := r.driver.store.TakeOver(ctx, rec.Scope, rec.Owner, owner, now, now.Add(r.staleAfter))
	if err != nil || !ok {
		return false
	}
	rec.Owner = owner
	rec.Attempts++
	out, err := r.driver.drive(ctx, rec)
	if err != nil {
		r.log.Warn("reaper: attempt still unresolved", "account", rec.Account, "key", idem.Redact(rec.Key), "err", err)
		return false
	}
	r.log.Info("reaper: resolved stale attempt", "account", rec.Account, "key", idem.Redact(rec.Key), "status", out.resp.Status, "outcome", out.name)
	if out.recorded && out.name == outcomeUnresolved {
		r.metrics.GaveUp.Add(1)
		r.log.Error("reaper: gave up on an unresolved claim; reconcile it with the processor", "account", rec.Account, "key", idem.Redact(rec.Key), "attempts", rec.Attempts)
	}
	return out.recorded
}

// Pruner deletes completed claims older than the retention, in batches so a
// large backlog never holds a long lock.
type Pruner struct {
	now       func() time.Time
	store     store.Store
	retention time.Duration
	batch     int
	metrics   *Metrics
}

// NewPruner builds a pruner over st; m may be nil, as for NewReaper.
func NewPruner(cfg Config, st store.Store, m *Metrics) *Pruner {
	return newPruner(cfg, st, m, realSeams().now)
}

// newPruner is NewPruner on the clock now.
func newPruner(cfg Config, st store.Store, m *Metrics, now func() time.Time) *Pruner {
	if m == nil {
		m = newMetrics()
	}
	return &Pruner{now: now, store: st, retention: cfg.Retention, batch: cfg.PruneBatch, metrics: m}
}

// RunOnce deletes everything past retention and returns how many keys went.
func (p *Pruner) RunOnce(ctx context.Context) (int64, error) {
	p.metrics.PrunerRuns.Add(1)
	before := p.now().Add(-p.retention)
	var total int64
	for {
		n, err := p.store.Prune(ctx, before, p.batch)
		total += n
		p.metrics.Pruned.Add(n)
		if err != nil || n < int64(p.batch) {
			return total, err
		}
	}
}

// every runs f every interval until ctx ends.
func every(ctx context.Context, interval time.Duration, f func(context.Context)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			f(ctx)
		}
	}
}
