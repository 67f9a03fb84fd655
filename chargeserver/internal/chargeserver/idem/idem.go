// Package idem holds the pure parts of idempotency: validating a client's
// Idempotency-Key, fingerprinting a request body so that reordered keys or
// respelled numbers are the same request, and deriving the key the processor
// sees from the same scope, so a re-drive can never become a second charge.
package idem

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"sort"
	"strconv"
	"strings"
)

// MaxKeyLen is the longest Idempotency-Key accepted; the contract says so too.
const MaxKeyLen = 255

// Key validation errors, distinct so the server can say which rule failed.
var (
	ErrKeyMissing = errors.New("idempotency key missing")
	ErrKeyTooLong = errors.New("idempotency key longer than 255 characters")
	ErrKeyInvalid = errors.New("idempotency key must be printable ASCII")
)

// NormalizeKey is the one canonical form of a key, on every protocol: the
// key without the spaces and tabs around it. HTTP itself strips them from a
// header value (RFC 9110 section 5.5), so over HTTP "K " can only ever arrive
// as "K"; a request field or gRPC metadata keeps them. Stripping them
// everywhere makes "K " one key whichever way it is sent, where it was two
// charges. Nothing else is changed: case is significant, and a key that is
// not printable ASCII, which Unicode normalisation would bear on, is refused
// by ValidateKey on every protocol alike.
func NormalizeKey(k string) string { return strings.Trim(k, " \t") }

// ValidateKey accepts 1..255 printable ASCII characters: anything else is
// likely a client bug (binary garbage, a header folded into it) and would be
// hard to log or compare safely.
func ValidateKey(k string) error {
	switch {
	case k == "":
		return ErrKeyMissing
	case len(k) > MaxKeyLen:
		return ErrKeyTooLong
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x20 || k[i] > 0x7e {
			return ErrKeyInvalid
		}
	}
	return nil
}

// Parse decodes one JSON value, numbers kept exact, and rejects trailing data
// so "{}{}" is not silently half-read.
func Parse(body []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the JSON value")
	}
	return v, nil
}

// Canonical writes v (as returned by Parse) with object keys sorted and
// numbers normalised (4000, 4000.0 and 4e3 are all "4000"), so two bodies that
// mean the same thing have the same bytes.
func Canonical(v any) ([]byte, error) {
	var buf bytes.Buffer
	if err := writeCanonical(&buf, v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func writeCanonical(buf *bytes.Buffer, v any) error {
	switch t := v.(type) {
	case map[string]any:
		return writeObject(buf, t)
	case []any:
		buf.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeCanonical(buf, e); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case json.Number:
		n, err := NormalizeNumber(t)
		if err != nil {
			return err
		}
		buf.WriteString(n)
	default: // string, bool, nil: encoding/json is already canonical for these
		b, err := json.Marshal(t)
		if err != nil {
			return err
		}
		buf.Write(b)
	}
	return nil
}

func writeObject(buf *bytes.Buffer, m map[string]any) error {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	buf.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		buf.Write(kb)
		buf.WriteByte(':')
		if err := writeCanonical(buf, m[k]); err != nil {
			return err
		}
	}
	buf.WriteByte('}')
	return nil
}

// NormalizeNumber spells an integral number as a plain integer of any size and
// anything else as the shortest float64 form.
func NormalizeNumber(n json.Number) (string, error) {
	r, ok := new(big.Rat).SetString(string(n))
	if !ok {
		return "", fmt.Errorf("bad number %q", n)
	}
	if r.IsInt() {
		return r.Num().String(), nil
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64), nil
}

// Fingerprint is the SHA-256 of the canonical body, hex encoded.
func Fingerprint(canonical []byte) string {
	sum := sha256.Sum256(canonical)
	return hex.EncodeToString(sum[:])
}

// ProcessorKey derives the processor's idempotency key from the claim's scope
// and the claim's own nonce. It is a hash so the client's key never leaves the
// server. The nonce, drawn once when the claim is made and stored with it (as
// this key), ties the processor key to that one claim: every re-drive of the
// claim asks the processor the same question, and a key used again after its
// claim was pruned is a new claim, so a new question, never the old answer.
func ProcessorKey(account, route, key, nonce string) string {
	h := sha256.New()
	for _, s := range []string{account, route, key, nonce} {
		// Length-prefix each part so ("ab","c") and ("a","bc") differ.
		fmt.Fprintf(h, "%d:%s;", len(s), s)
	}
	return "pk_" + hex.EncodeToString(h.Sum(nil))
}

// NewNonce returns 128 random bits, hex encoded: one claim's identity.
func NewNonce() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Redact shows enough of a secret-ish value to correlate log lines and no
// more: idempotency keys and card tokens are never logged in full.
func Redact(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:6])
}
