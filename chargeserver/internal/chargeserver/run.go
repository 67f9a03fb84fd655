package chargeserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/processor"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/store"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/tracing"
)

// OpenProcessor returns the remote processor at cfg.ProcessorURL, or a fresh
// in-process one.
func OpenProcessor(cfg Config) processor.Processor {
	if cfg.ProcessorURL != "" {
		return processor.NewClient(cfg.ProcessorURL, cfg.ProcessorTimeout)
	}
	return processor.NewLedger()
}

// DevKey generates a development API key for account acct_dev.
func DevKey() map[string]string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return map[string]string{"sk_dev_" + hex.EncodeToString(b[:]): "acct_dev"}
}

// Run serves until ctx ends. It prints the listening address (and the
// generated development key, if any) to out, the only place a key is shown.
func Run(ctx context.Context, cfg Config, out io.Writer, log *slog.Logger) error {
	return run(ctx, cfg, out, log, realSeams())
}

// run is Run with the test seams sm, shared by the server, its reaper and
// its pruner.
func run(ctx context.Context, cfg Config, out io.Writer, log *slog.Logger, sm seams) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	if len(cfg.APIKeys) == 0 {
		cfg.APIKeys = DevKey()
		for k, a := range cfg.APIKeys {
			fmt.Fprintf(out, "development API key for account %s: %s\n", a, k)
		}
	}
	st, err := store.Open(ctx, cfg.Database)
	if err != nil {
		return err
	}
	defer st.Close()
	proc := OpenProcessor(cfg)
	srv := newServer(cfg, st, proc, log, sm)
	h, flush, err := Traced(cfg, srv.Handler())
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return errors.Join(err, flush())
	}
	fmt.Fprintf(out, "charge-server listening on http://%s\n", ln.Addr())
	bg, stop := context.WithCancel(ctx)
	defer stop()
	startTimers(bg, cfg, st, proc, srv.Metrics(), log, sm.now)
	return errors.Join(serve(ctx, ln, h, cfg), flush())
}

// Traced wraps h in a server span per request written to cfg.TraceFile, and
// returns the function that writes the last spans and closes the file; with
// no trace file it returns h as it is.
func Traced(cfg Config, h http.Handler) (http.Handler, func() error, error) {
	if cfg.TraceFile == "" {
		return h, func() error { return nil }, nil
	}
	exp, err := tracing.OpenFile(cfg.TraceFile)
	if err != nil {
		return nil, nil, err
	}
	tp := tracing.NewProvider(exp)
	flush := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return tp.Shutdown(ctx)
	}
	return tracing.Handler(tp, h), flush, nil
}

// startTimers runs the reaper and the pruner in the background.
func startTimers(ctx context.Context, cfg Config, st store.Store, proc processor.Processor, m *Metrics, log *slog.Logger, now func() time.Time) {
	reaper := newReaper(cfg, st, proc, m, log, now)
	pruner := newPruner(cfg, st, m, now)
	go every(ctx, cfg.ReapInterval, func(ctx context.Context) {
		if _, err := reaper.RunOnce(ctx); err != nil && ctx.Err() == nil {
			log.Warn("reaper run failed", "err", err)
		}
	})
	go every(ctx, cfg.PruneInterval, func(ctx context.Context) {
		if _, err := pruner.RunOnce(ctx); err != nil && ctx.Err() == nil {
			log.Warn("pruner run failed", "err", err)
		}
	})
}

// serve runs an http.Server hardened with timeouts and a header limit, and
// shuts it down gracefully when ctx ends.
func serve(ctx context.Context, ln net.Listener, h http.Handler, cfg Config) error {
	hs, ln := newHTTPServer(h, cfg, ln)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := hs.Shutdown(sctx)
	if e := <-errc; !errors.Is(e, http.ErrServerClosed) {
		err = errors.Join(err, e)
	}
	return err
}

// maxHeaderBytes bounds a request's line and headers; beyond it the answer
// is 431 with the problem JSON.
const maxHeaderBytes = 16 << 10

// newHTTPServer sets the timeouts and limits that keep slow or hostile
// clients from holding connections, and wraps ln in the connection limits
// the server reports to: headers must arrive within ReadHeaderTimeout (a
// slowloris client sending a byte at a time is cut off), the body within
// ReadTimeout; headers over maxHeaderBytes get 431; idle connections are
// bounded per client address and in all, and short-lived until a request on
// them authenticates (connLimiter).
func newHTTPServer(h http.Handler, cfg Config, ln net.Listener) (*http.Server, net.Listener) {
	rht := cfg.ReadHeaderTimeout
	if rht <= 0 {
		rht = 5 * time.Second
	}
	lim := newConnLimiter(ln, cfg)
	// HTTP/2 without TLS (h2c) too, for gRPC clients on a plain port.
	var protocols http.Protocols
	protocols.SetHTTP1(true)
	protocols.SetUnencryptedHTTP2(true)
	return &http.Server{
		Protocols:         &protocols,
		Handler:           limitHeaders(h),
		ReadHeaderTimeout: rht,
		ReadTimeout:       rht + 10*time.Second,
		// Long enough for a charge that waits the full processor timeout
		// after the longest probe delay.
		WriteTimeout: cfg.ProcessorTimeout + maxProbeDelay + 20*time.Second,
		IdleTimeout:  cfg.IdleTimeout,
		// net/http reads up to 4 KiB past this before it refuses, so
		// limitHeaders counts exactly; past net/http's own limit the
		// connection rewrites its plain-text 431 (limitedConn.Write).
		MaxHeaderBytes: maxHeaderBytes,
		ConnState:      lim.connState,
		ConnContext:    connContext,
	}, lim
}

// RunProcessor serves an in-process Ledger over HTTP: the separate processor
// service, which outlives server crashes.
func RunProcessor(ctx context.Context, addr string, faults processor.Faults, out io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "processor listening on http://%s\n", ln.Addr())
	ledger := processor.NewLedger()
	ledger.SetFaults(faults)
	// The processor has no authentication: its clients, charge servers,
	// keep the ordinary idle timeout rather than being cut off as strangers
	// (a POST on a connection closed under it would be an unknown outcome).
	cfg := DefaultConfig()
	cfg.PreAuthIdleTimeout = cfg.IdleTimeout
	return serve(ctx, ln, processor.Handler(ledger), cfg)
}
