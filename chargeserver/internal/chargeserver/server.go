package chargeserver

import (
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/api"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/idem"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/processor"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/rpc"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/store"
)

// maxBody is the request body limit; larger bodies get 413.
const maxBody = 64 << 10

// Server is the charge API over one store and one processor.
type Server struct {
	cfg     Config
	store   store.Store
	driver  *driver
	keys    *keyring
	limiter *limiter
	metrics *Metrics
	answers *answers
	log     *slog.Logger
	now     func() time.Time
	// contract is the OpenAPI document served, listing cfg.Currencies.
	contract []byte
}

// New builds a Server; cfg must have passed Validate and carry API keys.
func New(cfg Config, st store.Store, proc processor.Processor, log *slog.Logger) *Server {
	return newServer(cfg, st, proc, log, realSeams())
}

// newServer is New with the test seams sm.
func newServer(cfg Config, st store.Store, proc processor.Processor, log *slog.Logger, sm seams) *Server {
	return &Server{
		cfg:      cfg,
		store:    st,
		driver:   newDriver(cfg, st, proc, sm),
		keys:     newKeyring(cfg.APIKeys),
		limiter:  newLimiter(cfg.RateLimit, cfg.RateBurst),
		metrics:  newMetrics(),
		answers:  newAnswers(cfg.ReplayCache, cfg.Retention, cfg.MaxClockSkew),
		log:      log,
		now:      sm.now,
		contract: api.OpenAPIFor(cfg.Currencies),
	}
}

// Metrics exposes the counters (tests and the reaper share them).
func (s *Server) Metrics() *Metrics { return s.metrics }

// Handler routes the API.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/charges", s.authenticate(s.wellFormed(s.createCharge)))
	mux.HandleFunc("GET /v1/charges", s.authenticate(s.listCharges))
	mux.HandleFunc("GET /v1/charges/{id}", s.authenticate(s.getCharge))
	mux.HandleFunc("GET /openapi.yaml", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/yaml")
		_, _ = w.Write(s.contract)
	})
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		_, _ = s.metrics.WriteTo(w)
		stats, err := s.store.ClaimStats(r.Context(), s.now())
		if err != nil {
			// The counters above are still worth a scrape; the gauges are
			// left out rather than reported as zero.
			s.log.Warn("metrics: counting claims", "err", err)
			return
		}
		writeClaimStats(w, stats, s.now())
	})
	// charges.proto's service, run through this same mux.
	rpc.Mount(mux, mux)
	return mux
}

func (s *Server) createCharge(w http.ResponseWriter, r *http.Request) {
	account := accountOf(r.Context())
	body, err := readBody(w, r)
	if err != nil {
		s.reject(w, *err)
		return
	}
	_, hasKey := r.Header["Idempotency-Key"]
	key := idem.NormalizeKey(r.Header.Get("Idempotency-Key"))
	if hasKey || s.cfg.RequireIdempotencyKey {
		if p := keyProblem(idem.ValidateKey(key)); p != nil {
			s.reject(w, *p)
			return
		}
	}
	// A retry that repeats the exact bytes of a body already answered needs
	// no parsing: the same bytes under the same Config validate and
	// fingerprint the same way.
	var sum bodySum
	if hasKey {
		sum = sha256.Sum256(body)
		if a, ok := s.answers.get(chargeScope(account, key), s.now()); ok && a.raw == sum {
			s.metrics.ReplayCacheHits.Add(1)
			s.replay(w, a.status, a.body)
			return
		}
	}
	req, canonical, p := parseCharge(body, &s.cfg)
	if p != nil {
		s.reject(w, *p)
		return
	}
	if !hasKey {
		s.chargeWithoutKey(w, r, account, req)
		return
	}
	s.chargeOnce(w, r, account, key, canonical, sum)
}

func chargeScope(account, key string) store.Scope {
	return store.Scope{Account: account, Route: RouteCreateCharge, Key: key}
}

func readBody(w http.ResponseWriter, r *http.Request) ([]byte, *problem) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		p := newProblem(413, "body_too_large", "the body is over 64 KiB")
		return nil, &p
	case err != nil:
		p := newProblem(400, "invalid_json", "the body could not be read")
		return nil, &p
	}
	return body, nil
}

func keyProblem(err error) *problem {
	if err == nil {
		return nil
	}
	code := "idempotency_key_invalid"
	if errors.Is(err, idem.ErrKeyMissing) {
		code = "idempotency_key_missing"
	}
	p := newProblem(400, code, err.Error())
	return &p
}

// reject answers a request that stores nothing.
func (s *Server) reject(w http.ResponseWriter, p problem) {
	s.metrics.request(p.Code)
	writeProblem(w, p, 0)
}

