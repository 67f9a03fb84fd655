package chargeserver

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"

	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/tracing"
)

// keyring maps API keys to accounts. It keeps only hashes and compares every
// entry in constant time, so neither timing nor a memory dump reveals a key.
type keyring struct {
	entries []keyEntry
}

type keyEntry struct {
	hash    [32]byte
	account string
}

func newKeyring(keys map[string]string) *keyring {
	k := &keyring{}
	for key, account := range keys {
		k.entries = append(k.entries, keyEntry{hash: sha256.Sum256([]byte(key)), account: account})
	}
	return k
}

// account returns the presented key's account, or "" for none.
func (k *keyring) account(presented string) string {
	h := sha256.Sum256([]byte(presented))
	found := ""
	for _, e := range k.entries {
		// No early exit: every entry costs the same.
		if subtle.ConstantTimeCompare(h[:], e.hash[:]) == 1 {
			found = e.account
		}
	}
	return found
}

type accountKey struct{}

func accountOf(ctx context.Context) string {
	a, _ := ctx.Value(accountKey{}).(string)
	return a
}

// authenticate resolves the bearer key and applies the account's rate limit.
func (s *Server) authenticate(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Values("Authorization")
		if len(auth) > 1 {
			// Two credentials: whichever one won, some proxy or client in the
			// chain meant the other account.
			s.reject(w, newProblem(400, "invalid_request", "the request has more than one Authorization header"))
			return
		}
		account := ""
		if token, ok := bearerToken(auth); ok {
			account = s.keys.account(token)
		}
		if account == "" {
			s.metrics.request("unauthorized")
			w.Header().Set("WWW-Authenticate", `Bearer realm="charges"`)
			writeProblem(w, newProblem(401, "unauthorized", "a valid API key is required"), 0)
			return
		}
		markAuthenticated(r)
		tracing.SetConsumer(r.Context(), account)
		if wait := s.limiter.take(account, s.now()); wait > 0 {
			s.metrics.request("rate_limited")
			writeProblem(w, newProblem(429, "rate_limited", "too many requests for this account"), wait)
			return
		}
		next(w, r.WithContext(context.WithValue(r.Context(), accountKey{}, account)))
	}
}

// bearerToken returns the credentials of a Bearer Authorization header. The
// scheme is case-insensitive (RFC 9110 section 11.1) and followed by one or
// more spaces (RFC 6750 section 2.1).
func bearerToken(auth []string) (string, bool) {
	if len(auth) != 1 {
		return "", false
	}
	scheme, token, ok := strings.Cut(auth[0], " ")
	token = strings.TrimLeft(token, " ")
	return token, ok && strings.EqualFold(scheme, "Bearer") && token != ""
}
