package chargeserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/contractlint/contractlint/internal/chargeserver/idem"
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
		return bad("invalid_amount", "amount_cents must be an integer number of minor units")
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
	if req.CardToken, ok = m["card_token"].(string); !ok || req.CardToken == "" || len(req.CardToken) > 255 || hasNUL(req.CardToken) {
		return bad("invalid_request", "card_token is required: a string of 1 to 255 characters, no NUL")
	}
	if d, present := m["description"]; present {
		if req.Description, ok = d.(string); !ok || len(req.Description) > 1000 || hasNUL(req.Description) {
			return bad("invalid_request", "description must be a string of at most 1000 characters, no NUL")
		}
	}
	return req, nil
}

// hasNUL reports a NUL character, which PostgreSQL text cannot hold: accepted,
// it would fail the record after the processor charged, on every re-drive.
func hasNUL(s string) bool { return strings.IndexByte(s, 0) >= 0 }

// integer accepts any JSON spelling of an integer that fits int64 (4000,
// 4000.0, 4e3), as the fingerprint treats them as equal.
func integer(v any) (int64, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, errors.New("not a number")
	}
	r, ok := new(big.Rat).SetString(string(n))
	if !ok || !r.IsInt() || !r.Num().IsInt64() {
		return 0, errors.New("not an int64")
	}
	return r.Num().Int64(), nil
}

// decodeStored reads back a canonical request kept with a claim.
func decodeStored(canonical []byte) (chargeRequest, error) {
	var req chargeRequest
	err := json.Unmarshal(canonical, &req)
	return req, err
}
