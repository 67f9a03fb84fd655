// Package store keeps idempotency claims and charges, in SQLite (one file,
// the default) or PostgreSQL (several server processes on one database),
// behind one interface. Every statement is parameterised.
package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Claim states.
const (
	StatusInProgress = "in_progress"
	StatusCompleted  = "completed"
)

// ErrNotFound is returned for a charge the account cannot see.
var ErrNotFound = errors.New("not found")

// Scope is what a claim is unique on.
type Scope struct {
	Account, Route, Key string
}

// Record is one idempotency claim.
type Record struct {
	Scope
	Fingerprint  string
	ProcessorKey string
	// Request is the canonical request, kept so the reaper can re-drive it.
	Request        []byte
	Status         string
	Owner          string
	LeaseUntil     time.Time
	ResponseStatus int
	ResponseBody   []byte
	CreatedAt      time.Time
	// Attempts counts the drives of this claim: 1 for the first, one more
	// for every takeover by a retry or the reaper.
	Attempts int
}

// ClaimStat counts the claims in one state; Oldest is the earliest
// CreatedAt among them.
type ClaimStat struct {
	State  string
	Count  int64
	Oldest time.Time
}

// StateStale is the ClaimStats state of an in-progress claim whose lease
// has run out: no attempt is running it, and it waits for a re-drive.
const StateStale = "stale"

// Charge is one row of the charges table.
type Charge struct {
	ID           string
	Account      string
	AmountCents  int64
	Currency     string
	Description  string
	Status       string
	ProcessorKey string
	CreatedAt    time.Time
}

// Response is what Complete stores: the answer every retry will replay, and
// the charge, if any, written in the same transaction.
type Response struct {
	Status int
	Body   []byte
	Charge *Charge
}

// Store is the persistence the server, reaper, pruner and reconciler need.
type Store interface {
	// Claim inserts rec with one INSERT … ON CONFLICT DO NOTHING. claimed
	// reports whether this call created it; if not, the existing row is
	// returned so the caller can replay, refuse or wait.
	Claim(ctx context.Context, rec Record) (existing Record, claimed bool, err error)
	// TakeOver moves an in-progress claim whose lease expired before now
	// from owner from to owner to; false when someone else got there first.
	TakeOver(ctx context.Context, s Scope, from, to string, now, leaseUntil time.Time) (bool, error)
	// Complete stores the response and charge in one transaction, only while
	// owner still holds the claim; false when it lost the claim.
	Complete(ctx context.Context, s Scope, owner string, resp Response, now time.Time) (bool, error)
	// ExpireLease gives up owner's claim so a retry or the reaper re-drives it.
	ExpireLease(ctx context.Context, s Scope, owner string, now time.Time) error
	// Get reads one claim.
	Get(ctx context.Context, s Scope) (Record, error)
	// Stale lists in-progress claims whose lease expired before now.
	Stale(ctx context.Context, now time.Time, limit int) ([]Record, error)
	// Completed lists every completed claim: the answers clients were told
	// within retention, for reconciliation.
	Completed(ctx context.Context) ([]Record, error)
	// ClaimStats counts claims by state (in_progress with a running lease,
	// stale, completed) as of now, for /metrics.
	ClaimStats(ctx context.Context, now time.Time) ([]ClaimStat, error)
	// Prune deletes up to batch completed claims created before before. It
	// never deletes a claim in progress: only a stored answer may be
	// forgotten, or a re-drive would lose the claim's processor key.
	Prune(ctx context.Context, before time.Time, batch int) (int64, error)
	// InsertCharge records a charge made without an idempotency key.
	InsertCharge(ctx context.Context, c Charge) error
	Charge(ctx context.Context, account, id string) (Charge, error)
	// Charges lists the account's charges, newest first.
	Charges(ctx context.Context, account string, limit int) ([]Charge, error)
	// AllCharges lists every charge, for reconciliation.
	AllCharges(ctx context.Context) ([]Charge, error)
	Close() error
}

