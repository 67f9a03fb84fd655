package source

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ErrTooLarge is returned by ReadFileMax for a file over the size limit.
var ErrTooLarge = errors.New("file too large")

// TooLargeError names a file over the size limit and its size.
type TooLargeError struct {
	Name string
	Size int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s: %v (%d bytes)", e.Name, ErrTooLarge, e.Size)
}
func (e *TooLargeError) Unwrap() error { return ErrTooLarge }

// maxReader is a Source that can refuse a large file before reading it.
type maxReader interface {
	ReadFileMax(name string, max int64) ([]byte, error)
}

// ReadFileMax reads name from src, refusing a file larger than max bytes
// with a *TooLargeError. Sources that know a file's size first (Dir, Git)
// refuse it without reading it, so memory stays bounded by max.
func ReadFileMax(src Source, name string, max int64) ([]byte, error) {
	if m, ok := src.(maxReader); ok {
		return m.ReadFileMax(name, max)
	}
	b, err := src.ReadFile(name)
	if err == nil && int64(len(b)) > max {
		return nil, &TooLargeError{Name: name, Size: int64(len(b))}
	}
	return b, err
}

// ReadFileMax reads a regular file of at most max bytes. Anything else (a
// FIFO, a device) is refused before a byte is read, since reading it could
// block or never end: the file is opened without blocking and the open
// handle is checked, so nothing can be swapped in between. A file that
// grows past max while read is refused too.
func (d *Dir) ReadFileMax(name string, max int64) ([]byte, error) {
	f, fi, err := d.openRegular(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > max {
		return nil, &TooLargeError{Name: name, Size: fi.Size()}
	}
	// Sized from Stat, as os.ReadFile does: one allocation for a file that
	// does not grow, where io.ReadAll's doubling leaves several of its size
	// to the collector (4 MB contracts are read on every run).
	buf := bytes.NewBuffer(make([]byte, 0, fi.Size()+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(f, max+1)); err != nil {
		return nil, d.explain(name, err)
	}
	b := buf.Bytes()
	if int64(len(b)) > max {
		return nil, &TooLargeError{Name: name, Size: int64(len(b))}
	}
	return b, nil
}

// ReadFileMax reads a blob of at most max bytes; git tells the size before
// the content, so a larger blob is skipped, not held in memory.
func (g *Git) ReadFileMax(name string, max int64) ([]byte, error) {
	c, err := g.Resolve(name)
	if err != nil {
		return nil, err
	}
	if e, ok := g.blobs[c]; ok && isRegular(e.mode) {
		b, err := g.blobMax(e.oid, max)
		var tl *TooLargeError
		if errors.As(err, &tl) {
			tl.Name = name
		}
		return b, err
	}
	return g.ReadFile(name) // the same error ReadFile gives
}

// ReadPrefix reads at most the first n bytes of a file: enough to tell what
// a file is without holding a large one in memory. A source that cannot
// read a part reads the whole file and cuts it.
func ReadPrefix(src Source, name string, n int64) ([]byte, error) {
	if p, ok := src.(interface {
		ReadPrefix(string, int64) ([]byte, error)
	}); ok {
		return p.ReadPrefix(name, n)
	}
	b, err := src.ReadFile(name)
	return b[:min(int64(len(b)), n)], err
}

// ReadPrefix reads at most the first n bytes of a regular file.
func (d *Dir) ReadPrefix(name string, n int64) ([]byte, error) {
	f, _, err := d.openRegular(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, n))
	return b, d.explain(name, err)
}

// openRegular opens a regular file without blocking and checks the open
// handle, so a FIFO or device is refused before a byte is read and nothing
// can be swapped in between.
func (d *Dir) openRegular(name string) (*os.File, fs.FileInfo, error) {
	c, err := Clean(name)
	if err != nil {
		return nil, nil, err
	}
	f, err := inRoot(d, c, func(r *os.Root, name string) (*os.File, error) {
		return r.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	})
	if err != nil {
		return nil, nil, d.explain(name, err)
	}
	fi, err := f.Stat()
	switch {
	case err != nil:
		err = d.explain(name, err)
	case fi.IsDir():
		err = fmt.Errorf("%s: is a directory", name)
	case !fi.Mode().IsRegular():
		err = fmt.Errorf("%s: %w", name, ErrNotRegular)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// ReadPrefix reads at most the first n bytes of a blob; the rest passes
// through cat-file's pipe without being kept.
func (g *Git) ReadPrefix(name string, n int64) ([]byte, error) {
	c, err := g.Resolve(name)
	if err != nil {
		return nil, err
	}
	e, ok := g.blobs[c]
	if !ok || !isRegular(e.mode) {
		_, err := g.ReadFile(name) // the same error ReadFile gives
		return nil, err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if b, ok := g.cache[e.oid]; ok {
		return b[:min(int64(len(b)), n)], nil
	}
	size, err := g.header(e.oid)
	if err != nil {
		return nil, err
	}
	b := make([]byte, min(size, n))
	if _, err := io.ReadFull(g.cat.Out, b); err != nil {
		return nil, fmt.Errorf("git cat-file: %v", err)
	}
	if err := skip(g.cat.Out, size-int64(len(b))+1); err != nil {
		return nil, fmt.Errorf("git cat-file: %v", err)
	}
	return b, nil
}

// skip drops n bytes of cat-file output, keeping the stream in step.
func skip(r io.Reader, n int64) error {
	_, err := io.CopyN(io.Discard, r, n)
	return err
}

// OpenStream opens a regular file to be read as a stream, for inputs too
// large to hold (traffic recordings), with its size. A source that cannot
// stream (git) reads the file whole.
func OpenStream(src Source, name string) (io.ReadCloser, int64, error) {
	if d, ok := src.(*Dir); ok {
		f, fi, err := d.openRegular(name)
		if err != nil {
			return nil, 0, err
		}
		return f, fi.Size(), nil
	}
	b, err := src.ReadFile(name)
	if err != nil {
		return nil, 0, err
	}
	return io.NopCloser(bytes.NewReader(b)), int64(len(b)), nil
}
