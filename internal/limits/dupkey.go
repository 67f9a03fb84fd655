package limits

import (
	"bytes"
	"errors"

	"github.com/go-json-experiment/json/jsontext"
)

// DuplicateKey finds the first key that appears twice in one object of a
// JSON document and returns its 1-based line and column and the key, or
// line 0. YAML refuses a duplicated key, but a JSON decoder silently keeps
// the last one, so the same contract would mean different things to
// different readers. Text that is not JSON (YAML, or broken JSON, which the
// loader reports) has no duplicate here.
//
// jsontext's decoder checks the names of each object as it reads them, a
// value at a time, several times faster than encoding/json's tokens (a
// 1.8 MB spec is read on every run). Keys are compared as decoded, invalid
// UTF-8 read as U+FFFD, as encoding/json reads them.
func DuplicateKey(b []byte) (line, col int, key string) {
	trimmed := bytes.TrimLeft(b, " \t\r\n\ufeff")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return 0, 0, ""
	}
	d := jsontext.NewDecoder(bytes.NewBuffer(b), jsontext.AllowInvalidUTF8(true))
	for {
		err := d.SkipValue()
		if err == nil {
			continue
		}
		var se *jsontext.SyntacticError
		if !errors.Is(err, jsontext.ErrDuplicateName) || !errors.As(err, &se) {
			return 0, 0, ""
		}
		line, col := lineCol(b, keyStart(b, int(se.ByteOffset)))
		return line, col, se.JSONPointer.LastToken()
	}
}

// keyStart skips the separators before a token to its opening quote.
func keyStart(b []byte, off int) int {
	for off < len(b) && b[off] != '"' {
		off++
	}
	return off
}

// lineCol is the 1-based line and byte column of offset off.
func lineCol(b []byte, off int) (int, int) {
	off = min(off, len(b))
	line := 1 + bytes.Count(b[:off], []byte("\n"))
	return line, off - bytes.LastIndexByte(b[:off], '\n')
}
