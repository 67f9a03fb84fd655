package probe

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"strconv"
)

// DefaultBody is the request body when none is given: a charge the bundled
// reference charge server accepts.
const DefaultBody = `{"amount_cents": 100, "currency": "GBP", "card_token": "tok_visa", "description": "contractlint probe"}`

// member is one top-level member of a JSON object, in document order.
type member struct {
	key   string
	value json.RawMessage
}

// parseObject reads a JSON object's top-level members in their order, which
// a map would lose and the reordered-body step needs.
func parseObject(b []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("the request body must be a JSON object")
	}
	var ms []member
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("the request body is not valid JSON: %v", err)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("the request body is not valid JSON: %v", err)
		}
		ms = append(ms, member{key: t.(string), value: v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("the request body is not valid JSON: %v", err)
	}
	if dec.More() {
		return nil, errors.New("the request body has data after the JSON object")
	}
	return ms, nil
}

// write serialises members in the given order, with the spacing style given.
func write(ms []member, sep string) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteString("," + sep)
		}
		k, _ := json.Marshal(m.key)
		b.Write(k)
		b.WriteString(":" + sep)
		b.Write(m.value)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// reorder returns the same object with its members in reverse order and
// different spacing: the same request to anyone who parses JSON.
func reorder(body []byte) ([]byte, error) {
	ms, err := parseObject(body)
	if err != nil {
		return nil, err
	}
	rev := make([]member, len(ms))
	for i, m := range ms {
		rev[len(ms)-1-i] = m
	}
	return write(rev, "\n  "), nil
}

// variant is the request body with one top-level member changed.
type variant struct {
	member string
	body   []byte
}

// variants returns the bodies the key-reuse step sends under the first
// request's key: the first number incremented (else the first string
// extended, else the first boolean flipped), and then the last other member
// that can change, so a fingerprint over only some fields is caught. A
// number comes first because it keeps the body valid (an amount stays an
// amount); the last member is most often an optional one (a description)
// that any value suits.
func variants(body []byte) ([]variant, error) {
	ms, err := parseObject(body)
	if err != nil {
		return nil, err
	}
	first := -1
	for _, change := range changes {
		for i, m := range ms {
			if _, ok := change(m.value); ok && first < 0 {
				first = i
			}
		}
	}
	if first < 0 {
		return nil, errors.New("the key-reuse step needs a top-level number, string or boolean to change, and the body has none")
	}
	out := []variant{changed(ms, first)}
	for i := len(ms) - 1; i >= 0; i-- {
		if i != first && changeable(ms[i].value) {
			return append(out, changed(ms, i)), nil
		}
	}
	return out, nil
}

// changes are the ways a member's value is changed, in order of preference.
var changes = []func(json.RawMessage) (json.RawMessage, bool){bumpNumber, extendString, flipBool}

func changeable(v json.RawMessage) bool {
	for _, change := range changes {
		if _, ok := change(v); ok {
			return true
		}
	}
	return false
}

// changed returns ms with member i changed the first way that applies.
func changed(ms []member, i int) variant {
	out := append([]member(nil), ms...)
	for _, change := range changes {
		if v, ok := change(ms[i].value); ok {
			out[i].value = v
			break
		}
	}
	return variant{member: ms[i].key, body: write(out, " ")}
}

// mutate returns the first variant: a different request.
func mutate(body []byte) ([]byte, error) {
	vs, err := variants(body)
	if err != nil {
		return nil, err
	}
	return vs[0].body, nil
}

func bumpNumber(v json.RawMessage) (json.RawMessage, bool) {
	if n, err := strconv.ParseInt(string(v), 10, 64); err == nil && n < 1<<53 {
		return json.RawMessage(strconv.FormatInt(n+1, 10)), true
	}
	if f, err := strconv.ParseFloat(string(v), 64); err == nil {
		return json.RawMessage(strconv.FormatFloat(f+1, 'g', -1, 64)), true
	}
	return nil, false
}

func extendString(v json.RawMessage) (json.RawMessage, bool) {
	var s string
	if len(v) == 0 || v[0] != '"' || json.Unmarshal(v, &s) != nil {
		return nil, false
	}
	out, _ := json.Marshal(s + " (changed)")
	return out, true
}

func flipBool(v json.RawMessage) (json.RawMessage, bool) {
	switch string(v) {
	case "true":
		return json.RawMessage("false"), true
	case "false":
		return json.RawMessage("true"), true
	}
	return nil, false
}

// sameBody reports whether two bodies carry the same content (see digest).
func sameBody(a, b []byte) bool { return digest(a) == digest(b) }

// digest is the SHA-256 of a whole body: of its canonical JSON (keys sorted,
// integers exact and normalised, so 1 and 1.0 are one number and two ids
// past 2^53 stay two) when it is one JSON value, so spacing and key order do not
// count, else of its bytes. The two kinds never collide.
func digest(b []byte) [32]byte {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err == nil {
		if _, err := dec.Token(); err == io.EOF {
			if c, err := json.Marshal(exact(v)); err == nil {
				return sha256.Sum256(append([]byte("json\x00"), c...))
			}
		}
	}
	return sha256.Sum256(append([]byte("raw\x00"), b...))
}

// exact respells every integer in v in its shortest exact form (1.0, 1e0
// and 1 are all 1), so equal integers spelt differently compare equal;
// other numbers keep their spelling.
func exact(v any) any {
	switch v := v.(type) {
	case json.Number:
		if r, ok := new(big.Rat).SetString(string(v)); ok && r.IsInt() {
			return json.Number(r.Num().String())
		}
	case map[string]any:
		for k, e := range v {
			v[k] = exact(e)
		}
	case []any:
		for i, e := range v {
			v[i] = exact(e)
		}
	}
	return v
}
