package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"strings"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// SQLite is the embedded store. Writes go through one connection (SQLite has
// one writer anyway, and queuing in Go is cheaper than SQLITE_BUSY retries);
// reads use a small pool, which WAL lets run beside the writer. Claims and
// completions, the writes of every charge, are group-committed (see
// groupCommit).
type SQLite struct {
	w, r *sql.DB
	// Hot statements, prepared once: parsing SQL was a fifth of a replay's
	// CPU time. getW reads inside the writer's transaction.
	claim, get, getW, complete, insertCharge *sql.Stmt

	ops     chan writeOp
	quit    chan struct{}
	stopped chan struct{}
}

// writeOp is one write run by the group committer inside a transaction it
// shares with the writes of other requests. run sets the caller's results
// afresh each time it runs: a batch that fails is run again one op at a time.
type writeOp struct {
	ctx  context.Context
	run  func(ctx context.Context, tx *sql.Tx) error // ctx is not the caller's: see write
	done chan error
}

// maxGroup bounds one group commit, so one transaction never holds the
// writer for long.
const maxGroup = 64

var errClosed = errors.New("sqlite: store closed")

var placeholder = regexp.MustCompile(`\$(\d+)`)

// q rewrites $n to SQLite's numbered ?n.
func q(query string) string { return placeholder.ReplaceAllString(query, "?$1") }

// OpenSQLite opens (creating on first use) the database file at path in WAL
// mode with synchronous=FULL: a committed charge survives power loss.
func OpenSQLite(ctx context.Context, path string) (*SQLite, error) {
	if path == "" {
		return nil, errors.New("sqlite: empty path")
	}
	dsn := func(txlock string) string {
		v := url.Values{}
		v.Add("_pragma", "journal_mode(WAL)")
		v.Add("_pragma", "synchronous(FULL)")
		v.Add("_pragma", "busy_timeout(10000)")
		v.Add("_pragma", "foreign_keys(ON)")
		v.Set("_txlock", txlock)
		return "file:" + path + "?" + v.Encode()
	}
	w, err := sql.Open("sqlite", dsn("immediate"))
	if err != nil {
		return nil, err
	}
	w.SetMaxOpenConns(1)
	r, err := sql.Open("sqlite", dsn("deferred"))
	if err != nil {
		w.Close()
		return nil, err
	}
	// Keep every reader open: database/sql keeps 2 idle by default, and under
	// 16 clients the others were closed and reopened, with their pragmas and
	// prepared statements, for a fifth of the claim's time.
	r.SetMaxOpenConns(8)
	r.SetMaxIdleConns(8)
	s := &SQLite{w: w, r: r, ops: make(chan writeOp), quit: make(chan struct{}), stopped: make(chan struct{})}
	go s.groupCommit()
	if err := s.migrate(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("sqlite %s: %w", path, err)
	}
	if err := s.prepare(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("sqlite %s: %w", path, err)
	}
	return s, nil
}

// groupCommit is the one goroutine that runs claims and completions. With
// synchronous=FULL every commit waits for an fsync, so committing one request
// at a time makes concurrent requests queue for fsyncs. Instead it takes the
// next write and every other one already waiting, runs them in order in one
// transaction and commits once: one fsync for the group. Nobody is answered
// before the commit, so each request still sees its own write durable, and
// the writes run exactly as they would one transaction each, in that order.
// If the group's transaction fails, each write is run again in its own, so
// one write's error (a full disk) is that write's alone.
func (s *SQLite) groupCommit() {
	defer close(s.stopped)
	for {
		var group []writeOp
		select {
		case op := <-s.ops:
			group = append(group, op)
		case <-s.quit:
			return
		}
	more:
		for len(group) < maxGroup {
			select {
			case op := <-s.ops:
				group = append(group, op)
			default:
				break more
			}
		}
		s.commitGroup(group)
	}
}

