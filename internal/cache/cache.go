// Package cache keeps values between runs in one directory (--cache DIR),
// keyed by a hash the caller computes from everything the value depends
// on. An entry is trusted only when it proves itself: its header names
// this entry format, the tool version that wrote it and the key it was
// written under, and a SHA-256 of its payload matches. Anything else is a
// miss, and the next Put overwrites it. Entries are written to a temporary
// file and renamed into place, so a reader never sees half an entry; every
// read and write goes through an os.Root, so neither a name nor a symbolic
// link in the directory reaches outside it.
package cache

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"
)

// Key names an entry: a hash of everything the value depends on.
type Key [32]byte

// format is the layout of an entry; bump it when the header changes.
const format = 1

// magic starts every entry.
const magic = "contractlint-cache\n"

// DefaultMaxBytes bounds the directory: Trim removes the least recently
// used entries above it. A lowered googleapis tree takes tens of MB.
const DefaultMaxBytes = 512 << 20

// tmpPrefix starts the names of entries being written; Trim removes old
// ones a killed run left behind.
const tmpPrefix = ".tmp-"

// suffix ends every entry's name.
const suffix = ".entry"

// Store is an open cache directory.
type Store struct {
	root    *os.Root
	version string
	// MaxBytes bounds the entries' total size (DefaultMaxBytes when zero).
	MaxBytes int64
	now      func() time.Time
}

// Open opens dir as a cache, creating it if needed. version is the tool's
// version: entries written by another version are ignored.
func Open(dir, version string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &Store{root: root, version: version, now: time.Now}, nil
}

// Close releases the directory.
func (s *Store) Close() error { return s.root.Close() }

func name(k Key) string { return hex.EncodeToString(k[:]) + suffix }

// Get returns the payload stored under k, or false when there is none or
// the entry does not prove itself (truncated, corrupted, another format or
// version, another key).
func (s *Store) Get(k Key) ([]byte, bool) {
	b, err := s.root.ReadFile(name(k))
	if err != nil {
		return nil, false
	}
	payload, ok := s.open(k, b)
	if !ok {
		return nil, false
	}
	// Used now: Trim keeps recently used entries.
	t := s.now()
	_ = s.root.Chtimes(name(k), t, t)
	return payload, true
}

// header is the fixed part written before the payload.
func (s *Store) header(k Key, payload []byte) []byte {
	h := []byte(magic)
	h = binary.BigEndian.AppendUint32(h, format)
	h = binary.BigEndian.AppendUint32(h, uint32(len(s.version)))
	h = append(h, s.version...)
	h = append(h, k[:]...)
	sum := sha256.Sum256(payload)
	h = append(h, sum[:]...)
	return binary.BigEndian.AppendUint64(h, uint64(len(payload)))
}

// open checks an entry's header against k and returns its payload.
func (s *Store) open(k Key, b []byte) ([]byte, bool) {
	rest, ok := bytes.CutPrefix(b, []byte(magic))
	if !ok || len(rest) < 8 || binary.BigEndian.Uint32(rest) != format {
		return nil, false
	}
	n := int(binary.BigEndian.Uint32(rest[4:]))
	rest = rest[8:]
	if len(rest) < n || string(rest[:n]) != s.version {
		return nil, false
	}
	rest = rest[n:]
	if len(rest) < len(k)+sha256.Size+8 || !bytes.Equal(rest[:len(k)], k[:]) {
		return nil, false
	}
	sum := rest[len(k) : len(k)+sha256.Size]
	size := binary.BigEndian.Uint64(rest[len(k)+sha256.Size:])
	payload := rest[len(k)+sha256.Size+8:]
	if uint64(len(payload)) != size {
		return nil, false
	}
	if got := sha256.Sum256(payload); !bytes.Equal(got[:], sum) {
		return nil, false
	}
	return payload, true
}

// Put stores payload under k, replacing what was there.
func (s *Store) Put(k Key, payload []byte) error {
	var r [8]byte
	_, _ = rand.Read(r[:])
	tmp := tmpPrefix + hex.EncodeToString(r[:]) + "-" + name(k)
	f, err := s.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, werr := f.Write(s.header(k, payload))
	if werr == nil {
		_, werr = f.Write(payload)
	}
	if err := errors.Join(werr, f.Close()); err != nil {
		_ = s.root.Remove(tmp)
		return err
	}
	if err := s.root.Rename(tmp, name(k)); err != nil {
		_ = s.root.Remove(tmp)
		return err
	}
	return nil
}

// staleTmp is how old a temporary file must be before Trim takes it for
// one a killed run left, rather than one a concurrent run is writing.
const staleTmp = 10 * time.Minute

// Trim removes the least recently used entries until the rest fit in
// MaxBytes, and temporary files left by runs that stopped half-way. Files
// that are neither are left alone.
func (s *Store) Trim() error {
	d, err := s.root.Open(".")
	if err != nil {
		return err
	}
	ents, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return err
	}
	type entry struct {
		name string
		size int64
		used time.Time
	}
	var kept []entry
	var total int64
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		switch {
		case strings.HasPrefix(e.Name(), tmpPrefix):
			if s.now().Sub(fi.ModTime()) > staleTmp {
				_ = s.root.Remove(e.Name())
			}
		case strings.HasSuffix(e.Name(), suffix):
			kept = append(kept, entry{e.Name(), fi.Size(), fi.ModTime()})
			total += fi.Size()
		}
	}
	limit := s.MaxBytes
	if limit <= 0 {
		limit = DefaultMaxBytes
	}
	slices.SortFunc(kept, func(a, b entry) int { return a.used.Compare(b.used) })
	var errs []error
	for _, e := range kept {
		if total <= limit {
			break
		}
		if err := s.root.Remove(e.name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		total -= e.size
	}
	return errors.Join(errs...)
}
