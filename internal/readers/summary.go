package readers

import (
	"cmp"
	"slices"
	"time"
)

// Summary is what a set of evidence files taught, for `contractlint
// readers`: each file's span and, by consumer, the operations called and
// the fields read or sent, so a team can check its evidence before a gate
// trusts it.
type Summary struct {
	Window    string            `json:"window"`
	Since     time.Time         `json:"since"`
	Until     time.Time         `json:"until"`
	Files     []FileSummary     `json:"files"`
	Consumers []ConsumerSummary `json:"consumers"`
}

// FileSummary is one evidence file; the counts are traffic's only.
type FileSummary struct {
	File     string    `json:"file"`
	Format   string    `json:"format"`
	First    time.Time `json:"first,omitzero"`
	Last     time.Time `json:"last,omitzero"`
	Requests int64     `json:"requests,omitempty"`
	// Refused counts the 4xx exchanges, which show no use.
	Refused   int64    `json:"refused,omitempty"`
	Recent    int64    `json:"recent,omitempty"`
	Consumers []string `json:"consumers,omitempty"`
	// Covers is true when the file's traffic starts at or before the
	// window's start, so that no call in it means no call.
	Covers bool `json:"covers"`
}

// ConsumerSummary is what one consumer was seen doing.
type ConsumerSummary struct {
	Name       string      `json:"name"`
	Operations []OpSummary `json:"operations"`
}

// OpSummary is one operation, rpc or message of a consumer. Calls counts
// what the evidence counts (traffic exchanges, usage reads; a Pact file
// counts its interactions) and Recent those within the window.
type OpSummary struct {
	Operation string         `json:"operation"`
	Calls     int64          `json:"calls"`
	Recent    int64          `json:"recent"`
	LastSeen  time.Time      `json:"last_seen,omitzero"`
	Fields    []FieldSummary `json:"fields,omitempty"`
}

// FieldSummary is one field: read (Pact, usage: "read"), or seen in a
// request or response body of traffic ("request", "response": sent, which
// is no proof of a read).
type FieldSummary struct {
	Field  string `json:"field"`
	Side   string `json:"side"`
	Count  int64  `json:"count"`
	Recent int64  `json:"recent"`
}

// Summarize lists what s holds.
func (s *Set) Summarize(window string) Summary {
	since := s.Now.Add(-s.Window)
	sum := Summary{Window: window, Since: since, Until: s.Now, Files: []FileSummary{}, Consumers: []ConsumerSummary{}}
	traffic := map[string]bool{}
	for _, c := range s.Traffic {
		traffic[c.File] = true
		sum.Files = append(sum.Files, FileSummary{File: c.File, Format: c.Format, First: c.First, Last: c.Last,
			Requests: c.Requests, Refused: c.Refused, Recent: c.Recent, Consumers: c.Consumers,
			Covers: !c.First.IsZero() && !c.First.After(since)})
	}
	for _, e := range s.Entries {
		if !traffic[e.File] && !slices.ContainsFunc(sum.Files, func(f FileSummary) bool { return f.File == e.File }) {
			sum.Files = append(sum.Files, FileSummary{File: e.File, Format: e.Format})
		}
		sum.add(e, since)
	}
	for i := range sum.Consumers {
		c := &sum.Consumers[i]
		slices.SortFunc(c.Operations, func(a, b OpSummary) int { return cmp.Compare(a.Operation, b.Operation) })
		for j := range c.Operations {
			slices.SortFunc(c.Operations[j].Fields, func(a, b FieldSummary) int {
				return cmp.Or(cmp.Compare(a.Side, b.Side), cmp.Compare(a.Field, b.Field))
			})
		}
	}
	slices.SortFunc(sum.Consumers, func(a, b ConsumerSummary) int { return cmp.Compare(a.Name, b.Name) })
	return sum
}

func (sum *Summary) add(e Entry, since time.Time) {
	ci := slices.IndexFunc(sum.Consumers, func(c ConsumerSummary) bool { return c.Name == e.Consumer })
	if ci < 0 {
		sum.Consumers = append(sum.Consumers, ConsumerSummary{Name: e.Consumer})
		ci = len(sum.Consumers) - 1
	}
	c := &sum.Consumers[ci]
	name := opName(e)
	oi := slices.IndexFunc(c.Operations, func(o OpSummary) bool { return o.Operation == name })
	if oi < 0 {
		c.Operations = append(c.Operations, OpSummary{Operation: name})
		oi = len(c.Operations) - 1
	}
	op := &c.Operations[oi]
	n, recent := e.Reads, e.Recent
	switch {
	case e.Format == FormatPact:
		n, recent = 1, 1 // an interaction: a call the consumer makes now
	case !e.Traffic() && (e.LastSeen.IsZero() || !e.LastSeen.Before(since)):
		recent = n
	}
	if e.LastSeen.After(op.LastSeen) {
		op.LastSeen = e.LastSeen
	}
	if e.Field == "" {
		op.Calls += n
		op.Recent += recent
		return
	}
	side := "read"
	if e.Traffic() {
		side = e.Side.String()
	}
	fi := slices.IndexFunc(op.Fields, func(f FieldSummary) bool { return f.Field == e.Field && f.Side == side })
	if fi < 0 {
		op.Fields = append(op.Fields, FieldSummary{Field: e.Field, Side: side})
		fi = len(op.Fields) - 1
	}
	op.Fields[fi].Count += n
	op.Fields[fi].Recent += recent
}

// opName names what an entry is about: "GET /v1/orders/{}", "rpc
// pkg.Service.Method" or "message pkg.Message".
func opName(e Entry) string {
	switch {
	case e.Method != "":
		return e.Method + " " + e.Path
	case e.RPC != "":
		return "rpc " + e.RPC
	}
	return "message " + e.Message
}