// commitGroup runs group in one transaction, or each op alone if that fails.
func (s *SQLite) commitGroup(group []writeOp) {
	live := group[:0]
	for _, op := range group {
		if err := op.ctx.Err(); err != nil {
			op.done <- err
			continue
		}
		live = append(live, op)
	}
	if len(live) == 0 {
		return
	}
	err := s.inTx(live)
	if err == nil || len(live) == 1 {
		for _, op := range live {
			op.done <- err
		}
		return
	}
	for _, op := range live {
		op.done <- s.inTx([]writeOp{op})
	}
}

func (s *SQLite) inTx(ops []writeOp) error {
	tx, err := s.w.BeginTx(context.Background(), nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, op := range ops {
		if err := op.run(context.Background(), tx); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// write runs run through the group committer and returns once its
// transaction committed or failed.
func (s *SQLite) write(ctx context.Context, run func(ctx context.Context, tx *sql.Tx) error) error {
	op := writeOp{ctx: ctx, run: run, done: make(chan error, 1)}
	select {
	case s.ops <- op:
	case <-s.quit:
		return errClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	// Once taken, the op may be committing: wait for the outcome even if ctx
	// ends, so the caller never mistakes a committed write for a failed one.
	// Its statements do not run under ctx either: interrupting one would roll
	// back the whole group.
	return <-op.done
}

func (s *SQLite) prepare(ctx context.Context) error {
	var err error
	for _, p := range []struct {
		db    *sql.DB
		query string
		stmt  **sql.Stmt
	}{
		{s.w, qClaim, &s.claim},
		{s.r, qGet, &s.get},
		{s.w, qGet, &s.getW},
		{s.w, qComplete, &s.complete},
		{s.w, qInsertCharge, &s.insertCharge},
	} {
		if *p.stmt, err = p.db.PrepareContext(ctx, q(p.query)); err != nil {
			return err
		}
	}
	return nil
}

func (s *SQLite) migrate(ctx context.Context) error {
	for _, stmt := range schema("BLOB") {
		_, err := s.w.ExecContext(ctx, stmt)
		if err != nil && (stmt != addAttempts || !strings.Contains(err.Error(), "duplicate column name")) {
			return err
		}
	}
	return nil
}

// Close stops the group committer and closes the statements and both pools.
func (s *SQLite) Close() error {
	close(s.quit)
	<-s.stopped
	var errs []error
	for _, st := range []*sql.Stmt{s.claim, s.get, s.getW, s.complete, s.insertCharge} {
		if st != nil {
			errs = append(errs, st.Close())
		}
	}
	return errors.Join(append(errs, s.w.Close(), s.r.Close())...)
}

// Claim implements Store. It reads first, on the reader pool: a retry of a
// known key (the replay, the common case for a retrying client) is then one
// indexed SELECT that never queues behind the one writer; a claim row, once
// there, is only ever completed or pruned, so what it reads is what the
// insert would have conflicted with. A new key costs one index miss more. The
// insert is group-committed; a conflicting row is read in the same
// transaction, since the claim it met may be in the same group.
func (s *SQLite) Claim(ctx context.Context, rec Record) (Record, bool, error) {
	existing, err := scanRecord(s.get.QueryRowContext(ctx, rec.Account, rec.Route, rec.Key))
	if err == nil {
		return existing, false, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return Record{}, false, err
	}
	var claimed bool
	err = s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		existing, claimed = Record{}, false
		res, err := tx.StmtContext(ctx, s.claim).ExecContext(ctx, claimArgs(rec)...)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 1 {
			existing, claimed = rec, true
			return nil
		}
		existing, err = scanRecord(tx.StmtContext(ctx, s.getW).QueryRowContext(ctx, rec.Account, rec.Route, rec.Key))
		return err
	})
	if err != nil {
		return Record{}, false, err
	}
	return existing, claimed, nil
}

// Get implements Store.
func (s *SQLite) Get(ctx context.Context, sc Scope) (Record, error) {
	r, err := scanRecord(s.get.QueryRowContext(ctx, sc.Account, sc.Route, sc.Key))
	if errors.Is(err, sql.ErrNoRows) {
		return r, ErrNotFound
	}
	return r, err
}

// TakeOver implements Store.
func (s *SQLite) TakeOver(ctx context.Context, sc Scope, from, to string, now, leaseUntil time.Time) (bool, error) {
	return affectedOne(s.w.ExecContext(ctx, q(qTakeOver), sc.Account, sc.Route, sc.Key, to, from, ms(leaseUntil), ms(now)))
}

// Complete implements Store. The response and the charge are written by the
// group committer, in one transaction.
func (s *SQLite) Complete(ctx context.Context, sc Scope, owner string, resp Response, now time.Time) (bool, error) {
	var ok bool
	err := s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		ok, err = affectedOne(tx.StmtContext(ctx, s.complete).ExecContext(ctx, sc.Account, sc.Route, sc.Key, owner, resp.Status, resp.Body, ms(now)))
		if err != nil || !ok || resp.Charge == nil {
			return err
		}
		_, err = tx.StmtContext(ctx, s.insertCharge).ExecContext(ctx, chargeArgs(*resp.Charge)...)
		return err
	})
	return ok && err == nil, err
}