// chargeOnce is the idempotent path: claim, or answer from the existing claim.
func (s *Server) chargeOnce(w http.ResponseWriter, r *http.Request, account, key string, canonical []byte, sum bodySum) {
	now := s.now()
	scope := chargeScope(account, key)
	fingerprint := idem.Fingerprint(canonical)
	if a, ok := s.answers.get(scope, now); ok {
		s.metrics.ReplayCacheHits.Add(1)
		if a.fingerprint != fingerprint {
			s.keyReused(w)
			return
		}
		s.answers.remember(scope, sum)
		s.replay(w, a.status, a.body)
		return
	}
	rec := store.Record{
		Scope:        scope,
		Fingerprint:  fingerprint,
		ProcessorKey: idem.ProcessorKey(account, RouteCreateCharge, key, idem.NewNonce()),
		Request:      canonical,
		Owner:        newOwner("req"),
		LeaseUntil:   now.Add(s.cfg.StaleAfter),
		CreatedAt:    now,
		Attempts:     1,
	}
	ctx := r.Context()
	existing, claimed, err := s.store.Claim(ctx, rec)
	switch {
	case err != nil:
		s.unavailable(w, "claim", err)
	case claimed:
		s.execute(w, r, rec)
	default:
		s.answerExisting(w, r, existing, rec)
	}
}

// answerExisting handles a key someone already claimed.
func (s *Server) answerExisting(w http.ResponseWriter, r *http.Request, existing, mine store.Record) {
	now := s.now()
	s.answers.put(existing, now)
	switch {
	case existing.Fingerprint != mine.Fingerprint:
		s.keyReused(w)
	case existing.Status == store.StatusCompleted:
		s.replay(w, existing.ResponseStatus, existing.ResponseBody)
	case existing.LeaseUntil.Before(now):
		// The first attempt is dead or gave up: this retry re-drives it, with
		// the same processor key, if it wins the takeover.
		ok, err := s.store.TakeOver(r.Context(), existing.Scope, existing.Owner, mine.Owner, now, now.Add(s.cfg.StaleAfter))
		if err != nil {
			s.unavailable(w, "takeover", err)
			return
		}
		if !ok {
			// Another retry just took it over, with a fresh lease.
			s.inProgress(w, retryAfter(now.Add(s.cfg.StaleAfter), now))
			return
		}
		existing.Owner = mine.Owner
		existing.Attempts++
		s.execute(w, r, existing)
	default:
		s.inProgress(w, retryAfter(existing.LeaseUntil, now))
	}
}

func (s *Server) keyReused(w http.ResponseWriter) {
	s.metrics.KeyReused.Add(1)
	s.reject(w, newProblem(422, "idempotency_key_reused", "this Idempotency-Key was used with a different request body"))
}

// execute drives a claim this request owns. It does not stop when the client
// hangs up: the charge must be recorded either way.
func (s *Server) execute(w http.ResponseWriter, r *http.Request, rec store.Record) {
	if d := s.probeDelay(r); d > 0 {
		// The echo tells the probe the request really was held.
		w.Header().Set(probeDelayHeader, d.String())
		time.Sleep(d)
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), s.cfg.ProcessorTimeout+10*time.Second)
	defer cancel()
	out, err := s.driver.drive(ctx, rec)
	if err != nil {
		s.unavailable(w, "drive", err)
		return
	}
	if !out.recorded {
		// Someone took the claim over; theirs is the answer of record.
		s.answerLost(ctx, w, rec)
		return
	}
	rec.Status, rec.ResponseStatus, rec.ResponseBody = store.StatusCompleted, out.resp.Status, out.resp.Body
	s.answers.put(rec, s.now())
	s.metrics.request(out.name)
	if out.name == outcomeUnresolved {
		s.metrics.GaveUp.Add(1)
	}
	s.log.Info("charge", "account", rec.Account, "key", idem.Redact(rec.Key), "status", out.resp.Status)
	writeBody(w, out.resp.Status, out.resp.Body)
}

// probeDelayHeader is the test control `contractlint probe` sends on the first
// request of its in-flight step (probe.DelayHeader).
const probeDelayHeader = "X-Probe-Delay"

// maxProbeDelay bounds how long one request can be held.
const maxProbeDelay = 5 * time.Second

// probeDelay is how long to hold a claimed charge before calling the
// processor, as the request asks with X-Probe-Delay; 0 unless the server runs
// with AllowProbeDelay. It is capped so the hold plus the processor timeout
// stays inside the lease: a held attempt is never mistaken for a dead one.
func (s *Server) probeDelay(r *http.Request) time.Duration {
	v := r.Header.Get(probeDelayHeader)
	if !s.cfg.AllowProbeDelay || v == "" {
		return 0
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0
	}
	return min(d, maxProbeDelay, s.cfg.StaleAfter-s.cfg.ProcessorTimeout-time.Millisecond)
}

