package limits

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// DuplicateKey finds the first key that appears twice in one object of a
// JSON document and returns its 1-based line and column and the key, or
// line 0. YAML refuses a duplicated key, but a JSON decoder silently keeps
// the last one, so the same contract would mean different things to
// different readers. Text that is not JSON (YAML, or broken JSON, which the
// loader reports) has no duplicate here.
func DuplicateKey(b []byte) (line, col int, key string) {
	trimmed := bytes.TrimLeft(b, " \t\r\n\ufeff")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return 0, 0, ""
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber() // numbers are skipped; never parse them as floats
	// Each open object has its set of keys; an array has nil. expectKey
	// is true where the next string in an object is a key.
	var stack []map[string]bool
	var expectKey []bool
	for {
		before := d.InputOffset()
		tok, err := d.Token()
		if errors.Is(err, io.EOF) || err != nil {
			return 0, 0, ""
		}
		top := len(stack) - 1
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack, expectKey = append(stack, map[string]bool{}), append(expectKey, true)
				continue
			case '[':
				stack, expectKey = append(stack, nil), append(expectKey, false)
				continue
			default:
				stack, expectKey = stack[:top], expectKey[:top]
			}
		case string:
			if top >= 0 && stack[top] != nil && expectKey[top] {
				if stack[top][t] {
					line, col := lineCol(b, keyStart(b, int(before)))
					return line, col, t
				}
				stack[top][t] = true
				expectKey[top] = false
				continue
			}
		}
		// A value ended: in an object, a key comes next.
		if top = len(stack) - 1; top >= 0 && stack[top] != nil {
			expectKey[top] = true
		}
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
