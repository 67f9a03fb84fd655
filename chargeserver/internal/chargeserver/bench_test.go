package chargeserver

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// benchClients is how many concurrent clients drive the server.
var benchClients = flag.Int("bench-clients", 16, "concurrent clients in the load benchmarks")

// BenchmarkCharges measures throughput and latency over real HTTP on a real
// database: new keys (claim, processor, one transaction), replays (claim
// conflict, stored answer) and the same charge with the idempotency layer
// off (no key, rollout mode), which is the baseline for its overhead.
//
//	go test ./internal/chargeserver -run '^$' -bench . -benchtime 5s [-bench-clients 8]
func BenchmarkCharges(b *testing.B) {
	backends := []struct {
		name string
		dsn  func(testing.TB) string
	}{{"sqlite", sqliteDSN}, {"postgres", postgresDSN}}
	for _, be := range backends {
		b.Run(be.name+"/new-key", func(b *testing.B) {
			h := benchHarness(b, be.dsn(b))
			run := fmt.Sprint(time.Now().UnixNano())
			loadTest(b, func(i int) (int, error) { return h.raw(fmt.Sprintf("bench-%s-%d", run, i), okBody) }, 201)
		})
		b.Run(be.name+"/replay", func(b *testing.B) {
			h := benchHarness(b, be.dsn(b))
			if s, err := h.raw("replayed", okBody); err != nil || s != 201 {
				b.Fatal(s, err)
			}
			loadTest(b, func(int) (int, error) { return h.raw("replayed", okBody) }, 201)
		})
		b.Run(be.name+"/layer-off", func(b *testing.B) {
			h := benchHarness(b, be.dsn(b))
			loadTest(b, func(int) (int, error) { return h.raw("", okBody) }, 201)
		})
	}
}

// BenchmarkIdempotencyOverhead reports the time of a new-key charge as a
// ratio to the same charge with the layer off, on one database, measured in
// one run so both see the same machine state.
func BenchmarkIdempotencyOverhead(b *testing.B) {
	for _, be := range []struct {
		name string
		dsn  func(testing.TB) string
	}{{"sqlite", sqliteDSN}, {"postgres", postgresDSN}} {
		b.Run(be.name, func(b *testing.B) {
			h := benchHarness(b, be.dsn(b))
			run := fmt.Sprint(time.Now().UnixNano())
			var keyed, off time.Duration
			for range b.N {
				// Interleave in slices so drift hits both sides alike.
				start := time.Now()
				drive(b, 200, func(i int) (int, error) { return h.raw(fmt.Sprintf("ovh-%s-%d-%d", run, start.UnixNano(), i), okBody) })
				keyed += time.Since(start)
				start = time.Now()
				drive(b, 200, func(int) (int, error) { return h.raw("", okBody) })
				off += time.Since(start)
			}
			b.ReportMetric(float64(keyed)/float64(off), "overhead-ratio")
		})
	}
}

func benchHarness(b *testing.B, db string) *harness {
	cfg := testConfig(db)
	cfg.RequireIdempotencyKey = false // lets layer-off share the server
	h := newHarness(b, cfg, nil)
	h.client.Transport.(*http.Transport).MaxIdleConnsPerHost = *benchClients
	return h
}

// raw posts without contract validation, which would dominate the timing.
func (h *harness) raw(key, body string) (int, error) {
	req, _ := http.NewRequest(http.MethodPost, h.url+"/v1/charges", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+keyA)
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

// loadTest sends b.N requests from benchClients goroutines and reports
// requests/s and the p50 and p99 latency.
func loadTest(b *testing.B, send func(i int) (int, error), want int) {
	b.ResetTimer()
	start := time.Now()
	lat := drive(b, b.N, func(i int) (int, error) {
		s, err := send(i)
		if err == nil && s != want {
			err = fmt.Errorf("status %d, want %d", s, want)
		}
		return s, err
	})
	elapsed := time.Since(start)
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "req/s")
	b.ReportMetric(ms(lat[len(lat)/2]), "p50-ms")
	b.ReportMetric(ms(lat[len(lat)*99/100]), "p99-ms")
	b.ReportMetric(0, "ns/op") // meaningless for a concurrent load
}

// drive runs n requests over benchClients goroutines and returns latencies.
func drive(b *testing.B, n int, send func(i int) (int, error)) []time.Duration {
	return driveWith(b, *benchClients, n, send)
}

// driveWith runs n requests over clients goroutines and returns latencies.
func driveWith(b *testing.B, clients, n int, send func(i int) (int, error)) []time.Duration {
	lat := make([]time.Duration, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	var failed atomic.Bool
	for range clients {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n || failed.Load() {
					return
				}
				t := time.Now()
				if _, err := send(i); err != nil {
					failed.Store(true)
					b.Error(err)
					return
				}
				lat[i] = time.Since(t)
			}
		})
	}
	wg.Wait()
	return lat
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
