package chargeserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/contractlint/contractlint/internal/chargeserver/processor"
	"github.com/contractlint/contractlint/internal/chargeserver/store"
)

// RouteCreateCharge is the route part of a claim's scope.
const RouteCreateCharge = "POST /v1/charges"

// driver runs a claim it owns to completion; the request handler and the
// reaper share it so a re-drive does exactly what the first attempt did.
type driver struct {
	store       store.Store
	proc        processor.Processor
	timeout     time.Duration
	afterCharge func()
	now         func() time.Time
}

// outcome is what one drive produced.
type outcome struct {
	resp store.Response
	// recorded is false when the claim was lost to someone else (the reaper,
	// or a retry after the lease expired); resp is then not authoritative.
	recorded bool
}

// drive asks the processor with the claim's derived key and records the
// answer, charge and response in one transaction. A processor or storage
// failure leaves the claim in progress with its lease expired, so the next
// retry or reaper run asks the processor again with the same key.
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
	if err != nil {
		d.release(rec)
		return outcome{}, fmt.Errorf("%w: %v", processor.ErrUnavailable, err)
	}
	if d.afterCharge != nil {
		d.afterCharge()
	}
	resp := responseFor(rec, req, res, d.now())
	ok, err := d.store.Complete(ctx, rec.Scope, rec.Owner, resp, d.now())
	if err != nil {
		d.release(rec)
		return outcome{}, fmt.Errorf("recording the charge: %w", err)
	}
	return outcome{resp: resp, recorded: ok}, nil
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
func responseFor(rec store.Record, req chargeRequest, res processor.Result, now time.Time) store.Response {
	if res.Status != processor.StatusSucceeded {
		p := newProblem(402, "card_declined", "the card was declined")
		return store.Response{Status: 402, Body: p.body()}
	}
	ch := store.Charge{ID: res.ID, Account: rec.Account, AmountCents: req.AmountCents, Currency: req.Currency,
		Description: req.Description, Status: res.Status, ProcessorKey: rec.ProcessorKey, CreatedAt: now.Truncate(time.Millisecond)}
	body, _ := json.Marshal(toJSON(ch))
	return store.Response{Status: 201, Body: body, Charge: &ch}
}

// newOwner names one attempt; the lease belongs to it alone.
func newOwner(prefix string) string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return prefix + "-" + hex.EncodeToString(b[:])
}
