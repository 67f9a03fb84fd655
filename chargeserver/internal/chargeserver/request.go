package chargeserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/idem"
)

// chargeRequest is a validated POST /v1/charges body.
type chargeRequest struct {
	AmountCents int64  `json:"amount_cents"`
	Currency    string `json:"currency"`
	CardToken   string `json:"card_token"`
	Description string `json:"description"`
}

// requestFields are the only fields accepted: the request schema is closed.
var requestFields = []string{"amount_cents", "currency", "card_token", "description"}

// parseCharge validates body and returns it with its canonical form, parsed
// once so the fingerprint and the validation see the same value.
func parseCharge(body []byte, cfg *Config) (chargeRequest, []byte, *problem) {
	if p := textProblem(body); p != nil {
		return fail(*p)
	}
	v, err := idem.Parse(body)
	if err != nil {
		return fail(newProblem(400, "invalid_json", "the body is not one JSON value"))
	}
	m, ok := v.(map[string]any)
	if !ok {
		return fail(newProblem(400, "invalid_json", "the body must be a JSON object"))
	}
	for k := range m {
		if !slices.Contains(requestFields, k) {
			return fail(newProblem(400, "unknown_field", fmt.Sprintf("unknown field %q", k)))
		}
	}
	req, p := fields(m, cfg)
	if p != nil {
		return fail(*p)
	}
	canonical, err := idem.Canonical(m)
	if err != nil {
		return fail(newProblem(400, "invalid_json", "the body is not valid JSON"))
	}
	return req, canonical, nil
}

func fail(p problem) (chargeRequest, []byte, *problem) { return chargeRequest{}, nil, &p }

func fields(m map[string]any, cfg *Config) (chargeRequest, *problem) {
	var req chargeRequest
	bad := func(code, detail string) (chargeRequest, *problem) {
		p := newProblem(400, code, detail)
		return chargeRequest{}, &p
	}
	amount, err := integer(m["amount_cents"])
	if err != nil {
		return bad("invalid_amount", fmt.Sprintf("amount_cents must be an integer number of minor units, written as at most %d digits with no exponent", maxDigits))
	}
	if amount <= 0 || amount > cfg.MaxAmountCents {
		return bad("invalid_amount", fmt.Sprintf("amount_cents must be between 1 and %d", cfg.MaxAmountCents))
	}
	req.AmountCents = amount
	var ok bool
	if req.Currency, ok = m["currency"].(string); !ok {
		return bad("invalid_request", "currency is required and must be a string")
	}
	if !slices.Contains(cfg.Currencies, req.Currency) {
		return bad("unsupported_currency", "currency is not supported")
	}
	if req.CardToken, ok = m["card_token"].(string); !ok || req.CardToken == "" || utf8.RuneCountInString(req.CardToken) > 255 || hasNUL(req.CardToken) {
		return bad("invalid_request", "card_token is required: a string of 1 to 255 characters, no NUL")
	}
	if d, present := m["description"]; present {
		if req.Description, ok = d.(string); !ok || utf8.RuneCountInString(req.Description) > 1000 || hasNUL(req.Description) {
			return bad("invalid_request", "description must be a string of at most 1000 characters, no NUL")
		}
	}
	return req, nil
}

// The contract's maxLength counts characters, as JSON Schema does, not the
// bytes of their UTF-8 encoding.

// hasNUL reports a NUL character, which PostgreSQL text cannot hold: accepted,
// it would fail the record after the processor charged, on every re-drive.
func hasNUL(s string) bool { return strings.IndexByte(s, 0) >= 0 }

// maxDigits is as many digits as an int64 amount can have.
const maxDigits = 19

// integer reads an amount spelled as plain digits, at most maxDigits of
// them, optionally with a fraction of zeros (4000, 4000.0). Anything else
// is refused by its spelling before any arithmetic: an exponent (1e999999
// made big.Rat spell out ten to the 999,999th, 40 ms of CPU against about
// 1 ms for other bad requests), or too many digits.
func integer(v any) (int64, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, errors.New("not a number")
	}
	whole, frac, _ := strings.Cut(string(n), ".")
	switch {
	case strings.ContainsAny(string(n), "eE"):
		return 0, errors.New("an exponent")
	case len(strings.TrimPrefix(whole, "-")) > maxDigits || len(frac) > maxDigits:
		return 0, errors.New("too many digits")
	case strings.Trim(frac, "0") != "":
		return 0, errors.New("not an integer")
	}
	return strconv.ParseInt(whole, 10, 64)
}

// decodeStored reads back a canonical request kept with a claim.
func decodeStored(canonical []byte) (chargeRequest, error) {
	var req chargeRequest
	err := json.Unmarshal(canonical, &req)
	return req, err
}

