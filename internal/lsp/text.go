package lsp

import (
	"fmt"
	"io/fs"
	"net/url"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/contractlint/contractlint/internal/source"
)

// lineStart returns the byte offset where line (0-based) begins in text, or
// len(text) past the last line.
func lineStart(text string, line int) int {
	off := 0
	for i := 0; i < line; i++ {
		j := strings.IndexByte(text[off:], '\n')
		if j < 0 {
			return len(text)
		}
		off += j + 1
	}
	return off
}

// offset turns an LSP position (UTF-16 units within the line) into a byte
// offset, clamped to the line's end.
func offset(text string, p position) int {
	off := lineStart(text, p.Line)
	units := 0
	for off < len(text) && text[off] != '\n' && units < p.Character {
		r, size := utf8.DecodeRuneInString(text[off:])
		units += utf16.RuneLen(r)
		if units > p.Character && r >= 0x10000 {
			break
		}
		off += size
	}
	return off
}

// utf16Col counts the UTF-16 units of s.
func utf16Col(s string) int {
	n := 0
	for _, r := range s {
		n += max(utf16.RuneLen(r), 1)
	}
	return n
}

// apply makes one change to text.
func apply(text string, c contentChange) (string, error) {
	if c.Range == nil {
		return c.Text, nil
	}
	from, to := offset(text, c.Range.Start), offset(text, c.Range.End)
	if from > to {
		return "", fmt.Errorf("a change whose range ends before it starts (%d:%d-%d:%d)",
			c.Range.Start.Line, c.Range.Start.Character, c.Range.End.Line, c.Range.End.Character)
	}
	return text[:from] + c.Text + text[to:], nil
}

// lineSpan is the range of line (1-based, as findings count) from column
// (1-based, in characters) to the end of its text, trailing blanks and a
// comment left out; a line past the end is the document's last.
func lineSpan(text string, line, column int) span {
	l := max(line-1, 0)
	start := lineStart(text, l)
	if start == len(text) && l > 0 && !strings.HasSuffix(text, "\n") {
		l = strings.Count(text, "\n")
		start = lineStart(text, l)
	}
	end := strings.IndexByte(text[start:], '\n')
	if end < 0 {
		end = len(text) - start
	}
	body := text[start : start+end]
	body = strings.TrimRight(body, " \t\r")
	col := 0
	if column > 1 {
		// Columns count characters; an LSP position counts UTF-16 units.
		runes := []rune(body)
		col = utf16Col(string(runes[:min(column-1, len(runes))]))
	}
	endCol := utf16Col(body)
	if endCol <= col {
		endCol = col
	}
	return span{Start: position{l, col}, End: position{l, endCol}}
}

// uriName turns a file URI into a name relative to top, the form findings
// use; ok is false for a URI outside top or not a file.
func uriName(uri, top string) (string, bool) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return "", false
	}
	rel, err := filepath.Rel(top, filepath.FromSlash(u.Path))
	if err != nil {
		return "", false
	}
	rel = filepath.ToSlash(rel)
	if c, err := source.Clean(rel); err != nil || c != rel {
		return "", false
	}
	return rel, true
}

// nameURI is the file URI of a name relative to top.
func nameURI(name, top string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(top, filepath.FromSlash(name)))}).String()
}

// overlay is the working tree with the editor's unsaved buffers over it:
// the new side of every comparison the server makes.
type overlay struct {
	source.Source
	texts map[string]string
}

func (o overlay) ReadFile(name string) ([]byte, error) {
	if t, ok := o.text(name); ok {
		return []byte(t), nil
	}
	return o.Source.ReadFile(name)
}

// ReadFileMax lets limits.Guard refuse a large buffer as it refuses a file.
func (o overlay) ReadFileMax(name string, limit int64) ([]byte, error) {
	if t, ok := o.text(name); ok {
		if int64(len(t)) > limit {
			return nil, &source.TooLargeError{Name: name, Size: int64(len(t))}
		}
		return []byte(t), nil
	}
	return source.ReadFileMax(o.Source, name, limit)
}

// ReadPrefix reads the start of a buffer or file, as review's sniff asks:
// a large file not open in the editor is never read whole to tell what it is.
func (o overlay) ReadPrefix(name string, n int64) ([]byte, error) {
	if t, ok := o.text(name); ok {
		return []byte(t[:min(int64(len(t)), n)]), nil
	}
	return source.ReadPrefix(o.Source, name, n)
}

func (o overlay) Stat(name string) (fs.FileInfo, error) {
	if t, ok := o.text(name); ok {
		return bufferInfo{name: filepath.Base(name), size: int64(len(t))}, nil
	}
	return o.Source.Stat(name)
}

func (o overlay) text(name string) (string, bool) {
	if t, ok := o.texts[name]; ok {
		return t, true
	}
	c, err := source.Clean(name)
	if err != nil {
		return "", false
	}
	t, ok := o.texts[c]
	return t, ok
}

// bufferInfo describes an unsaved buffer as a regular file.
type bufferInfo struct {
	name string
	size int64
}

func (b bufferInfo) Name() string       { return b.name }
func (b bufferInfo) Size() int64        { return b.size }
func (b bufferInfo) Mode() fs.FileMode  { return 0o644 }
func (b bufferInfo) ModTime() time.Time { return time.Time{} }
func (b bufferInfo) IsDir() bool        { return false }
func (b bufferInfo) Sys() any           { return nil }
