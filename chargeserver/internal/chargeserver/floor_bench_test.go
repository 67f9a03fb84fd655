package chargeserver

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/idem"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/store"
)

// BenchmarkChargeVsFloor runs the charge flow over HTTP side by side with its
// database floor: the same store statements (the claim, and for a new key
// the completion with its charge row, in one transaction) called in a loop in
// process, with no HTTP, JSON, processor or handler (on SQLite through the
// store's group commit, as the server's writes go). Both run in one
// benchmark, interleaved in slices of 200, so both see the same machine; the
// ratio (server rate / floor rate) is the figure that survives a loaded
// machine.
//
//	go test ./internal/chargeserver -run '^$' -bench ChargeVsFloor -benchtime 20x
func BenchmarkChargeVsFloor(b *testing.B) {
	for _, be := range []struct {
		name string
		dsn  func(testing.TB) string
	}{{"sqlite", sqliteDSN}, {"postgres", postgresDSN}} {
		for _, clients := range []int{8, 16} {
			for _, flow := range []string{"new-key", "replay"} {
				b.Run(fmt.Sprintf("%s/%s/clients-%d", be.name, flow, clients), func(b *testing.B) {
					h := benchHarness(b, be.dsn(b))
					h.client.Transport.(*http.Transport).MaxIdleConnsPerHost = clients
					server, floor := flows(b, h, flow)
					var sLat, fLat []time.Duration
					var sTime, fTime time.Duration
					b.ResetTimer()
					for n := range b.N {
						start := time.Now()
						sLat = append(sLat, driveWith(b, clients, 200, func(i int) (int, error) { return server(n*200 + i) })...)
						sTime += time.Since(start)
						start = time.Now()
						fLat = append(fLat, driveWith(b, clients, 200, func(i int) (int, error) { return floor(n*200 + i) })...)
						fTime += time.Since(start)
					}
					b.StopTimer()
					sRate, fRate := float64(len(sLat))/sTime.Seconds(), float64(len(fLat))/fTime.Seconds()
					b.ReportMetric(sRate, "server-req/s")
					b.ReportMetric(fRate, "floor-req/s")
					b.ReportMetric(sRate/fRate, "ratio")
					b.ReportMetric(p99(sLat), "server-p99-ms")
					b.ReportMetric(p99(fLat), "floor-p99-ms")
					b.ReportMetric(0, "ns/op")
				})
			}
		}
	}
}

// flows returns the server request and the floor operation for one flow.
func flows(b *testing.B, h *harness, flow string) (server, floor func(i int) (int, error)) {
	run := fmt.Sprint(time.Now().UnixNano())
	_, canonical, p := parseCharge([]byte(okBody), &h.cfg)
	if p != nil {
		b.Fatal(p)
	}
	ctx := context.Background()
	claim := func(key string) (store.Record, bool, error) {
		now := time.Now()
		return h.store.Claim(ctx, store.Record{
			Scope:       store.Scope{Account: acctA, Route: RouteCreateCharge, Key: key},
			Fingerprint: idem.Fingerprint(canonical), ProcessorKey: idem.ProcessorKey(acctA, RouteCreateCharge, key, idem.NewNonce()),
			Request: canonical, Owner: newOwner("floor"), LeaseUntil: now.Add(h.cfg.StaleAfter), CreatedAt: now, Attempts: 1,
		})
	}
	if flow == "replay" {
		if s, err := h.raw("replayed", okBody); err != nil || s != 201 {
			b.Fatal(s, err)
		}
		if _, won, err := claim("floor-replayed"); err != nil || !won {
			b.Fatal(won, err)
		}
		server = func(int) (int, error) { return h.raw("replayed", okBody) }
		floor = func(int) (int, error) {
			_, won, err := claim("floor-replayed")
			return 200, errIf(won, err, "the replay claim won")
		}
		return server, floor
	}
	server = func(i int) (int, error) { return h.raw(fmt.Sprintf("srv-%s-%d", run, i), okBody) }
	floor = func(i int) (int, error) {
		rec, won, err := claim(fmt.Sprintf("floor-%s-%d", run, i))
		if err != nil || !won {
			return 0, errIf(!won, err, "a new key lost its claim")
		}
		now := time.Now()
		ch := store.Charge{ID: "ch_floor_" + rec.ProcessorKey[3:27], Account: acctA, AmountCents: 4000, Currency: "GBP",
			Description: "tea", Status: "succeeded", ProcessorKey: rec.ProcessorKey, CreatedAt: now}
		ok, err := h.store.Complete(ctx, rec.Scope, rec.Owner, store.Response{Status: 201, Body: canonical, Charge: &ch}, now)
		return 201, errIf(!ok, err, "the owner could not complete")
	}
	return server, floor
}

func errIf(bad bool, err error, msg string) error {
	if err == nil && bad {
		return fmt.Errorf("%s", msg)
	}
	return err
}

func p99(lat []time.Duration) float64 {
	slices.Sort(lat)
	return ms(lat[len(lat)*99/100])
}
