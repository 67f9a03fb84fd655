package limits_test

import (
	"testing"

	"github.com/contractlint/contractlint/internal/limits"
)

// TestDuplicateKeyAsDecoded: keys are compared as a JSON decoder reads
// them, escapes decoded and invalid UTF-8 read as U+FFFD, and the place
// given is the second key's opening quote, in whichever value of the text
// it comes.
func TestDuplicateKeyAsDecoded(t *testing.T) {
	for text, want := range map[string][3]any{
		`{"a": 1, "\u0061": 2}`:               {1, 10, "a"},
		`{"a~b/c": 1, "a~b/c": 2}`:            {1, 14, "a~b/c"},
		"{\"\xff\": 1, \"\xfe\": 2}":          {1, 10, "\ufffd"},
		"{\"a\": 1}\n{\"b\": 1, \"b\": 2}":    {2, 10, "b"},
		`{"a": [1, 2e400, {"b": 1, "b": 2}]}`: {1, 27, "b"},
		`{"a": 1, "b": 2, "A": 3}`:            {0, 0, ""},
	} {
		line, col, key := limits.DuplicateKey([]byte(text))
		if got := [3]any{line, col, key}; got != want {
			t.Errorf("DuplicateKey(%q) = %v, want %v", text, got, want)
		}
	}
}
