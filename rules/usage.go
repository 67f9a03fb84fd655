package rules

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Usage is what consumer evidence says about the element a finding
// removes, kept as data on the finding so that every reporter shows it
// (the message in its words, JSON and SARIF as fields) and no rule
// formats evidence its own way.
type Usage struct {
	// Calls counts the calls within the window (for a field, the exchanges
	// that carried it); 0 when the evidence does not count (Pact).
	Calls int64 `json:"calls"`
	// Consumers names who made them, sorted.
	Consumers []string `json:"consumers,omitempty"`
	// LastSeen is the latest of them; zero when only a consumer contract
	// (which describes now) shows them, or when none was seen.
	LastSeen time.Time `json:"last_seen,omitzero"`
	// Window is the readers window, and Since its start.
	Window time.Duration `json:"-"`
	Since  time.Time     `json:"since"`
	// Requests and Clients count the recorded traffic within the window:
	// what "no call" is measured against. Zero without traffic.
	Requests int64 `json:"requests,omitempty"`
	Clients  int   `json:"clients,omitempty"`
	// Covered is true when recorded traffic covers the whole window.
	Covered bool `json:"covered"`
	// Sent marks a response field traffic shows the server sending: proof
	// that it was sent, not that anyone read it.
	Sent bool `json:"sent_not_read,omitempty"`
	// Request marks a request field the consumers sent.
	Request bool `json:"request,omitempty"`
}

// WindowText is the window in days when it is whole days ("30 days").
func (u *Usage) WindowText() string {
	day := 24 * time.Hour
	if u.Window > 0 && u.Window%day == 0 {
		return plural(int(u.Window/day), "day", "days")
	}
	return u.Window.String()
}

// String says what the evidence shows, as every reporter words it:
// "called 3 times by 2 clients in the last 30 days, last 2026-12-04", or
// "no call in 30 days across 1,204 requests from 3 clients".
func (u *Usage) String() string {
	verb, none := "called", "no call"
	switch {
	case u.Sent:
		verb, none = "sent by the server", "not sent"
	case u.Request:
		verb, none = "sent", "not sent"
	}
	if u.Calls == 0 && len(u.Consumers) == 0 {
		s := fmt.Sprintf("%s in %s", none, u.WindowText())
		if u.Requests > 0 {
			s += fmt.Sprintf(" across %s from %s", plural64(u.Requests, "request", "requests"),
				plural(u.Clients, "client", "clients"))
		}
		return s
	}
	to := "by"
	if u.Sent {
		verb, to = "sent", "to"
	}
	var b strings.Builder
	b.WriteString(verb)
	if u.Calls > 0 {
		fmt.Fprintf(&b, " %s", callTimes(u.Calls))
	}
	fmt.Fprintf(&b, " %s %s (%s) in the last %s", to, plural(len(u.Consumers), "client", "clients"),
		strings.Join(u.Consumers, ", "), u.WindowText())
	if !u.LastSeen.IsZero() {
		fmt.Fprintf(&b, ", last %s", day(u.LastSeen))
	}
	if u.Sent {
		b.WriteString(": traffic shows it sent, not read; only a consumer contract (Pact) proves a read")
	}
	return b.String()
}

func callTimes(n int64) string {
	if n == 1 {
		return "once"
	}
	return grouped(float64(n)) + " times"
}

func plural64(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return grouped(float64(n)) + " " + many
}

// usageOf sums the readers active within the window into a Usage, with
// the traffic the evidence spans.
func usageOf(ev Evidence, active []Reader) *Usage {
	u := &Usage{Since: ev.Since(), Window: ev.Window()}
	for _, r := range active {
		u.Calls += r.Reads
		if !slices.Contains(u.Consumers, r.Consumer) {
			u.Consumers = append(u.Consumers, r.Consumer)
		}
		if r.LastSeen.After(u.LastSeen) {
			u.LastSeen = r.LastSeen
		}
	}
	slices.Sort(u.Consumers)
	if t := ev.Traffic(); t != nil {
		u.Requests, u.Clients, u.Covered = t.Requests, t.Consumers, t.Covers
	}
	return u
}

// fromTraffic reports whether any reader was seen in recorded traffic.
func fromTraffic(rs []Reader) bool {
	return slices.ContainsFunc(rs, func(r Reader) bool { return r.Traffic })
}
