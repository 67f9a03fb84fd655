package chargeserver

import (
	"strings"
	"testing"
)

// TestParseAPIKeys: entries become key -> account; a key given twice (with
// the same account or another) is an error naming both places and never the
// key, because which account such a key charges would depend on the order.
func TestParseAPIKeys(t *testing.T) {
	keys, err := ParseAPIKeys([]APIKeyEntry{{"--api-key 1", "sk_a=acct_a"}, {"keys.txt:2", "sk_b=acct_b=x"}})
	if err != nil || len(keys) != 2 || keys["sk_a"] != "acct_a" || keys["sk_b"] != "acct_b=x" {
		t.Fatalf("keys %v, %v", keys, err)
	}
	for _, tc := range []struct {
		entries []APIKeyEntry
		want    string
	}{
		{[]APIKeyEntry{{"--api-key 1", "sk_secret=acct_a"}, {"keys.txt:3", "sk_secret=acct_b"}},
			"keys.txt:3: API key repeats the one at --api-key 1"},
		{[]APIKeyEntry{{"--api-key 1", "sk_secret=acct_a"}, {"--api-key 2", "sk_secret=acct_a"}},
			"--api-key 2: API key repeats the one at --api-key 1"},
		{[]APIKeyEntry{{"keys.txt:1", "sk_secret"}}, "keys.txt:1: API key entry is not KEY=ACCOUNT"},
		{[]APIKeyEntry{{"--api-key 1", "=acct"}}, "--api-key 1: API key entry is not KEY=ACCOUNT"},
	} {
		_, err := ParseAPIKeys(tc.entries)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%v: %v, want %q", tc.entries, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "sk_secret") {
			t.Errorf("the error shows the key: %v", err)
		}
	}
}
