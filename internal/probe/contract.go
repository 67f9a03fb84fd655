package probe

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/openapi"
	"github.com/contractlint/contractlint/rules"
)

// Target finds the POST operation u reaches in the OpenAPI contract side
// and returns it with the idempotency lint findings about it.
func Target(side pipeline.Side, o pipeline.Options, u *url.URL) (*rules.Operation, []rules.Finding, error) {
	name := side.Files[0]
	display := side.Display
	if display == nil {
		display = func(s string) string { return s }
	}
	if pipeline.FormatOf(side) != rules.OpenAPI {
		return nil, nil, source.Errorf(display(name), 0, 0, "probe --contract needs an OpenAPI document")
	}
	// Read as every contract is: under the limits (size, depth, aliases).
	doc, err := openapi.Load(o.Limits.Guard(side.Src, side.Display), name, display)
	if err != nil {
		return nil, nil, err
	}
	op := findOperation(doc.Contract().Operations, basePaths(doc), u.Path)
	if op == nil {
		return nil, nil, source.Errorf(display(name), 0, 0, "no POST operation matches %s; the contract's POST operations: %s",
			u.Path, postIDs(doc.Contract().Operations))
	}
	all, err := pipeline.Lint(side, o)
	if err != nil {
		return nil, nil, err
	}
	var fs []rules.Finding
	for _, f := range all {
		r, ok := o.Registry.Get(f.Rule)
		if ok && r.Pack == "idempotency" && slices.Contains(f.Operations, op.ID) {
			fs = append(fs, f)
		}
	}
	return op, fs, nil
}

// basePaths lists the path prefixes of the document's servers
// ("https://api.example.com/v2" -> "/v2"), and "" for a URL path that is
// the template itself.
func basePaths(doc *openapi.Doc) []string {
	out := []string{""}
	if doc.T == nil {
		return out
	}
	for _, s := range doc.T.Servers {
		if s == nil {
			continue
		}
		if u, err := url.Parse(s.URL); err == nil {
			if p := strings.TrimRight(u.Path, "/"); p != "" && !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// findOperation returns the POST operation whose path template matches
// urlPath under one of the base paths; a literal segment beats a parameter.
func findOperation(ops []*rules.Operation, bases []string, urlPath string) *rules.Operation {
	var best *rules.Operation
	bestParams := -1
	for _, base := range bases {
		rest, ok := strings.CutPrefix(urlPath, base)
		if !ok {
			continue
		}
		for _, op := range ops {
			tmpl, ok := strings.CutPrefix(op.ID, "POST ")
			if op.Method != http.MethodPost || !ok {
				continue
			}
			if n, ok := matchTemplate(tmpl, rest); ok && (best == nil || n < bestParams) {
				best, bestParams = op, n
			}
		}
		if best != nil {
			return best
		}
	}
	return nil
}

// matchTemplate matches "/v1/accounts/{id}/charges" against a URL path and
// returns how many segments were parameters.
func matchTemplate(tmpl, p string) (int, bool) {
	ts := strings.Split(strings.Trim(tmpl, "/"), "/")
	ps := strings.Split(strings.Trim(p, "/"), "/")
	if len(ts) != len(ps) {
		return 0, false
	}
	params := 0
	for i, t := range ts {
		switch {
		case strings.HasPrefix(t, "{") && strings.HasSuffix(t, "}"):
			if ps[i] == "" {
				return 0, false
			}
			params++
		case t != ps[i]:
			return 0, false
		}
	}
	return params, true
}

func postIDs(ops []*rules.Operation) string {
	var ids []string
	for _, op := range ops {
		if op.Method == http.MethodPost {
			ids = append(ids, op.ID)
		}
	}
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, ", ")
}

// responseFor returns the documented response that covers status: the exact
// code, then its range ("4XX"), then default; nil when op is nil or none does.
func responseFor(op *rules.Operation, status int) *rules.OpResponse {
	if op == nil {
		return nil
	}
	code := strconv.Itoa(status)
	for _, want := range []string{code, code[:1] + "XX", "default"} {
		for _, r := range op.Responses {
			if strings.EqualFold(r.Status, want) {
				return r
			}
		}
	}
	return nil
}

// checkContract compares every answer with op's documented responses: a
// status the contract does not document, or a documented Retry-After absent.
// (Idempotent-Replay is judged by the retry step, which knows which answers
// are replays.)
func checkContract(op *rules.Operation, replies []reply) []Result {
	const rule = rules.ProbeContractMismatch
	undocumented := map[int]int{}
	noRetryAfter := map[*rules.OpResponse]int{}
	answered := 0
	for _, r := range replies {
		if r.Err != nil {
			continue
		}
		answered++
		res := responseFor(op, r.Status)
		switch {
		case res == nil:
			undocumented[r.Status]++
		case documents(res, "Retry-After") && !r.retryAfter():
			noRetryAfter[res]++
		}
	}
	var out []Result
	for _, status := range sortedKeys(undocumented) {
		out = append(out, fail(rule, "%s answered %d (%d of the probe's requests), a status its contract does not document",
			op.ID, status, undocumented[status]))
	}
	for _, res := range op.Responses {
		if n := noRetryAfter[res]; n > 0 {
			r := fail(rule, "%d answers %s of %s had no Retry-After header, which the contract documents for %s",
				n, res.Status, op.ID, res.Status)
			r.Where = &res.Loc
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		out = append(out, pass(rule, "all %d answers had a status and headers the contract documents for %s", answered, op.ID))
	}
	return out
}

func documents(res *rules.OpResponse, header string) bool {
	return slices.ContainsFunc(res.Headers, func(h string) bool { return strings.EqualFold(h, header) })
}

func sortedKeys(m map[int]int) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
