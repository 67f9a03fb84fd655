// Package testdb gives tests real databases: a SQLite file in the test's
// temporary directory, a fresh schema on the PostgreSQL server named by
// CONTRACTLINT_TEST_POSTGRES, dropped when the test ends, or a PostgreSQL
// primary and standby of the test's own to fail over (StartPair).
package testdb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"
)

// EnvPostgres names the variable holding the test server's DSN.
const EnvPostgres = "CONTRACTLINT_TEST_POSTGRES"

// SQLite returns a --database value for a new file. A test's file lives in
// memory (memoryDir) where the machine has a place for it: tests kill
// processes, never the machine, and a killed process's writes survive in
// the page cache whether or not fsync reached a disk, so the store runs as
// it always does (WAL, synchronous=FULL, an fsync per commit) and the
// fsyncs cost nothing. A benchmark's file stays on disk: there the fsyncs
// are part of what it measures.
func SQLite(t testing.TB) string {
	dir := ""
	if _, bench := t.(*testing.B); !bench {
		dir = MemoryDir(t)
	}
	if dir == "" {
		dir = t.TempDir()
	}
	return "sqlite:" + filepath.Join(dir, "charges.db")
}

// shm is Linux's memory file system every process may write to.
const shm = "/dev/shm"

// MemoryDir is a new directory in shm, removed when the test ends, or ""
// where there is no such place with room (roomy): for the files of databases a test only
// ever kills processes over (see SQLite).
func MemoryDir(t testing.TB) string {
	if !roomy(shm) {
		return ""
	}
	dir, err := os.MkdirTemp(shm, "chargeserver-test")
	if err != nil {
		return ""
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// memoryTemp is a new directory in shm where it has room (roomy), else in
// the system's temporary directory; the caller removes it. For the files
// of servers a test only ever kills processes over (see SQLite): a
// PostgreSQL cluster's copies and WAL cost less CPU written to memory.
func memoryTemp(prefix string) (string, error) {
	if roomy(shm) {
		if dir, err := os.MkdirTemp(shm, prefix); err == nil {
			return dir, nil
		}
	}
	return os.MkdirTemp("", prefix)
}

// Postgres returns a DSN whose search_path is a fresh schema, so tests never
// see each other's rows. Without a server it skips, except on CI (CI=true),
// which must never pass by skipping.
func Postgres(t testing.TB) string {
	t.Helper()
	base := os.Getenv(EnvPostgres)
	if base == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal(EnvPostgres + " is unset on CI; start a server with .ci/postgres")
		}
		t.Skip(EnvPostgres + " is unset: no PostgreSQL to test against (.ci/postgres start DIR starts one)")
	}
	schema := "t_" + randHex(8)
	exec(t, base, "CREATE SCHEMA "+schema)
	t.Cleanup(func() { exec(nil, base, "DROP SCHEMA "+schema+" CASCADE") })
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// exec runs one statement; with t nil (cleanup) failures are ignored.
func exec(t testing.TB, dsn, stmt string) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err == nil {
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, stmt)
	}
	if err != nil && t != nil {
		t.Fatalf("test PostgreSQL: %v", err)
	}
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
