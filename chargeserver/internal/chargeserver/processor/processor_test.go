package processor

import (
	"context"
	"errors"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

func TestLedgerChargesOncePerKeyUnderConcurrency(t *testing.T) {
	l := NewLedger()
	l.SetFaults(Faults{Latency: 5 * time.Millisecond})
	var wg sync.WaitGroup
	ids := make(chan string, 20)
	for range 20 {
		wg.Go(func() {
			r, err := l.Charge(context.Background(), Request{Key: "k", AmountCents: 100, Currency: "GBP", CardToken: "tok_visa"})
			if err != nil {
				t.Error(err)
			}
			ids <- r.ID
		})
	}
	wg.Wait()
	close(ids)
	first := ""
	for id := range ids {
		if first == "" {
			first = id
		}
		if id != first {
			t.Fatalf("one key gave two charges: %s, %s", first, id)
		}
	}
	recs, _ := l.Records(context.Background())
	if len(recs) != 1 || Succeeded(recs) != 1 {
		t.Fatalf("want one record, got %+v", recs)
	}
}

func TestFaultsOverHTTP(t *testing.T) {
	l := NewLedger()
	srv := httptest.NewServer(Handler(l))
	defer srv.Close()
	c := NewClient(srv.URL, time.Second)
	ctx := context.Background()
	if err := c.SetFaults(ctx, Faults{FailAfter: 1}); err != nil {
		t.Fatal(err)
	}
	req := Request{Key: "k1", AmountCents: 100, Currency: "GBP", CardToken: DeclineToken}
	if _, err := c.Charge(ctx, req); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("want ErrUnavailable, got %v", err)
	}
	res, err := c.Charge(ctx, req)
	if err != nil || res.Status != StatusDeclined {
		t.Fatalf("asking again should reveal the recorded decline, got %+v, %v", res, err)
	}
	recs, err := c.Records(ctx)
	if err != nil || len(recs) != 1 || recs[0].ID != res.ID {
		t.Fatalf("records %+v, %v", recs, err)
	}
}

// TestRepeatedKeyWithAnotherRequestIsRefused: a key comes back with another
// amount, currency or account. Answering with the first charge would report a
// charge that was never made; the refusal is definite (nothing was charged),
// in process and over HTTP, where it is a 4xx, not an "unknown" 5xx.
func TestRepeatedKeyWithAnotherRequestIsRefused(t *testing.T) {
	l := NewLedger()
	srv := httptest.NewServer(Handler(l))
	defer srv.Close()
	ctx := context.Background()
	first := Request{Key: "pk", Account: "acct_a", AmountCents: 4000, Currency: "GBP", CardToken: "tok_visa"}
	res, err := l.Charge(ctx, first)
	if err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string]Processor{"ledger": l, "http": NewClient(srv.URL, time.Second)} {
		if again, err := p.Charge(ctx, first); err != nil || again.ID != res.ID {
			t.Fatalf("%s: the same request again: %+v, %v; want the first answer", name, again, err)
		}
		for _, other := range []Request{
			{Key: "pk", Account: "acct_a", AmountCents: 9900, Currency: "GBP", CardToken: "tok_visa"},
			{Key: "pk", Account: "acct_a", AmountCents: 4000, Currency: "EUR", CardToken: "tok_visa"},
			{Key: "pk", Account: "acct_b", AmountCents: 4000, Currency: "GBP", CardToken: "tok_visa"},
		} {
			got, err := p.Charge(ctx, other)
			if !errors.Is(err, ErrRejected) || errors.Is(err, ErrUnavailable) || got.ID != "" {
				t.Fatalf("%s: %+v after %+v answered %+v, %v; want a definite refusal", name, other, first, got, err)
			}
		}
	}
	if recs, _ := l.Records(ctx); len(recs) != 1 {
		t.Fatalf("refusals charged: %+v", recs)
	}
}
