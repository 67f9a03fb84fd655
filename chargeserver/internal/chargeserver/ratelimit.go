package chargeserver

import (
	"math"
	"sync"
	"time"
)

// limiter is a token bucket per account, so one noisy account cannot starve
// the others. It is per process: with several instances each allows the rate.
type limiter struct {
	rate  float64 // tokens per second; 0 = unlimited
	burst float64
	mu    sync.Mutex
	b     map[string]*bucket
}

type bucket struct {
	tokens float64
	last   time.Time
}

func newLimiter(rate float64, burst int) *limiter {
	return &limiter{rate: rate, burst: float64(burst), b: map[string]*bucket{}}
}

// take spends one token and returns 0, or the whole seconds to wait.
func (l *limiter) take(account string, now time.Time) int {
	if l.rate == 0 {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.b[account]
	if !ok {
		b = &bucket{tokens: l.burst, last: now}
		l.b[account] = b
	}
	b.tokens = math.Min(l.burst, b.tokens+now.Sub(b.last).Seconds()*l.rate)
	b.last = now
	if b.tokens >= 1 {
		b.tokens--
		return 0
	}
	return int(math.Ceil((1 - b.tokens) / l.rate))
}
