package probe

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
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

// mutate returns a different request: the first number incremented, else
// the first string extended, else the first boolean flipped. A number is
// preferred because it keeps the body valid (an amount stays an amount).
func mutate(body []byte) ([]byte, error) {
	ms, err := parseObject(body)
	if err != nil {
		return nil, err
	}
	for _, change := range []func(json.RawMessage) (json.RawMessage, bool){bumpNumber, extendString, flipBool} {
		for i, m := range ms {
			if v, ok := change(m.value); ok {
				out := append([]member(nil), ms...)
				out[i].value = v
				return write(out, " "), nil
			}
		}
	}
	return nil, errors.New("the key-reuse step needs a top-level number, string or boolean to change, and the body has none")
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

// sameBody reports whether two answers carry the same content: equal JSON
// values when both parse (so spacing and key order do not count), else equal
// bytes.
func sameBody(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil {
		return reflect.DeepEqual(x, y)
	}
	return bytes.Equal(a, b)
}
