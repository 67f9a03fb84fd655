package chargeserver

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/processor"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/store"
)

// Reconcile lists every difference between what clients were told, the
// charges table and the processor's table: a charge either side lacks, one
// they disagree on, and a stored answer (every response still within
// retention) that does not match the charge row and the processor's record
// behind it. An attempt still in flight shows up too; run it after the reaper.
func Reconcile(ctx context.Context, st store.Store, proc processor.Processor) ([]string, error) {
	charges, err := st.AllCharges(ctx)
	if err != nil {
		return nil, err
	}
	told, err := st.Completed(ctx)
	if err != nil {
		return nil, err
	}
	recs, err := proc.Records(ctx)
	if err != nil {
		return nil, fmt.Errorf("processor: %w", err)
	}
	l := newLedgers(charges, recs)
	diffs := l.tables()
	for _, claim := range told {
		diffs = append(diffs, l.answer(claim)...)
	}
	return diffs, nil
}

// ledgers indexes both tables for the comparisons.
type ledgers struct {
	charges   []store.Charge
	chargeIDs map[string]store.Charge
	recs      []processor.Record
	byID      map[string]processor.Record
	byKey     map[string]processor.Record
}

func newLedgers(charges []store.Charge, recs []processor.Record) *ledgers {
	l := &ledgers{charges: charges, chargeIDs: map[string]store.Charge{}, recs: recs,
		byID: map[string]processor.Record{}, byKey: map[string]processor.Record{}}
	for _, c := range charges {
		l.chargeIDs[c.ID] = c
	}
	processor.SortByID(l.recs)
	for _, r := range recs {
		l.byKey[r.Key] = r
		if r.Status == processor.StatusSucceeded {
			l.byID[r.ID] = r
		}
	}
	return l
}

// tables compares the charges table with the processor's successful charges.
func (l *ledgers) tables() []string {
	var diffs []string
	unmatched := map[string]bool{}
	for id := range l.byID {
		unmatched[id] = true
	}
	for _, c := range l.charges {
		r, ok := l.byID[c.ID]
		delete(unmatched, c.ID)
		switch {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("charge %s is recorded but the processor has no successful charge with that id", c.ID))
		case r.AmountCents != c.AmountCents || r.Currency != c.Currency || r.Key != c.ProcessorKey || r.Account != c.Account:
			diffs = append(diffs, fmt.Sprintf("charge %s: recorded %d %s for %s, processor has %d %s for %s",
				c.ID, c.AmountCents, c.Currency, c.Account, r.AmountCents, r.Currency, r.Account))
		}
	}
	for _, r := range l.recs {
		if unmatched[r.ID] {
			diffs = append(diffs, fmt.Sprintf("processor charge %s (%d %s) has no charge row", r.ID, r.AmountCents, r.Currency))
		}
	}
	return diffs
}

// answer checks one stored answer. A 201 must name the charge the claim's
// processor key made, with the amount and currency both tables hold; any
// other answer told the client nothing was charged, so the processor must
// not hold a successful charge under the claim's key.
func (l *ledgers) answer(claim store.Record) []string {
	who := fmt.Sprintf("key %s of %s", claim.Key, claim.Account)
	r, charged := l.byKey[claim.ProcessorKey]
	charged = charged && r.Status == processor.StatusSucceeded
	if claim.ResponseStatus != 201 {
		if charged {
			return []string{fmt.Sprintf("%s was answered %d (not charged), but the processor charged %s (%d %s) under its key",
				who, claim.ResponseStatus, r.ID, r.AmountCents, r.Currency)}
		}
		return nil
	}
	var c chargeJSON
	if err := json.Unmarshal(claim.ResponseBody, &c); err != nil || c.ID == "" {
		return []string{fmt.Sprintf("%s: the stored 201 is not a charge", who)}
	}
	told := fmt.Sprintf("%s was told charge %s for %d %s", who, c.ID, c.AmountCents, c.Currency)
	var diffs []string
	switch row, ok := l.chargeIDs[c.ID]; {
	case !ok:
		diffs = append(diffs, told+", which has no charge row")
	case row.ProcessorKey != claim.ProcessorKey:
		diffs = append(diffs, told+", but that charge row belongs to another claim")
	case row.AmountCents != c.AmountCents || row.Currency != c.Currency:
		diffs = append(diffs, fmt.Sprintf("%s; the charge row says %d %s", told, row.AmountCents, row.Currency))
	}
	switch {
	case !charged:
		diffs = append(diffs, told+", but the processor made no successful charge under its key")
	case r.ID != c.ID || r.AmountCents != c.AmountCents || r.Currency != c.Currency:
		diffs = append(diffs, fmt.Sprintf("%s; the processor charged %s for %d %s under its key", told, r.ID, r.AmountCents, r.Currency))
	}
	return diffs
}
