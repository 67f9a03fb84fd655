package probe

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/contractlint/contractlint/rules"
)

func pass(rule, format string, args ...any) Result {
	return Result{Rule: rule, Outcome: Pass, Message: fmt.Sprintf(format, args...)}
}

func fail(rule, format string, args ...any) Result {
	return Result{Rule: rule, Outcome: Fail, Message: fmt.Sprintf(format, args...)}
}

func skip(rule, format string, args ...any) Result {
	return Result{Rule: rule, Outcome: Skip, Message: fmt.Sprintf(format, args...)}
}

// baseline checks the first request of a step: the comparison that follows
// proves nothing unless the endpoint accepted the probe's request.
func baseline(rule, what string, r reply) (Result, bool) {
	if r.Err != nil {
		return fail(rule, "%s: the first request got no answer: %v", what, r.Err), false
	}
	if !r.ok() {
		return fail(rule, "%s: the first request was answered %s, so the step proves nothing; "+
			"pass a body and headers the endpoint accepts (--body, --header)", what, r.describe()), false
	}
	return Result{}, true
}

// concurrent is step 1: n identical requests with one key at the same
// instant; exactly one may be applied.
func (p *prober) concurrent(ctx context.Context) Result {
	const rule = rules.ProbeConcurrentDuplicates
	n, key := p.cfg.Concurrency, newKey()
	replies := make([]reply, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			replies[i] = p.send.do(ctx, key, p.cfg.Body, nil)
		})
	}
	close(start)
	wg.Wait()

	what := fmt.Sprintf("step 1, %d concurrent identical requests with one key", n)
	var fresh [][]byte
	var conflicts, noRetryAfter, successes int
	other := map[string]int{}
	for _, r := range replies {
		switch {
		case r.Err != nil:
			other["no answer ("+r.Err.Error()+")"]++
		case r.ok() && r.replayed():
			successes++
		case r.ok():
			successes++
			if !slices.ContainsFunc(fresh, func(b []byte) bool { return sameBody(b, r.Body) }) {
				fresh = append(fresh, r.Body)
			}
		case r.Status == http.StatusConflict:
			conflicts++
			if !r.retryAfter() {
				noRetryAfter++
			}
		default:
			other[r.describe()]++
		}
	}
	if err := unreachable(replies); err != nil {
		p.unreachable = err
		return Result{}
	}
	if refused(replies) {
		p.stopped = true
		return fail(rule, "%s: the endpoint refused every request with %s, so the sequence would prove nothing "+
			"and was stopped; pass a body and headers it accepts (--body, --header)", what, replies[0].describe())
	}
	switch {
	case len(fresh) > 1:
		return fail(rule, "%s: %d different successful answers, so the request was applied %d times; "+
			"the server checks for the key and then inserts it (check-then-act): claim the key with one "+
			"atomic insert on a unique index", what, len(fresh), len(fresh))
	case len(other) > 0:
		return fail(rule, "%s: unexpected answers %s; every duplicate must be answered 409 with Retry-After "+
			"or with the stored response", what, counts(other))
	case noRetryAfter > 0:
		return fail(rule, "%s: %d of the %d answers 409 had no Retry-After header, so clients cannot tell "+
			"when to retry", what, noRetryAfter, conflicts)
	case successes == 0:
		return fail(rule, "%s: every request was answered 409, so none was applied", what)
	}
	return pass(rule, "%s: applied once; %d answered 409 with Retry-After, %d with the stored answer", what, conflicts, successes-1)
}

// unreachable returns the error when no request got an answer at all.
func unreachable(replies []reply) error {
	for _, r := range replies {
		if r.Err == nil {
			return nil
		}
	}
	if len(replies) == 0 {
		return nil
	}
	return replies[0].Err
}

// refused reports whether every answer is the same client error other than
// the ones the sequence provokes (409, 422): a wrong API key, a body the
// endpoint rejects, a wrong URL.
func refused(replies []reply) bool {
	for _, r := range replies {
		if r.Err != nil || r.Status < 400 || r.Status >= 500 || r.Status == http.StatusConflict ||
			r.Status == http.StatusUnprocessableEntity || r.Status != replies[0].Status {
			return false
		}
	}
	return len(replies) > 0
}

