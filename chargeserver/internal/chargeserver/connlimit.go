package chargeserver

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// connLimiter bounds the connections a server holds, so idle ones cannot
// use up its file descriptors: at most max open, at most maxIdle idle (or
// new, not yet active) per client address, and a short idle timeout until a
// connection has sent an authenticated request. When a bound is reached the
// connection idle the longest is closed: an idle connection costs its
// client nothing to reopen, while a paying request must get a place.
type connLimiter struct {
	net.Listener
	max, maxIdle int
	preAuthIdle  time.Duration

	mu     sync.Mutex
	open   int
	idle   map[*limitedConn]struct{}            // new or idle, in every address
	byAddr map[string]map[*limitedConn]struct{} // the same, by client address
}

// limitedConn is one accepted connection and what the limiter knows of it.
type limitedConn struct {
	net.Conn
	addr string
	// authenticated is set once a request on it passes authentication.
	authenticated atomic.Bool
	// Guarded by the limiter's mu.
	since  time.Time // when it last became new or idle
	idleN  int       // counts the times it became idle, so a stale timer does nothing
	closed bool
	timer  *time.Timer
}

func newConnLimiter(ln net.Listener, cfg Config) *connLimiter {
	return &connLimiter{Listener: ln, max: cfg.MaxConnections, maxIdle: cfg.MaxIdlePerClient, preAuthIdle: cfg.PreAuthIdleTimeout,
		idle: map[*limitedConn]struct{}{}, byAddr: map[string]map[*limitedConn]struct{}{}}
}

// Accept admits the next connection, closing the longest idle one when the
// server is at its bound; with none idle, the new connection is closed
// instead (every open one is busy with a request).
func (l *connLimiter) Accept() (net.Conn, error) {
	for {
		nc, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		c := &limitedConn{Conn: nc, addr: clientAddr(nc)}
		l.mu.Lock()
		if l.open >= l.max && !l.evictOldest(l.idle) {
			l.mu.Unlock()
			_ = nc.Close()
			continue
		}
		l.open++
		l.markIdle(c)
		l.mu.Unlock()
		return c, nil
	}
}

func clientAddr(c net.Conn) string {
	if a, ok := c.RemoteAddr().(*net.TCPAddr); ok {
		return a.IP.String()
	}
	return c.RemoteAddr().String()
}

// connState is the http.Server's ConnState hook.
func (l *connLimiter) connState(nc net.Conn, state http.ConnState) {
	c, ok := nc.(*limitedConn)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	switch state {
	case http.StateActive:
		l.unmarkIdle(c)
	case http.StateIdle:
		l.markIdle(c)
		if !c.authenticated.Load() {
			c.idleN++
			n := c.idleN
			c.timer = time.AfterFunc(l.preAuthIdle, func() { l.closeIfIdle(c, n) })
		}
	case http.StateHijacked, http.StateClosed:
		l.unmarkIdle(c)
		if !c.closed {
			c.closed = true
			l.open--
		}
	}
}

// markIdle records c as idle (or new) and keeps its address within its
// bound. l.mu must be held.
func (l *connLimiter) markIdle(c *limitedConn) {
	c.since = time.Now()
	l.idle[c] = struct{}{}
	set := l.byAddr[c.addr]
	if set == nil {
		set = map[*limitedConn]struct{}{}
		l.byAddr[c.addr] = set
	}
	set[c] = struct{}{}
	if len(set) > l.maxIdle {
		l.evictOldest(set)
	}
}

// unmarkIdle forgets c as idle. l.mu must be held.
func (l *connLimiter) unmarkIdle(c *limitedConn) {
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	delete(l.idle, c)
	if set := l.byAddr[c.addr]; set != nil {
		delete(set, c)
		if len(set) == 0 {
			delete(l.byAddr, c.addr)
		}
	}
}

// evictOldest closes the connection of set idle the longest; false when
// set is empty. l.mu must be held.
func (l *connLimiter) evictOldest(set map[*limitedConn]struct{}) bool {
	var oldest *limitedConn
	for c := range set {
		if oldest == nil || c.since.Before(oldest.since) {
			oldest = c
		}
	}
	if oldest == nil {
		return false
	}
	l.closeConn(oldest)
	return true
}

// closeIfIdle closes c if it is still in the idle spell n.
func (l *connLimiter) closeIfIdle(c *limitedConn, n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, idle := l.idle[c]; idle && !c.closed && c.idleN == n {
		l.closeConn(c)
	}
}

// closeConn closes c and gives its place back at once, not when net/http
// notices. l.mu must be held.
func (l *connLimiter) closeConn(c *limitedConn) {
	l.unmarkIdle(c)
	if !c.closed {
		c.closed = true
		l.open--
	}
	_ = c.Conn.Close()
}

type connKey struct{}

// connContext is the http.Server's ConnContext hook: requests can find
// their connection to mark it authenticated.
func connContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// markAuthenticated gives the request's connection the ordinary idle
// timeout from now on.
func markAuthenticated(r *http.Request) {
	if c, ok := r.Context().Value(connKey{}).(*limitedConn); ok {
		c.authenticated.Store(true)
	}
}

// goTooLarge is what net/http writes, straight to the connection, for
// headers past its own limit (MaxHeaderBytes plus 4 KiB of read-ahead):
// plain text, where the contract promises the problem JSON.
const goTooLarge = "HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: text/plain; charset=utf-8\r\n" +
	"Connection: close\r\n\r\n431 Request Header Fields Too Large"

// Write answers net/http's own 431 with the contract's problem JSON; the
// handler answers headers between maxHeaderBytes and net/http's limit the
// same way (limitHeaders).
func (c *limitedConn) Write(p []byte) (int, error) {
	if len(p) == len(goTooLarge) && bytes.Equal(p, []byte(goTooLarge)) {
		if _, err := c.Conn.Write(headersTooLargeResponse()); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return c.Conn.Write(p)
}

func headersTooLarge() problem {
	return newProblem(http.StatusRequestHeaderFieldsTooLarge, "header_too_large", "the request line and headers are over 16 KiB")
}

func headersTooLargeResponse() []byte {
	body := headersTooLarge().body()
	var b bytes.Buffer
	b.WriteString("HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: application/problem+json\r\nConnection: close\r\n")
	b.WriteString("Content-Length: ")
	b.WriteString(strconv.Itoa(len(body)))
	b.WriteString("\r\n\r\n")
	b.Write(body)
	return b.Bytes()
}

// limitHeaders answers 431 for a request whose request line and header
// lines are over maxHeaderBytes, counted as they were sent in canonical
// form ("Name: value" and CRLF each).
func limitHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if headerSize(r) > maxHeaderBytes {
			w.Header().Set("Connection", "close")
			writeProblem(w, headersTooLarge(), 0)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func headerSize(r *http.Request) int {
	n := len(r.Method) + 1 + len(r.RequestURI) + 1 + len(r.Proto) + 2
	if r.Host != "" {
		n += len("Host: ") + len(r.Host) + 2
	}
	for k, vs := range r.Header {
		for _, v := range vs {
			n += len(k) + 2 + len(v) + 2
		}
	}
	return n
}
