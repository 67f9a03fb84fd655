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
		return fail(rule, "%s: the first request got %s", what, r.describe()), false
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
	count := p.startCount(ctx)
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
	created, countErr := count.finish(ctx)

	what := fmt.Sprintf("step 1, %d concurrent identical requests with one key", n)
	if err := unreachable(replies); err != nil {
		p.unreachable = err
		return Result{}
	}
	if refused(replies) {
		p.stopped = true
		return fail(rule, "%s: the endpoint refused every request with %s, so the sequence would prove nothing "+
			"and was stopped; pass a body and headers it accepts (--body, --header)", what, replies[0].describe())
	}
	if countErr != nil {
		return fail(rule, "%s: the probe could not count the charges it created: %v", what, countErr)
	}
	return tallyOf(replies).judge(what, created)
}

// tally sorts step 1's answers.
type tally struct {
	fresh                                         [][32]byte // distinct fresh successes
	conflicts, noRetryAfter, successes, serverErr int
	other                                         map[string]int
}

func tallyOf(replies []reply) tally {
	t := tally{other: map[string]int{}}
	for _, r := range replies {
		switch {
		case r.Err != nil:
			t.other[r.describe()]++
		case r.ok():
			t.successes++
			if !r.replayed() && !slices.Contains(t.fresh, r.Digest) {
				t.fresh = append(t.fresh, r.Digest)
			}
		case r.Status == http.StatusConflict:
			t.conflicts++
			if !r.retryAfter() {
				t.noRetryAfter++
			}
		default:
			t.other[r.describe()]++
			if r.Status >= 500 {
				t.serverErr++
			}
		}
	}
	return t
}

// judge decides step 1 from the answers and, when the charges endpoint was
// listed (created >= 0), from the charges that appeared there.
func (t tally) judge(what string, created int) Result {
	const rule = rules.ProbeConcurrentDuplicates
	switch {
	case created > 1:
		return fail(rule, "%s: %d charges appeared at the charges endpoint, so the request was applied %d "+
			"times%s; the server checks for the key and then inserts it (check-then-act), or charges before "+
			"its claim: claim the key with one atomic insert on a unique index before charging",
			what, created, created, hidden(len(t.fresh), t.serverErr))
	case created == 0 && t.successes > 0:
		return fail(rule, "%s: no charge with the request's fields appeared at the charges endpoint, so the "+
			"probe cannot count what the requests did; give a --charges-endpoint that lists the newest charges "+
			"first, with the fields they were created with", what)
	case len(t.fresh) > 1:
		return fail(rule, "%s: %d different successful answers, so the request was applied %d times; "+
			"the server checks for the key and then inserts it (check-then-act): claim the key with one "+
			"atomic insert on a unique index", what, len(t.fresh), len(t.fresh))
	case len(t.other) > 0 && t.serverErr > 0 && created < 0:
		return fail(rule, "%s: unexpected answers %s; a duplicate answered 5xx may have been charged all the "+
			"same, and the probe cannot count charges without --charges-endpoint; every duplicate must be "+
			"answered 409 with Retry-After or with the stored response", what, counts(t.other))
	case len(t.other) > 0:
		return fail(rule, "%s: unexpected answers %s; every duplicate must be answered 409 with Retry-After "+
			"or with the stored response", what, counts(t.other))
	case t.noRetryAfter > 0:
		return fail(rule, "%s: %d of the %d answers 409 had no Retry-After header, so clients cannot tell "+
			"when to retry", what, t.noRetryAfter, t.conflicts)
	case t.successes == 0:
		return fail(rule, "%s: every request was answered 409, so none was applied", what)
	}
	how := "applied once by the answers alone (without --charges-endpoint the probe cannot see a server that " +
		"charges every duplicate and answers them all alike)"
	if created == 1 {
		how = "applied once (1 charge appeared at the charges endpoint)"
	}
	return pass(rule, "%s: %s; %d answered 409 with Retry-After, %d with the stored answer", what, how, t.conflicts, t.successes-1)
}

