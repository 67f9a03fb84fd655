package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Postgres is the shared store: several server processes may use one
// database, and the unique index arbitrates their claims.
type Postgres struct {
	pool *pgxpool.Pool
}

// migrationLock serialises schema creation between processes starting at
// once; CREATE … IF NOT EXISTS alone races on the catalog.
const migrationLock = 0x636c6373 // "clcs"

// OpenPostgres connects to dsn with a pool of 16 connections unless the URL
// sets pool_max_conns.
func OpenPostgres(ctx context.Context, dsn string) (*Postgres, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if !strings.Contains(dsn, "pool_max_conns") {
		// pgxpool's default (4 on this class of machine) starves 16 clients.
		cfg.MaxConns = 16
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	s := &Postgres{pool: pool}
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: %w", err)
	}
	return s, nil
}

func (s *Postgres) migrate(ctx context.Context) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(migrationLock)); err != nil {
			return err
		}
		for _, stmt := range schema("BYTEA") {
			stmt = strings.Replace(stmt, "ADD COLUMN", "ADD COLUMN IF NOT EXISTS", 1)
			if _, err := tx.Exec(ctx, stmt); err != nil {
				return err
			}
		}
		return nil
	})
}

// Close closes the pool.
func (s *Postgres) Close() error { s.pool.Close(); return nil }

// Claim implements Store. The claim and the read of the existing row go in
// one pipelined batch: one round trip whether the key is new or a replay. The
// read is a separate statement, so it sees a row whose inserter this INSERT
// waited for; if the INSERT won, it reads back its own row.
func (s *Postgres) Claim(ctx context.Context, rec Record) (Record, bool, error) {
	b := &pgx.Batch{}
	b.Queue(qClaim, claimArgs(rec)...)
	b.Queue(qGet, rec.Account, rec.Route, rec.Key)
	br := s.pool.SendBatch(ctx, b)
	defer br.Close()
	tag, err := br.Exec()
	if err != nil {
		return Record{}, false, err
	}
	existing, err := scanRecord(br.QueryRow())
	if err != nil {
		return Record{}, false, err
	}
	// The batch is one implicit transaction, committed only at its end: a
	// claim is won once Close has seen the commit. A connection lost after
	// the INSERT's reply and before it (a backend killed) rolls the claim
	// back, and the caller must not charge under it: a retry would claim
	// the key again, under another processor key, and charge twice.
	if err := br.Close(); err != nil {
		return Record{}, false, err
	}
	if tag.RowsAffected() == 1 {
		return rec, true, nil
	}
	return existing, false, nil
}

// Get implements Store.
func (s *Postgres) Get(ctx context.Context, sc Scope) (Record, error) {
	r, err := scanRecord(s.pool.QueryRow(ctx, qGet, sc.Account, sc.Route, sc.Key))
	if errors.Is(err, pgx.ErrNoRows) {
		return r, ErrNotFound
	}
	return r, err
}

// TakeOver implements Store.
func (s *Postgres) TakeOver(ctx context.Context, sc Scope, from, to string, now, leaseUntil time.Time) (bool, error) {
	return one(s.pool.Exec(ctx, qTakeOver, sc.Account, sc.Route, sc.Key, to, from, ms(leaseUntil), ms(now)))
}

// qCompleteWithCharge records the response and the charge in one statement,
// so one implicit transaction and one round trip: the charge is inserted only
// if the update found the claim still ours.
const qCompleteWithCharge = `WITH done AS (` + qComplete + ` RETURNING 1),
	ins AS (INSERT INTO charges (` + chargeCols + `)
		SELECT $8::text, $9::text, $10::bigint, $11::text, $12::text, $13::text, $14::text, $15::bigint
		WHERE EXISTS (SELECT 1 FROM done)
		ON CONFLICT (processor_key) DO NOTHING RETURNING 1)
	SELECT (SELECT count(*) FROM done), (SELECT count(*) FROM ins)`

// Complete implements Store.
func (s *Postgres) Complete(ctx context.Context, sc Scope, owner string, resp Response, now time.Time) (bool, error) {
	args := []any{sc.Account, sc.Route, sc.Key, owner, resp.Status, resp.Body, ms(now)}
	if resp.Charge == nil {
		return one(s.pool.Exec(ctx, qComplete, args...))
	}
	var done, inserted int64
	err := s.pool.QueryRow(ctx, qCompleteWithCharge, append(args, chargeArgs(*resp.Charge)...)...).Scan(&done, &inserted)
	return done == 1, err
}

// ExpireLease implements Store.
func (s *Postgres) ExpireLease(ctx context.Context, sc Scope, owner string, now time.Time) error {
	_, err := s.pool.Exec(ctx, qExpire, sc.Account, sc.Route, sc.Key, owner, ms(now))
	return err
}

// Stale implements Store.
func (s *Postgres) Stale(ctx context.Context, now time.Time, limit int) ([]Record, error) {
	return pgQuery(ctx, s.pool, qStale, scanRecord, ms(now), limit)
}

// Completed implements Store.
func (s *Postgres) Completed(ctx context.Context) ([]Record, error) {
	return pgQuery(ctx, s.pool, qCompleted, scanRecord)
}

// ClaimStats implements Store.
func (s *Postgres) ClaimStats(ctx context.Context, now time.Time) ([]ClaimStat, error) {
	return pgQuery(ctx, s.pool, qClaimStats, scanClaimStat, ms(now))
}

// pgQuery runs a read and scans every row.
func pgQuery[T any](ctx context.Context, pool *pgxpool.Pool, query string, scan func(scanner) (T, error), args ...any) ([]T, error) {
	rows, err := pool.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return collect(rows, scan)
}

// Prune implements Store.
func (s *Postgres) Prune(ctx context.Context, before time.Time, batch int) (int64, error) {
	tag, err := s.pool.Exec(ctx, qPrune, ms(before), batch)
	return tag.RowsAffected(), err
}

// InsertCharge implements Store.
func (s *Postgres) InsertCharge(ctx context.Context, c Charge) error {
	_, err := s.pool.Exec(ctx, qInsertCharge, chargeArgs(c)...)
	return err
}

// Charge implements Store.
func (s *Postgres) Charge(ctx context.Context, account, id string) (Charge, error) {
	c, err := scanCharge(s.pool.QueryRow(ctx, qCharge, account, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return c, ErrNotFound
	}
	return c, err
}

// Charges implements Store.
func (s *Postgres) Charges(ctx context.Context, account string, limit int) ([]Charge, error) {
	return s.charges(ctx, qCharges, account, limit)
}

// AllCharges implements Store.
func (s *Postgres) AllCharges(ctx context.Context) ([]Charge, error) {
	return s.charges(ctx, qAllCharges)
}

func (s *Postgres) charges(ctx context.Context, query string, args ...any) ([]Charge, error) {
	return pgQuery(ctx, s.pool, query, scanCharge, args...)
}

func one(tag pgconn.CommandTag, err error) (bool, error) {
	return err == nil && tag.RowsAffected() == 1, err
}