func (s *Server) answerLost(ctx context.Context, w http.ResponseWriter, rec store.Record) {
	cur, err := s.store.Get(ctx, rec.Scope)
	switch {
	case err == nil && cur.Status == store.StatusCompleted:
		s.answers.put(cur, s.now())
		s.replay(w, cur.ResponseStatus, cur.ResponseBody)
	case err == nil:
		s.inProgress(w, retryAfter(cur.LeaseUntil, s.now()))
	default:
		s.inProgress(w, retryAfter(s.now().Add(s.cfg.StaleAfter), s.now()))
	}
}

// retryAfter is the Retry-After for a claim in flight: the whole seconds
// until its lease ends, when the attempt holding it has either answered or is
// presumed dead and a retry may take it over; at least 1.
func retryAfter(leaseUntil, now time.Time) int {
	return max(1, int(math.Ceil(leaseUntil.Sub(now).Seconds())))
}

func (s *Server) replay(w http.ResponseWriter, status int, body []byte) {
	s.metrics.Replays.Add(1)
	s.metrics.request("replayed")
	w.Header().Set("Idempotent-Replay", "true")
	writeBody(w, status, body)
}

func (s *Server) inProgress(w http.ResponseWriter, retryAfter int) {
	s.metrics.InProgress.Add(1)
	s.metrics.request("request_in_progress")
	writeProblem(w, newProblem(409, "request_in_progress", "a request with this Idempotency-Key is in progress"), retryAfter)
}

// unavailable answers 503: nothing definitive happened that the client must
// know, and a retry with the same key is safe.
func (s *Server) unavailable(w http.ResponseWriter, stage string, err error) {
	s.log.Warn("charge not completed", "stage", stage, "err", err)
	s.metrics.request("unavailable")
	writeProblem(w, newProblem(503, "processor_unavailable", "the charge could not be completed now; retry with the same Idempotency-Key"), 1)
}

// chargeWithoutKey serves keyless POSTs while keys are not yet required; it
// is also the "idempotency layer off" baseline of the benchmarks.
func (s *Server) chargeWithoutKey(w http.ResponseWriter, r *http.Request, account string, req chargeRequest) {
	s.metrics.WithoutKey.Add(1)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), s.cfg.ProcessorTimeout)
	defer cancel()
	rec := store.Record{Scope: store.Scope{Account: account}, ProcessorKey: newOwner("nokey")}
	res, err := s.driver.proc.Charge(ctx, processor.Request{Key: rec.ProcessorKey, Account: account, AmountCents: req.AmountCents,
		Currency: req.Currency, CardToken: req.CardToken, Description: req.Description})
	var out outcome
	switch {
	case errors.Is(err, processor.ErrRejected):
		out = rejected()
	case err != nil:
		s.unavailable(w, "processor", err)
		return
	default:
		out = responseFor(rec, req, res, s.now())
	}
	resp := out.resp
	if resp.Charge != nil {
		if err := s.store.InsertCharge(ctx, *resp.Charge); err != nil {
			s.unavailable(w, "record", err)
			return
		}
	}
	s.metrics.request(out.name)
	writeBody(w, resp.Status, resp.Body)
}

func (s *Server) getCharge(w http.ResponseWriter, r *http.Request) {
	c, err := s.store.Charge(r.Context(), accountOf(r.Context()), r.PathValue("id"))
	switch {
	case errors.Is(err, store.ErrNotFound):
		writeProblem(w, newProblem(404, "not_found", "no such charge"), 0)
	case err != nil:
		s.unavailable(w, "read", err)
	default:
		writeJSON(w, 200, toJSON(c))
	}
}

func (s *Server) listCharges(w http.ResponseWriter, r *http.Request) {
	limit := 10
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			writeProblem(w, newProblem(400, "invalid_request", "limit must be an integer from 1 to 100"), 0)
			return
		}
		limit = n
	}
	cs, err := s.store.Charges(r.Context(), accountOf(r.Context()), limit+1)
	if err != nil {
		s.unavailable(w, "read", err)
		return
	}
	out := struct {
		Data    []chargeJSON `json:"data"`
		HasMore bool         `json:"has_more"`
	}{Data: []chargeJSON{}, HasMore: len(cs) > limit}
	for i := 0; i < len(cs) && i < limit; i++ {
		out.Data = append(out.Data, toJSON(cs[i]))
	}
	writeJSON(w, 200, out)
}