// hidden says how the answers hid a double charge the count found.
func hidden(distinct, serverErrors int) string {
	switch {
	case serverErrors > 0:
		return fmt.Sprintf(", though %d duplicates were answered 5xx: a server error after the money moved is "+
			"a double charge, not a failed request", serverErrors)
	case distinct <= 1:
		return ", yet every success carried one identical answer, which hides the duplicates from the client"
	}
	return ""
}

// unreachable returns the error when no request got an answer at all.
func unreachable(replies []reply) error {
	for _, r := range replies {
		if r.answered() {
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
	key := newKey()
	first := p.send.do(ctx, key, p.cfg.Body, nil)
	p.earlier = retried{key: key, first: first, at: time.Now()}
	again := p.send.do(ctx, key, p.cfg.Body, nil)
	if res, ok := baseline(rule, what, first); !ok {
		return res
	}
	switch {
	case again.Err != nil:
		return fail(rule, "%s got %s", what, again.describe())
	case again.Status != first.Status:
		return fail(rule, "%s was answered %s, the first request %d; a retry must get the first answer back",
			what, again.describe(), first.Status)
	case !first.same(again):
		return fail(rule, "%s got a different body (%s) than the first request (%s)%s: the server made a new "+
			"response instead of replaying the stored one", what, excerpt(again.Body), excerpt(first.Body), beyond(first, again))
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

// beyond notes when two different bodies look alike in their excerpts: the
// difference is further in, where only the whole-body digest sees it.
func beyond(a, b reply) string {
	if excerpt(a.Body) == excerpt(b.Body) {
		return ", alike as far as shown and different further in"
	}
	return ""
}

// reuseRequests is the first request and one per variant.
func reuseRequests(c *Config) int {
	vs, _ := variants(c.Body) // Validate proved there is one
	return 1 + len(vs)
}

// reuse is step 3: the same key with a different body is rejected, whichever
// member differs.
func (p *prober) reuse(ctx context.Context) Result {
	const rule = rules.ProbeKeyReuseMismatch
	const what = "step 3, the same key with a different body"
	vs, _ := variants(p.cfg.Body) // Validate proved there is one
	key := newKey()
	first := p.send.do(ctx, key, p.cfg.Body, nil)
	if res, ok := baseline(rule, what, first); !ok {
		return res
	}
	var changed []string
	for i, v := range vs {
		second := p.send.do(ctx, key, v.body, nil)
		if res, ok := p.judgeReuse(first, second, v.member, i > 0); !ok {
			return res
		}
		changed = append(changed, v.member)
	}
	return pass(rule, "%s was rejected with %d (%s changed in turn)", what, http.StatusUnprocessableEntity, strings.Join(changed, ", then "))
}

// judgeReuse judges the answer to a variant; later says an earlier variant,
// changing another member, was rejected.
func (p *prober) judgeReuse(first, second reply, member string, later bool) (Result, bool) {
	const rule = rules.ProbeKeyReuseMismatch
	what := fmt.Sprintf("step 3, the same key with a different body (%s changed)", member)
	const want = http.StatusUnprocessableEntity
	switch {
	case second.Err != nil:
		return fail(rule, "%s got %s", what, second.describe()), false
	case second.Status == want:
		return Result{}, true
	case second.ok() && (first.same(second) || second.replayed()) && later:
		return fail(rule, "%s was answered with the first request's response (%d): the server's fingerprint "+
			"leaves out %s, so a client that reused a key with another %s believes its different request "+
			"succeeded; fingerprint the whole canonical body and answer %d", what, second.Status, member, member, want), false
	case second.ok() && (first.same(second) || second.replayed()):
		return fail(rule, "%s was answered with the first request's response (%d): the server ignores the "+
			"body's fingerprint, so a client that reused a key believes its different request succeeded; "+
			"answer %d", what, second.Status, want), false
	case second.ok():
		return fail(rule, "%s was applied as a new request (%s): a second resource under a key that promised "+
			"once; answer %d", what, second.describe(), want), false
	}
	return fail(rule, "%s was answered %s, want %d", what, second.describe(), want), false
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
	case second.Status == first.Status && (first.same(second) || second.replayed()):
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
	if completed || (!held && during.Status == first.Status && (first.same(during) || during.replayed())) {
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
	case after.Status != first.Status || !(first.same(after) || after.replayed()):
		return fail(rule, "%s: the retry after it completed was answered %s, not the first answer (%d)",
			what, after.describe(), first.Status)
	}
	return pass(rule, "%s was answered 409 with Retry-After: %s, and the first answer once it completed",
		what, during.Header.Get("Retry-After"))
}

// accountScopeRequests is 2 with another account's credentials, else 0.
func accountScopeRequests(c *Config) int {
	if len(c.SecondHeader) == 0 {
		return 0
	}
	return 2
}

// accountScope is step 7: account B sending account A's key and body makes
// a new request of its own, never gets A's answer.
func (p *prober) accountScope(ctx context.Context) Result {
	const rule = rules.ProbeKeyAccountScope
	const what = "step 7, another account's request with the first account's key and body"
	if len(p.cfg.SecondHeader) == 0 {
		return skip(rule, "%s: skipped, give --second-header with another account's credentials to check that "+
			"keys are scoped to the account", what)
	}
	key := newKey()
	first := p.send.do(ctx, key, p.cfg.Body, nil)
	if res, ok := baseline(rule, what, first); !ok {
		return res
	}
	other := p.send.do(ctx, key, p.cfg.Body, p.cfg.SecondHeader)
	switch {
	case other.Err != nil:
		return fail(rule, "%s got %s", what, other.describe())
	case first.same(other) || (other.ok() && other.replayed()):
		return fail(rule, "%s was given the first account's answer (%s): keys are not scoped to the account, "+
			"so one account is shown another's charge and its own request is never made; claim by (account, key)",
			what, other.describe())
	case other.ok():
		return pass(rule, "%s was a new request of its own (%d, another answer)", what, other.Status)
	case other.Status == http.StatusConflict || other.Status == http.StatusUnprocessableEntity:
		return fail(rule, "%s was answered %s: the key is shared between accounts, so one account's key "+
			"blocks another's request; claim by (account, key)", what, other.describe())
	}
	return fail(rule, "%s was answered %s; check that --second-header holds another account's valid "+
		"credentials", what, other.describe())
}

// delayedRetryRequests is 1 when the step runs.
func delayedRetryRequests(c *Config) int {
	if c.RetryAfter == 0 {
		return 0
	}
	return 1
}

// retried is step 2's first request, which step 8 retries later.
type retried struct {
	key   string
	first reply
	at    time.Time
}

// delayedRetry is step 8: step 2's request retried RetryAfter after its
// first answer still gets that answer back. It comes last, so the steps in
// between use up most of the wait.
func (p *prober) delayedRetry(ctx context.Context) Result {
	const rule = rules.ProbeDelayedRetry
	d := p.cfg.RetryAfter
	what := fmt.Sprintf("step 8, a retry %s after the first request", d)
	switch {
	case d == 0:
		return skip(rule, "%s: skipped (--retry-after 0)", what)
	case !p.earlier.first.ok():
		return skip(rule, "%s: skipped, step 2's first request was not accepted, so there is nothing to retry", what)
	}
	select {
	case <-time.After(time.Until(p.earlier.at.Add(d))):
	case <-ctx.Done():
	}
	first := p.earlier.first
	again := p.send.do(ctx, p.earlier.key, p.cfg.Body, nil)
	switch {
	case again.Err != nil:
		return fail(rule, "%s got %s", what, again.describe())
	case again.Status == first.Status && first.same(again):
		return pass(rule, "%s got the first answer back (%d, same body)", what, again.Status)
	case again.ok():
		return fail(rule, "%s was applied as a new request (%s, the first answer was %s): the server forgot "+
			"the key within %s, so a client that retries after a timeout and a backoff is charged twice; keep "+
			"keys for the retention the contract documents", what, again.describe(), first.describe(), d)
	}
	return fail(rule, "%s was answered %s, not the first answer (%d)", what, again.describe(), first.Status)
}
