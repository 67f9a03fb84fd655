package chargeserver

import (
	"context"
	"fmt"

	"github.com/contractlint/contractlint/internal/chargeserver/processor"
	"github.com/contractlint/contractlint/internal/chargeserver/store"
)

// Reconcile lists every difference between the charges table and the
// processor's table: a charge either side lacks, or one they disagree on.
// An attempt still in flight shows up too; run it after the reaper.
func Reconcile(ctx context.Context, st store.Store, proc processor.Processor) ([]string, error) {
	charges, err := st.AllCharges(ctx)
	if err != nil {
		return nil, err
	}
	recs, err := proc.Records(ctx)
	if err != nil {
		return nil, fmt.Errorf("processor: %w", err)
	}
	byID := map[string]processor.Record{}
	for _, r := range recs {
		if r.Status == processor.StatusSucceeded {
			byID[r.ID] = r
		}
	}
	var diffs []string
	for _, c := range charges {
		r, ok := byID[c.ID]
		delete(byID, c.ID)
		switch {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("charge %s is recorded but the processor has no successful charge with that id", c.ID))
		case r.AmountCents != c.AmountCents || r.Currency != c.Currency || r.Key != c.ProcessorKey:
			diffs = append(diffs, fmt.Sprintf("charge %s: recorded %d %s, processor has %d %s", c.ID, c.AmountCents, c.Currency, r.AmountCents, r.Currency))
		}
	}
	processor.SortByID(recs)
	for _, r := range recs {
		if _, missing := byID[r.ID]; missing {
			diffs = append(diffs, fmt.Sprintf("processor charge %s (%d %s) has no charge row", r.ID, r.AmountCents, r.Currency))
		}
	}
	return diffs, nil
}