// Open opens "sqlite:PATH" or a postgres:// / postgresql:// URL and creates
// the schema if it is missing.
func Open(ctx context.Context, database string) (Store, error) {
	switch {
	case strings.HasPrefix(database, "sqlite:"):
		return OpenSQLite(ctx, strings.TrimPrefix(database, "sqlite:"))
	case strings.HasPrefix(database, "postgres://"), strings.HasPrefix(database, "postgresql://"):
		return OpenPostgres(ctx, database)
	}
	return nil, fmt.Errorf("--database must be sqlite:PATH or a postgres:// URL")
}

func ms(t time.Time) int64 { return t.UnixMilli() }

func fromMS(v int64) time.Time { return time.UnixMilli(v).UTC() }

// Queries shared by both backends, written with $n placeholders; SQLite gets
// them rewritten to its numbered ?n form.
const (
	qClaim = `INSERT INTO idempotency_keys
		(account, route, idem_key, fingerprint, processor_key, request, status, owner, lease_until, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, 'in_progress', $7, $8, $9)
		ON CONFLICT (account, route, idem_key) DO NOTHING`
	recordCols = `account, route, idem_key, fingerprint, processor_key, request, status, owner,
		lease_until, response_status, response_body, created_at, attempts`
	qGet      = `SELECT ` + recordCols + ` FROM idempotency_keys WHERE account = $1 AND route = $2 AND idem_key = $3`
	qTakeOver = `UPDATE idempotency_keys SET owner = $4, lease_until = $6, attempts = attempts + 1
		WHERE account = $1 AND route = $2 AND idem_key = $3 AND owner = $5
		AND status = 'in_progress' AND lease_until < $7`
	qComplete = `UPDATE idempotency_keys SET status = 'completed', response_status = $5,
		response_body = $6, lease_until = 0, completed_at = $7
		WHERE account = $1 AND route = $2 AND idem_key = $3 AND owner = $4 AND status = 'in_progress'`
	qExpire = `UPDATE idempotency_keys SET lease_until = $5
		WHERE account = $1 AND route = $2 AND idem_key = $3 AND owner = $4 AND status = 'in_progress'`
	qStale = `SELECT ` + recordCols + ` FROM idempotency_keys
		WHERE status = 'in_progress' AND lease_until < $1 ORDER BY lease_until LIMIT $2`
	qCompleted = `SELECT ` + recordCols + ` FROM idempotency_keys
		WHERE status = 'completed' ORDER BY account, route, idem_key`
	qClaimStats = `SELECT CASE WHEN status = 'in_progress' AND lease_until < $1 THEN 'stale' ELSE status END,
		count(*), min(created_at) FROM idempotency_keys GROUP BY 1 ORDER BY 1`
	qPrune = `DELETE FROM idempotency_keys WHERE (account, route, idem_key) IN
		(SELECT account, route, idem_key FROM idempotency_keys
		 WHERE status = 'completed' AND created_at < $1 LIMIT $2)`
	chargeCols    = `id, account, amount_cents, currency, description, status, processor_key, created_at`
	qInsertCharge = `INSERT INTO charges (` + chargeCols + `) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (processor_key) DO NOTHING`
	qCharge     = `SELECT ` + chargeCols + ` FROM charges WHERE account = $1 AND id = $2`
	qCharges    = `SELECT ` + chargeCols + ` FROM charges WHERE account = $1 ORDER BY created_at DESC, id DESC LIMIT $2`
	qAllCharges = `SELECT ` + chargeCols + ` FROM charges ORDER BY id`
)

