package cache

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func open(t *testing.T, dir, version string) *Store {
	t.Helper()
	s, err := Open(dir, version)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestRoundTrip(t *testing.T) {
	s := open(t, t.TempDir(), "v1")
	k := Key{1}
	if _, ok := s.Get(k); ok {
		t.Fatal("hit in an empty cache")
	}
	if err := s.Put(k, []byte("lowered")); err != nil {
		t.Fatal(err)
	}
	got, ok := s.Get(k)
	if !ok || string(got) != "lowered" {
		t.Fatalf("Get = %q, %v; want the payload", got, ok)
	}
	if _, ok := s.Get(Key{2}); ok {
		t.Error("hit under another key")
	}
}

// An entry that does not prove itself is a miss, and the next Put
// replaces it.
func TestUntrustedEntries(t *testing.T) {
	k := Key{7}
	for _, tc := range []struct {
		name  string
		spoil func(t *testing.T, dir string, b []byte)
	}{
		{"corrupted payload", func(t *testing.T, dir string, b []byte) {
			b[len(b)-1] ^= 1
			write(t, dir, k, b)
		}},
		{"truncated", func(t *testing.T, dir string, b []byte) { write(t, dir, k, b[:len(b)-3]) }},
		{"truncated header", func(t *testing.T, dir string, b []byte) { write(t, dir, k, b[:len(magic)+6]) }},
		{"empty", func(t *testing.T, dir string, b []byte) { write(t, dir, k, nil) }},
		{"another version", func(t *testing.T, dir string, b []byte) {
			other := open(t, dir, "v0")
			if err := other.Put(k, []byte("old lowering")); err != nil {
				t.Fatal(err)
			}
		}},
		{"another key's entry", func(t *testing.T, dir string, b []byte) {
			s := open(t, dir, "v1")
			if err := s.Put(Key{8}, []byte("other")); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(filepath.Join(dir, name(Key{8})), filepath.Join(dir, name(k))); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s := open(t, dir, "v1")
			if err := s.Put(k, []byte("lowered contract")); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(dir, name(k)))
			if err != nil {
				t.Fatal(err)
			}
			tc.spoil(t, dir, b)
			if got, ok := s.Get(k); ok {
				t.Fatalf("spoiled entry trusted: %q", got)
			}
			if err := s.Put(k, []byte("fresh")); err != nil {
				t.Fatal(err)
			}
			if got, ok := s.Get(k); !ok || string(got) != "fresh" {
				t.Fatalf("after Put: %q, %v; want the fresh payload", got, ok)
			}
		})
	}
}

func write(t *testing.T, dir string, k Key, b []byte) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name(k)), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A symbolic link planted in the directory is not followed outside it,
// for reading or for writing.
func TestStaysInside(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	k := Key{3}
	secret := filepath.Join(outside, "secret")
	if err := os.WriteFile(secret, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(dir, name(k))); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	s := open(t, dir, "v1")
	if _, ok := s.Get(k); ok {
		t.Error("read through a link leaving the directory")
	}
	if err := s.Put(k, []byte("payload")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(secret); !bytes.Equal(b, []byte("keep")) {
		t.Errorf("wrote through a link leaving the directory: %q", b)
	}
	if got, ok := s.Get(k); !ok || string(got) != "payload" {
		t.Errorf("Get after Put = %q, %v", got, ok)
	}
}

// Trim keeps the most recently used entries within MaxBytes, removes
// temporary files a killed run left, and leaves other files alone.
func TestTrim(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, "v1")
	clock := time.Unix(1_700_000_000, 0)
	s.now = func() time.Time { return clock }
	payload := bytes.Repeat([]byte("x"), 1000)
	for i := range 4 {
		if err := s.Put(Key{byte(i)}, payload); err != nil {
			t.Fatal(err)
		}
		at := clock.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(filepath.Join(dir, name(Key{byte(i)})), at, at); err != nil {
			t.Fatal(err)
		}
	}
	clock = clock.Add(time.Hour)
	s.Get(Key{0}) // used last: kept
	stale := filepath.Join(dir, tmpPrefix+"dead")
	own := filepath.Join(dir, "README")
	for _, f := range []string{stale, own} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(f, clock.Add(-time.Hour), clock.Add(-time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	fi, err := os.Stat(filepath.Join(dir, name(Key{0})))
	if err != nil {
		t.Fatal(err)
	}
	s.MaxBytes = 2 * fi.Size()
	if err := s.Trim(); err != nil {
		t.Fatal(err)
	}
	for i, want := range []bool{true, false, false, true} {
		if _, ok := s.Get(Key{byte(i)}); ok != want {
			t.Errorf("entry %d kept %v, want %v", i, ok, want)
		}
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Error("a stale temporary file survived Trim")
	}
	if _, err := os.Stat(own); err != nil {
		t.Error("Trim removed a file that is not an entry:", err)
	}
}
