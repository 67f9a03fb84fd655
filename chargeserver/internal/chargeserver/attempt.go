package chargeserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/processor"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/store"
)

// RouteCreateCharge is the route part of a claim's scope.
const RouteCreateCharge = "POST /v1/charges"

// driver runs a claim it owns to completion; the request handler and the
// reaper share it so a re-drive does exactly what the first attempt did.
type driver struct {
	store       store.Store
	proc        processor.Processor
	timeout     time.Duration
	maxAttempts int
	maxAge      time.Duration
	afterCharge func()
	now         func() time.Time
}

func newDriver(cfg Config, st store.Store, proc processor.Processor, sm seams) *driver {
	return &driver{store: st, proc: proc, timeout: cfg.ProcessorTimeout, maxAttempts: cfg.MaxAttempts,
		maxAge: cfg.MaxUnresolvedAge, afterCharge: sm.afterCharge, now: sm.now}
}

// Outcome names, as counted in chargeserver_requests_total.
const (
	outcomeCreated    = "created"
	outcomeDeclined   = "declined"
	outcomeRejected   = "rejected"
	outcomeUnresolved = "unresolved"
)

// outcome is what one drive produced.
type outcome struct {
	resp store.Response
	name string
	// recorded is false when the claim was lost to someone else (the reaper,
	// or a retry after the lease expired); resp is then not authoritative.
	recorded bool
}

// drive asks the processor with the claim's processor key and stores the
// answer, which splits three ways. Done (a charge or a decline) and definitely
// not done (the processor refused without charging) are final: stored, with
// the charge if any, in one transaction, and replayed to every retry. Unknown
// (a timeout, a 5xx, a broken connection: the charge may have happened)
// leaves the claim in progress with its lease expired, so the next retry or
// reaper run asks again with the same key, until the claim has been driven
// maxAttempts times or is maxAge old; then "unresolved" is stored as the
// final answer, for reconciliation to settle.
func (d *driver) drive(ctx context.Context, rec store.Record) (outcome, error) {
	req, err := decodeStored(rec.Request)
	if err != nil {
		return outcome{}, fmt.Errorf("stored request: %w", err)
	}
	pctx, cancel := context.WithTimeout(ctx, d.timeout)
	res, err := d.proc.Charge(pctx, processor.Request{
		Key: rec.ProcessorKey, Account: rec.Account, AmountCents: req.AmountCents, Currency: req.Currency,
		CardToken: req.CardToken, Description: req.Description,
	})
	cancel()
	var out outcome
	switch {
	case err == nil:
		if d.afterCharge != nil {
			d.afterCharge()
		}
		out = responseFor(rec, req, res, d.now())
	case errors.Is(err, processor.ErrRejected):
		out = rejected()
	case rec.Attempts >= d.maxAttempts || d.now().Sub(rec.CreatedAt) >= d.maxAge:
		p := newProblem(502, "charge_outcome_unknown", fmt.Sprintf(
			"the payment processor did not confirm the charge in %d attempts; it is left to reconciliation, do not retry it under a new key", rec.Attempts))
		out = outcome{resp: store.Response{Status: 502, Body: p.body()}, name: outcomeUnresolved}
	default:
		d.release(rec)
		return outcome{}, fmt.Errorf("%w: %v", processor.ErrUnavailable, err)
	}
	out.recorded, err = d.store.Complete(ctx, rec.Scope, rec.Owner, out.resp, d.now())
	if err != nil {
		d.release(rec)
		return outcome{}, fmt.Errorf("recording the charge: %w", err)
	}
	return out, nil
}

// release expires the lease on a best-effort basis: if it fails the lease
// simply runs out at StaleAfter instead.
func (d *driver) release(rec store.Record) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = d.store.ExpireLease(ctx, rec.Scope, rec.Owner, d.now().Add(-time.Millisecond))
}

// chargeJSON is the Charge schema of the contract.
type chargeJSON struct {
	ID          string `json:"id"`
	AmountCents int64  `json:"amount_cents"`
	Currency    string `json:"currency"`
	Description string `json:"description"`
	Status      string `json:"status"`
	CreatedAt   string `json:"created_at"`
}

func toJSON(c store.Charge) chargeJSON {
	return chargeJSON{ID: c.ID, AmountCents: c.AmountCents, Currency: c.Currency, Description: c.Description,
		Status: c.Status, CreatedAt: c.CreatedAt.UTC().Format(time.RFC3339Nano)}
}

// responseFor turns the processor's answer into the stored response: 201 with
// the charge, or 402 for a decline, which replays as a decline.
func responseFor(rec store.Record, req chargeRequest, res processor.Result, now time.Time) outcome {
	if res.Status != processor.StatusSucceeded {
		p := newProblem(402, "card_declined", "the card was declined")
		return outcome{resp: store.Response{Status: 402, Body: p.body()}, name: outcomeDeclined}
	}
	ch := store.Charge{ID: res.ID, Account: rec.Account, AmountCents: req.AmountCents, Currency: req.Currency,
		Description: req.Description, Status: res.Status, ProcessorKey: rec.ProcessorKey, CreatedAt: now.Truncate(time.Millisecond)}
	body, _ := json.Marshal(toJSON(ch))
	return outcome{resp: store.Response{Status: 201, Body: body, Charge: &ch}, name: outcomeCreated}
}

// rejected is the answer to a definite refusal by the processor.
func rejected() outcome {
	p := newProblem(402, "charge_rejected", "the payment processor refused the charge; nothing was charged")
	return outcome{resp: store.Response{Status: 402, Body: p.body()}, name: outcomeRejected}
}

// newOwner names one attempt; the lease belongs to it alone.
func newOwner(prefix string) string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return prefix + "-" + hex.EncodeToString(b[:])
}
