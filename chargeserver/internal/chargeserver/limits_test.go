package chargeserver

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// rawRequest is a GET /v1/charges whose request line and header lines (each
// with its CRLF, the blank line after them not counted) are exactly size
// bytes, padded with X-Padding.
func rawRequest(host string, size int) string {
	head := "GET /v1/charges HTTP/1.1\r\nHost: " + host + "\r\nAuthorization: Bearer " + keyA + "\r\n"
	pad := size - len(head) - len("X-Padding: \r\n")
	return head + "X-Padding: " + strings.Repeat("a", pad) + "\r\n\r\n"
}

// TestHeaderLimitIsWhatTheDocsSay: request headers of up to 16 KiB are
// served; anything over gets 431 with the problem JSON of the contract.
// Headers of 17-20 KB used to be served (net/http's limit has 4 KiB of
// slack) and the 431 beyond that was plain text.
func TestHeaderLimitIsWhatTheDocsSay(t *testing.T) {
	h := newHarness(t, testConfig(sqliteDSN(t)), nil)
	u, _ := url.Parse(h.url)
	for _, size := range []int{maxHeaderBytes - 1000, maxHeaderBytes, maxHeaderBytes + 1, 17_000, 19_500, 20_500, 40_000} {
		conn, err := net.Dial("tcp", u.Host)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(conn, rawRequest(u.Host, size)); err != nil {
			t.Fatal(err)
		}
		_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("%d bytes of headers: %v", size, err)
		}
		body, _ := io.ReadAll(resp.Body)
		conn.Close()
		if size <= maxHeaderBytes {
			if resp.StatusCode != 200 {
				t.Errorf("%d bytes of headers: %d %s, want 200", size, resp.StatusCode, body)
			}
			continue
		}
		var p problem
		if resp.StatusCode != 431 || resp.Header.Get("Content-Type") != "application/problem+json" ||
			json.Unmarshal(body, &p) != nil || p.Code != "header_too_large" || p.Status != 431 {
			t.Errorf("%d bytes of headers: %d %q %s; want 431 application/problem+json header_too_large",
				size, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
	}
}

// dialFrom opens a connection to host from the loopback address local
// (127.0.0.0/8 is all loopback on Linux, so each is a distinct client).
func dialFrom(t *testing.T, local, host string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
	c, err := d.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// fetchContract asks for GET /openapi.yaml on c, unauthenticated, and
// leaves the connection open (keep-alive), as the attack did.
func fetchContract(t *testing.T, c net.Conn, host string) {
	t.Helper()
	if _, err := io.WriteString(c, "GET /openapi.yaml HTTP/1.1\r\nHost: "+host+"\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

// closedByServer counts the connections the server has closed: a read that
// ends in EOF or a reset within wait, not in the client's timeout.
func closedByServer(conns []net.Conn, wait time.Duration) int {
	var n int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(func() {
			_ = c.SetReadDeadline(time.Now().Add(wait))
			_, err := c.Read(make([]byte, 1))
			var ne net.Error
			if !(errors.As(err, &ne) && ne.Timeout()) {
				mu.Lock()
				n++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return n
}

// TestConnectionLimitsHold: 21,000 idle keep-alive connections to GET
// /openapi.yaml once used up the server's file descriptors until the 90 s
// idle timeout. Now each client address keeps at most MaxIdlePerClient idle
// connections, the server at most MaxConnections in all (the oldest idle
// one makes room for a new one), and a connection that never authenticated
// is closed after PreAuthIdleTimeout. More idle connections than the cap,
// and a paying request still gets through.
func TestConnectionLimitsHold(t *testing.T) {
	cfg := testConfig(sqliteDSN(t))
	cfg.MaxConnections, cfg.MaxIdlePerClient, cfg.PreAuthIdleTimeout = 24, 4, 30*time.Second
	h := newHarness(t, cfg, nil)
	u, _ := url.Parse(h.url)

	// One address: 12 idle connections, at most 4 kept.
	var one []net.Conn
	for range 12 {
		c := dialFrom(t, "127.0.0.2", u.Host)
		fetchContract(t, c, u.Host)
		one = append(one, c)
	}
	if closed := closedByServer(one, time.Second); closed != 12-cfg.MaxIdlePerClient {
		t.Errorf("the server closed %d of 12 idle connections from one address; want %d (it keeps %d)", closed, 12-cfg.MaxIdlePerClient, cfg.MaxIdlePerClient)
	}

	// Many addresses, each within its own cap: 40 idle connections in all,
	// over the cap of 24; the oldest idle ones are closed to admit the new.
	var many []net.Conn
	for i := range 10 {
		for range 4 {
			c := dialFrom(t, fmt.Sprintf("127.0.1.%d", i+1), u.Host)
			fetchContract(t, c, u.Host)
			many = append(many, c)
		}
	}
	if closed := closedByServer(many, time.Second); closed < 40-cfg.MaxConnections {
		t.Errorf("the server closed %d of 40 idle connections; want at least %d (at most %d open)", closed, 40-cfg.MaxConnections, cfg.MaxConnections)
	}

	// A paying request still gets through, from a fresh connection.
	r := h.mustPost(t, keyA, "paying", okBody)
	if r.Status != 201 {
		t.Fatalf("paying request: %d %s", r.Status, r.Body)
	}
}

// TestUnauthenticatedIdleIsShort: a connection that has not sent an
// authenticated request is closed after PreAuthIdleTimeout when idle; one
// that has keeps the ordinary idle timeout.
func TestUnauthenticatedIdleIsShort(t *testing.T) {
	cfg := testConfig(sqliteDSN(t))
	cfg.PreAuthIdleTimeout = 300 * time.Millisecond
	h := newHarness(t, cfg, nil)
	u, _ := url.Parse(h.url)
	anon := dialFrom(t, "127.0.0.3", u.Host)
	fetchContract(t, anon, u.Host)
	paying := dialFrom(t, "127.0.0.3", u.Host)
	if _, err := io.WriteString(paying, rawRequest(u.Host, 200)); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(paying), nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("authenticated request: %v %v", resp, err)
	}
	resp.Body.Close()
	if n := closedByServer([]net.Conn{anon}, 3*time.Second); n != 1 {
		t.Error("an unauthenticated idle connection was kept past the pre-authentication idle timeout")
	}
	if n := closedByServer([]net.Conn{paying}, time.Second); n != 0 {
		t.Error("an authenticated idle connection was closed after the pre-authentication idle timeout")
	}
}