// counts renders "402 {...} (3 times), 500 x" in a stable order.
func counts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s (%d×)", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// documentsReplay reports whether the contract documents Idempotent-Replay
// on the answer's status.
func (p *prober) documentsReplay(status int) bool {
	res := responseFor(p.cfg.Op, status)
	return res != nil && documents(res, "Idempotent-Replay")
}

// pair sends the probe's body and then other, one after the other, with
// one fresh key.
func (p *prober) pair(ctx context.Context, other []byte) (first, second reply) {
	key := newKey()
	first = p.send.do(ctx, key, p.cfg.Body, nil)
	return first, p.send.do(ctx, key, other, nil)
}

// retry is step 2: a retry after completion gets the first answer back.
func (p *prober) retry(ctx context.Context) Result {
	const rule = rules.ProbeRetryReplay
	const what = "step 2, a retry after the first request completed"
	first, again := p.pair(ctx, p.cfg.Body)
	if res, ok := baseline(rule, what, first); !ok {
		return res
	}
	switch {
	case again.Err != nil:
		return fail(rule, "%s got no answer: %v", what, again.Err)
	case again.Status != first.Status:
		return fail(rule, "%s was answered %s, the first request %d; a retry must get the first answer back",
			what, again.describe(), first.Status)
	case !sameBody(first.Body, again.Body):
		return fail(rule, "%s got a different body (%s) than the first request (%s): the server made a new "+
			"response instead of replaying the stored one", what, excerpt(again.Body), excerpt(first.Body))
	case !again.replayed() && p.documentsReplay(again.Status):
		return fail(rule, "%s got the first answer back but without Idempotent-Replay: true, which the "+
			"contract documents for %d", what, again.Status)
	}
	marked := ""
	if again.replayed() {
		marked = ", marked Idempotent-Replay: true"
	}
	return pass(rule, "%s got the first answer back (%d, same body%s)", what, again.Status, marked)
}

// reuse is step 3: the same key with a different body is rejected.
func (p *prober) reuse(ctx context.Context) Result {
	const rule = rules.ProbeKeyReuseMismatch
	const what = "step 3, the same key with a different body"
	changed, _ := mutate(p.cfg.Body) // Validate proved it can
	first, second := p.pair(ctx, changed)
	if res, ok := baseline(rule, what, first); !ok {
		return res
	}
	const want = http.StatusUnprocessableEntity
	switch {
	case second.Err != nil:
		return fail(rule, "%s got no answer: %v", what, second.Err)
	case second.Status == want:
		return pass(rule, "%s was rejected with %d", what, want)
	case second.ok() && sameBody(first.Body, second.Body):
		return fail(rule, "%s was answered with the first request's response (%d): the server ignores the "+
			"body's fingerprint, so a client that reused a key believes its different request succeeded; "+
			"answer %d", what, second.Status, want)
	case second.ok():
		return fail(rule, "%s was applied as a new request (%s): a second resource under a key that promised "+
			"once; answer %d", what, second.describe(), want)
	}
	return fail(rule, "%s was answered %s, want %d", what, second.describe(), want)
}

// missingKeyRequests is 0 when the contract makes the key optional: the
// probe then has nothing to assert and does not send the request.
func missingKeyRequests(c *Config) int {
	if c.Op != nil && (c.Op.Key == nil || !c.Op.Key.Required) {
		return 0
	}
	return 1
}

// missingKey is step 4: a request without the key is rejected.
func (p *prober) missingKey(ctx context.Context) Result {
	const rule = rules.ProbeMissingKey
	const what = "step 4, a request without Idempotency-Key"
	if op := p.cfg.Op; op != nil {
		if op.Key == nil {
			return skip(rule, "%s: skipped, the contract declares no Idempotency-Key for %s", what, op.ID)
		}
		if !op.Key.Required {
			return skip(rule, "%s: skipped, the contract declares the key optional for %s", what, op.ID)
		}
	}
	r := p.send.do(ctx, "", p.cfg.Body, nil)
	const want = http.StatusBadRequest
	switch {
	case r.Err != nil:
		return fail(rule, "%s got no answer: %v", what, r.Err)
	case r.Status == want:
		return pass(rule, "%s was rejected with %d", what, want)
	case r.ok():
		return fail(rule, "%s was applied (%s): a retry of it would be applied again; answer %d when the key "+
			"is required", what, r.describe(), want)
	}
	return fail(rule, "%s was answered %s, want %d", what, r.describe(), want)
}

