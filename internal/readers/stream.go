package readers

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/contractlint/contractlint/internal/limits"
)

// A traffic file can be far larger than memory, so it is read as a stream
// of JSON tokens: the readers descend into the arrays that hold exchanges
// (HAR's log.entries, OTLP's resourceSpans/scopeSpans/spans) and decode one
// element at a time. Memory is bounded by the largest single element and by
// the distinct calls kept (maxKeys), never by the file's size.

// stream is a JSON token stream over one traffic file.
type stream struct {
	dec  *json.Decoder
	name string
	in   *countingReader
}

func newStream(name string, r io.Reader, progress func(read int64)) *stream {
	in := &countingReader{r: r, progress: progress}
	dec := json.NewDecoder(in)
	dec.UseNumber()
	return &stream{dec: dec, name: name, in: in}
}

// errorf names the file and the byte offset reached, the most a stream can
// tell of where a problem lies.
func (s *stream) errorf(format string, args ...any) error {
	return fmt.Errorf("byte %d: %s", s.dec.InputOffset(), fmt.Sprintf(format, args...))
}

// delim reads one token that must be the delimiter want.
func (s *stream) delim(want json.Delim, what string) error {
	tok, err := s.dec.Token()
	if err != nil {
		return s.syntax(err, what)
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return s.errorf("%s: want %q, found %v", what, want, tok)
	}
	return nil
}

// object reads an object, calling field for each key; field must consume
// the key's value (skip does, for keys of no interest).
func (s *stream) object(what string, field func(key string) error) error {
	if err := s.delim('{', what); err != nil {
		return err
	}
	for s.dec.More() {
		tok, err := s.dec.Token()
		if err != nil {
			return s.syntax(err, what)
		}
		key, _ := tok.(string)
		if err := field(key); err != nil {
			return err
		}
	}
	return s.delim('}', what)
}

// array reads an array, calling elem once per element; elem must consume it.
func (s *stream) array(what string, elem func() error) error {
	if err := s.delim('[', what); err != nil {
		return err
	}
	for s.dec.More() {
		if err := elem(); err != nil {
			return err
		}
	}
	return s.delim(']', what)
}

// decode reads one value into v.
func (s *stream) decode(v any, what string) error {
	if err := s.dec.Decode(v); err != nil {
		return s.syntax(err, what)
	}
	return nil
}

// skip consumes one value of any kind without keeping it.
func (s *stream) skip() error {
	depth := 0
	for {
		tok, err := s.dec.Token()
		if err != nil {
			return s.syntax(err, "value")
		}
		if d, ok := tok.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
		if depth == 0 {
			return nil
		}
	}
}

// more reports whether another top-level value follows (newline-delimited
// files hold one document per line).
func (s *stream) more() bool { return s.dec.More() }

func (s *stream) syntax(err error, what string) error {
	var ute *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return s.errorf("%s: the file ends in the middle of it", what)
	case errors.As(err, &ute):
		return s.errorf("%s: %s is a JSON %s, want %s", what, ute.Field, ute.Value, ute.Type)
	}
	return s.errorf("%s: %v", what, err)
}

// countingReader counts the bytes read through it and reports progress.
type countingReader struct {
	r        io.Reader
	n        int64
	progress func(read int64)
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.progress != nil && n > 0 {
		c.progress(c.n)
	}
	return n, err
}

// ProgressEvery is how many bytes of a traffic file pass between progress
// lines, and the size from which a file's read is reported at all, unless
// Options.ProgressEvery says otherwise.
const ProgressEvery = 64 << 20

// progressLine returns a progress callback that writes one line per every
// bytes of a file of size bytes to w; nil when w is nil or the file is
// small enough to read at once.
func progressLine(w func(string), name string, size, every int64) func(int64) {
	if every <= 0 {
		every = ProgressEvery
	}
	if w == nil || size < every {
		return nil
	}
	next := every
	return func(read int64) {
		if read < next {
			return
		}
		next = (read/every + 1) * every
		w(fmt.Sprintf("reading %s: %s of %s (%d%%)", name, limits.FormatSize(read), limits.FormatSize(size),
			read*100/max(size, 1)))
	}
}

// attr finds key in a flat set of string attributes, case-insensitively
// for header names.
func headerValue(hs []harHeader, name string) string {
	for _, h := range hs {
		if strings.EqualFold(h.Name, name) {
			return h.Value
		}
	}
	return ""
}