// wellFormed refuses, before the body is read, headers no charge request may
// carry: two Idempotency-Key headers (which one names the request is up to
// whoever reads them), or a body that is not declared JSON.
func (s *Server) wellFormed(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if len(r.Header.Values("Idempotency-Key")) > 1 {
			s.reject(w, newProblem(400, "idempotency_key_invalid", "the request has more than one Idempotency-Key header"))
			return
		}
		if !isJSON(r.Header.Values("Content-Type")) {
			s.reject(w, newProblem(415, "unsupported_media_type", "the body must be sent as Content-Type: application/json"))
			return
		}
		next(w, r)
	}
}

// isJSON accepts one Content-Type of application/json in any case, with no
// charset or UTF-8 (the only encoding JSON allows between systems, RFC 8259).
func isJSON(ct []string) bool {
	if len(ct) != 1 {
		return false
	}
	mt, params, err := mime.ParseMediaType(ct[0])
	if err != nil || mt != "application/json" {
		return false
	}
	cs, ok := params["charset"]
	return !ok || strings.EqualFold(cs, "utf-8")
}

// textProblem refuses JSON text the decoder would silently change: bytes
// that are not UTF-8 and escaped lone surrogates (both become U+FFFD, so two
// different bodies would share a fingerprint), and an object member given
// twice (the decoder keeps the last, so {"amount_cents":100,
// "amount_cents":999999} charged 999999). Text that is not JSON at all is
// left for the parser to describe.
func textProblem(body []byte) *problem {
	bad := func(code, detail string) *problem {
		p := newProblem(400, code, detail)
		return &p
	}
	if !utf8.Valid(body) {
		return bad("invalid_json", "the body is not valid UTF-8")
	}
	name, err := duplicateMember(body)
	switch {
	case errors.Is(err, errTooDeep):
		return bad("invalid_json", fmt.Sprintf("the body nests deeper than %d levels; a charge request is one flat object", maxNesting))
	case err != nil:
		return nil
	case name != "":
		return bad("duplicate_field", fmt.Sprintf("the member %q appears more than once in one object", name))
	case loneSurrogate(body):
		return bad("invalid_json", "the body has a \\u escape of a lone UTF-16 surrogate, which is no character")
	}
	return nil
}

// maxNesting bounds the walk: a charge request is one flat object, so any
// nesting is refused later anyway, and a body of 30,000 brackets would
// otherwise cost ten times its parse.
const maxNesting = 32

var errTooDeep = errors.New("nested too deep")

// duplicateMember returns the first member name that repeats within one
// object, at any depth up to maxNesting; an error when body is not one JSON
// value (the parser says why) or nests deeper. It walks tokens with an
// explicit stack, so nesting costs no recursion.
func duplicateMember(body []byte) (string, error) {
	type object struct {
		names    map[string]bool
		wantName bool
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	// Numbers stay text: converting each to float64 costs time on a long
	// one, and one out of float64's range would end the walk early,
	// skipping the members after it.
	dec.UseNumber()
	var stack []*object // nil entries are arrays
	for {
		t, err := dec.Token()
		if err != nil {
			return "", err
		}
		var top *object
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if name, ok := t.(string); ok && top != nil && top.wantName {
			if top.names[name] {
				return name, nil
			}
			top.names[name], top.wantName = true, false
			continue
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			if len(stack) == maxNesting {
				return "", errTooDeep
			}
			var o *object
			if t == json.Delim('{') {
				o = &object{names: map[string]bool{}, wantName: true}
			}
			stack = append(stack, o)
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		// A value ended: its object expects a name next, or the text is done.
		if len(stack) == 0 {
			return "", nil
		}
		if parent := stack[len(stack)-1]; parent != nil {
			parent.wantName = true
		}
	}
}

// loneSurrogate reports a \uD800-\uDFFF escape that is not half of a pair.
// body must be valid JSON, where a backslash only ever starts an escape.
func loneSurrogate(body []byte) bool {
	escaped := func(i int) (rune, bool) { // the \uXXXX at body[i:], if any
		if i+6 > len(body) || body[i] != '\\' || body[i+1] != 'u' {
			return 0, false
		}
		n, err := strconv.ParseUint(string(body[i+2:i+6]), 16, 16)
		return rune(n), err == nil
	}
	for i := 0; i < len(body); i++ {
		if body[i] != '\\' {
			continue
		}
		r, ok := escaped(i)
		if !ok {
			i++ // a one-character escape such as \\ or \"
			continue
		}
		switch {
		case r >= 0xDC00 && r <= 0xDFFF:
			return true
		case r >= 0xD800 && r < 0xDC00:
			low, ok := escaped(i + 6)
			if !ok || low < 0xDC00 || low > 0xDFFF {
				return true
			}
			i += 6
		}
		i += 5
	}
	return false
}