// reordered is step 5: the same JSON with its keys in another order is the
// same request.
func (p *prober) reordered(ctx context.Context) Result {
	const rule = rules.ProbeReorderedBody
	const what = "step 5, the same body with its JSON keys reordered"
	shuffled, _ := reorder(p.cfg.Body) // Validate proved it parses
	first, second := p.pair(ctx, shuffled)
	if res, ok := baseline(rule, what, first); !ok {
		return res
	}
	switch {
	case second.Err != nil:
		return fail(rule, "%s got no answer: %v", what, second.Err)
	case second.Status == http.StatusUnprocessableEntity:
		return fail(rule, "%s was answered 422: the server fingerprints the raw bytes, so a client that "+
			"serialises keys in another order cannot retry; fingerprint the canonical JSON", what)
	case second.Status == first.Status && (sameBody(first.Body, second.Body) || second.replayed()):
		return pass(rule, "%s was treated as the same request (%d replayed)", what, second.Status)
	case second.ok():
		return fail(rule, "%s was applied as a new request (%s)", what, second.describe())
	}
	return fail(rule, "%s was answered %s, the first request %d; it must be treated as the same request",
		what, second.describe(), first.Status)
}

// inFlight is step 6: a retry while the first request is still running gets
// 409 with Retry-After, and the answer once it completed. The first request
// asks for DelayHeader; a server that is slow by itself (a slow processor)
// is judged too. When the first answer came back before the retry, there is
// nothing to judge and the step is skipped.
func (p *prober) inFlight(ctx context.Context) Result {
	const rule = rules.ProbeInFlightConflict
	const what = "step 6, a retry while the first request is in flight"
	delay := p.cfg.delay()
	key := newKey()
	slow := http.Header{DelayHeader: {delay.String()}}
	done := make(chan reply, 1)
	var firstDone atomic.Int64
	go func() {
		r := p.send.do(ctx, key, p.cfg.Body, slow)
		firstDone.Store(time.Now().UnixNano())
		done <- r
	}()
	// A quarter of the delay lands the retry well inside the held request.
	select {
	case <-time.After(delay / 4):
	case <-ctx.Done():
	}
	completed := firstDone.Load() != 0
	during := p.send.do(ctx, key, p.cfg.Body, nil)
	first := <-done
	after := p.send.do(ctx, key, p.cfg.Body, nil)
	if res, ok := baseline(rule, what, first); !ok {
		return res
	}
	// Without the echo, a retry answered with the first answer may have gone
	// out just after the first completed: nothing was in flight to judge.
	held := first.Header.Get(DelayHeader) != ""
	if completed || (!held && during.Status == first.Status && (sameBody(first.Body, during.Body) || during.replayed())) {
		return skip(rule, "%s: skipped, the first request was answered before the retry went out: the server "+
			"does not honour the %s test header and is not slow by itself, so the probe cannot hold a request "+
			"in flight; run it with its probe-delay control or a slow processor to check this step", what, DelayHeader)
	}
	switch {
	case during.Err != nil:
		return fail(rule, "%s got no answer: %v", what, during.Err)
	case during.Status != http.StatusConflict:
		return fail(rule, "%s was answered %s, want 409 with Retry-After", what, during.describe())
	case !during.retryAfter():
		return fail(rule, "%s was answered 409 without a Retry-After header, so clients cannot tell when "+
			"to retry", what)
	case after.Err != nil:
		return fail(rule, "%s: the retry after it completed got no answer: %v", what, after.Err)
	case after.Status != first.Status || !(sameBody(first.Body, after.Body) || after.replayed()):
		return fail(rule, "%s: the retry after it completed was answered %s, not the first answer (%d)",
			what, after.describe(), first.Status)
	}
	return pass(rule, "%s was answered 409 with Retry-After: %s, and the first answer once it completed",
		what, during.Header.Get("Retry-After"))
}