// schema is the DDL for both backends; blobType differs.
func schema(blobType string) []string {
	return []string{
		`CREATE TABLE IF NOT EXISTS idempotency_keys (
			account TEXT NOT NULL,
			route TEXT NOT NULL,
			idem_key TEXT NOT NULL,
			fingerprint TEXT NOT NULL,
			processor_key TEXT NOT NULL,
			request ` + blobType + ` NOT NULL,
			status TEXT NOT NULL,
			owner TEXT NOT NULL,
			lease_until BIGINT NOT NULL,
			response_status INTEGER NOT NULL DEFAULT 0,
			response_body ` + blobType + `,
			created_at BIGINT NOT NULL,
			completed_at BIGINT
		)`,
		// Added after the first release; the backends make it idempotent.
		addAttempts,
		// The unique index the claim's ON CONFLICT relies on.
		`CREATE UNIQUE INDEX IF NOT EXISTS idempotency_keys_scope ON idempotency_keys (account, route, idem_key)`,
		`CREATE INDEX IF NOT EXISTS idempotency_keys_lease ON idempotency_keys (status, lease_until)`,
		`CREATE INDEX IF NOT EXISTS idempotency_keys_created ON idempotency_keys (status, created_at)`,
		`CREATE TABLE IF NOT EXISTS charges (
			id TEXT PRIMARY KEY,
			account TEXT NOT NULL,
			amount_cents BIGINT NOT NULL,
			currency TEXT NOT NULL,
			description TEXT NOT NULL,
			status TEXT NOT NULL,
			processor_key TEXT NOT NULL,
			created_at BIGINT NOT NULL
		)`,
		// One charge per processor key: a second insert for one claim is a bug
		// the database refuses, whatever the code does.
		`CREATE UNIQUE INDEX IF NOT EXISTS charges_processor_key ON charges (processor_key)`,
		`CREATE INDEX IF NOT EXISTS charges_account ON charges (account, created_at, id)`,
	}
}

// addAttempts adds the re-drive count to a table made before it existed.
const addAttempts = `ALTER TABLE idempotency_keys ADD COLUMN attempts INTEGER NOT NULL DEFAULT 1`

// scanner is what *sql.Row(s) and pgx.Row(s) have in common.
type scanner interface{ Scan(dest ...any) error }

// resultRows is what both drivers' result sets offer.
type resultRows interface {
	scanner
	Next() bool
	Err() error
}

// collect scans every row of rs with scan.
func collect[T any](rs resultRows, scan func(scanner) (T, error)) ([]T, error) {
	var out []T
	for rs.Next() {
		x, err := scan(rs)
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, rs.Err()
}

func scanRecord(s scanner) (Record, error) {
	var r Record
	var lease, created int64
	var body []byte
	err := s.Scan(&r.Account, &r.Route, &r.Key, &r.Fingerprint, &r.ProcessorKey, &r.Request,
		&r.Status, &r.Owner, &lease, &r.ResponseStatus, &body, &created, &r.Attempts)
	r.LeaseUntil, r.CreatedAt, r.ResponseBody = fromMS(lease), fromMS(created), body
	return r, err
}

func scanClaimStat(s scanner) (ClaimStat, error) {
	var c ClaimStat
	var oldest int64
	err := s.Scan(&c.State, &c.Count, &oldest)
	c.Oldest = fromMS(oldest)
	return c, err
}

func scanCharge(s scanner) (Charge, error) {
	var c Charge
	var created int64
	err := s.Scan(&c.ID, &c.Account, &c.AmountCents, &c.Currency, &c.Description, &c.Status, &c.ProcessorKey, &created)
	c.CreatedAt = fromMS(created)
	return c, err
}

func claimArgs(r Record) []any {
	return []any{r.Account, r.Route, r.Key, r.Fingerprint, r.ProcessorKey, r.Request, r.Owner, ms(r.LeaseUntil), ms(r.CreatedAt)}
}

func chargeArgs(c Charge) []any {
	return []any{c.ID, c.Account, c.AmountCents, c.Currency, c.Description, c.Status, c.ProcessorKey, ms(c.CreatedAt)}
}