// ExpireLease implements Store.
func (s *SQLite) ExpireLease(ctx context.Context, sc Scope, owner string, now time.Time) error {
	_, err := s.w.ExecContext(ctx, q(qExpire), sc.Account, sc.Route, sc.Key, owner, ms(now))
	return err
}

// Stale implements Store.
func (s *SQLite) Stale(ctx context.Context, now time.Time, limit int) ([]Record, error) {
	return query(ctx, s.r, q(qStale), scanRecord, ms(now), limit)
}

// Completed implements Store.
func (s *SQLite) Completed(ctx context.Context) ([]Record, error) {
	return query(ctx, s.r, qCompleted, scanRecord)
}

// ClaimStats implements Store.
func (s *SQLite) ClaimStats(ctx context.Context, now time.Time) ([]ClaimStat, error) {
	return query(ctx, s.r, q(qClaimStats), scanClaimStat, ms(now))
}

// query runs a read on db and scans every row.
func query[T any](ctx context.Context, db *sql.DB, query string, scan func(scanner) (T, error), args ...any) ([]T, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return collect(rows, scan)
}

// Prune implements Store.
func (s *SQLite) Prune(ctx context.Context, before time.Time, batch int) (int64, error) {
	res, err := s.w.ExecContext(ctx, q(qPrune), ms(before), batch)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// InsertCharge implements Store.
func (s *SQLite) InsertCharge(ctx context.Context, c Charge) error {
	_, err := s.insertCharge.ExecContext(ctx, chargeArgs(c)...)
	return err
}

// Charge implements Store.
func (s *SQLite) Charge(ctx context.Context, account, id string) (Charge, error) {
	c, err := scanCharge(s.r.QueryRowContext(ctx, q(qCharge), account, id))
	if errors.Is(err, sql.ErrNoRows) {
		return c, ErrNotFound
	}
	return c, err
}

// Charges implements Store.
func (s *SQLite) Charges(ctx context.Context, account string, limit int) ([]Charge, error) {
	return s.charges(ctx, q(qCharges), account, limit)
}

// AllCharges implements Store.
func (s *SQLite) AllCharges(ctx context.Context) ([]Charge, error) {
	return s.charges(ctx, qAllCharges)
}

func (s *SQLite) charges(ctx context.Context, stmt string, args ...any) ([]Charge, error) {
	return query(ctx, s.r, stmt, scanCharge, args...)
}

func affectedOne(res sql.Result, err error) (bool, error) {
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// LimitPages caps the database at its current size plus extra pages, on the
// writer connection that makes every write: a write that needs more space
// fails with SQLITE_FULL ("database or disk is full"), exactly as on a full
// disk, midway through whatever it was doing. extra < 0 lifts the cap. It
// exists for fault tests; running as root, a read-only file would not stop
// the writes.
func (s *SQLite) LimitPages(ctx context.Context, extra int) error {
	conn, err := s.w.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	limit := int64(math.MaxUint32 - 1)
	if extra >= 0 {
		var pages int64
		if err := conn.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&pages); err != nil {
			return err
		}
		limit = pages + int64(extra)
	}
	_, err = conn.ExecContext(ctx, fmt.Sprintf(`PRAGMA max_page_count = %d`, limit))
	return err
}
