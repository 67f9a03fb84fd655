package chargeserver

import (
	"runtime"
	"strings"
	"testing"
)

// amountBody is a charge request whose amount_cents is spelled literal.
func amountBody(literal string) []byte {
	return []byte(`{"amount_cents": ` + literal + `, "currency": "GBP", "card_token": "tok_visa"}`)
}

// TestAmountRefusedByLength: an amount is plain digits, at most 19 of them
// (an int64). An exponent, or more digits, is refused by its spelling
// before any arithmetic; 1e999999 once cost 40 ms of CPU (big.Rat spelled
// out ten to the 999,999th) against about 1 ms for other bad requests.
func TestAmountRefusedByLength(t *testing.T) {
	cfg := DefaultConfig()
	for _, lit := range []string{"1e999999", "4e3", "4E3", "4000e-0", "1" + strings.Repeat("0", 19),
		strings.Repeat("9", 60000), "1." + strings.Repeat("0", 60000), "-" + strings.Repeat("1", 20)} {
		_, _, p := parseCharge(amountBody(lit), &cfg)
		if p == nil || p.Code != "invalid_amount" {
			t.Errorf("%.30s: %+v; want 400 invalid_amount", lit, p)
		}
	}
	for lit, want := range map[string]int64{"4000": 4000, "4000.0": 4000, "1": 1} {
		req, _, p := parseCharge(amountBody(lit), &cfg)
		if p != nil || req.AmountCents != want {
			t.Errorf("%s: %+v %+v; want %d", lit, req, p, want)
		}
	}
	// A 19-digit amount is read, then refused by the configured maximum.
	if _, _, p := parseCharge(amountBody("9223372036854775807"), &cfg); p == nil || !strings.Contains(p.Detail, "between 1 and") {
		t.Errorf("19 digits: %+v; want the range refusal", p)
	}
}

// TestHugeAmountCostsAnOrdinaryRefusal: refusing 1e999999, or an amount of
// 60,000 digits, allocates about what refusing an unsupported currency in a
// body of the same size does (memory, not time, so the check holds on a
// loaded machine).
func TestHugeAmountCostsAnOrdinaryRefusal(t *testing.T) {
	cfg := DefaultConfig()
	allocs := func(body []byte) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range 10 {
			_, _, _ = parseCharge(body, &cfg)
		}
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	for _, lit := range []string{"1e999999", strings.Repeat("9", 60000)} {
		body := amountBody(lit)
		ordinary := []byte(`{"amount_cents": 4000, "currency": "XXX", "card_token": "tok_visa", "description": "` +
			strings.Repeat("x", len(body)) + `"}`)
		if huge, base := allocs(body), allocs(ordinary); huge > 2*base {
			t.Errorf("%.20s: refusing it allocated %d bytes against %d for an unsupported currency", lit, huge, base)
		}
	}
}

// BenchmarkRefusals: what refusing a bad request costs, by what is wrong
// with it; the amount spelled 1e999999 or as 60,000 digits should cost
// about what the unsupported currency does.
//
//	go test ./internal/chargeserver -run '^$' -bench Refusals
func BenchmarkRefusals(b *testing.B) {
	cfg := DefaultConfig()
	for name, body := range map[string][]byte{
		"unsupported-currency": []byte(`{"amount_cents": 4000, "currency": "XXX", "card_token": "tok_visa"}`),
		"amount-1e999999":      amountBody("1e999999"),
		"unsupported-currency-60KiB": []byte(`{"amount_cents": 4000, "currency": "XXX", "card_token": "tok_visa", "description": "` +
			strings.Repeat("x", 60000) + `"}`),
		"amount-20-digits":    amountBody("1" + strings.Repeat("0", 19)),
		"amount-60000-digits": amountBody(strings.Repeat("9", 60000)),
	} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if _, _, p := parseCharge(body, &cfg); p == nil {
					b.Fatal("accepted")
				}
			}
		})
	}
}
