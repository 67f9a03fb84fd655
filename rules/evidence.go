package rules

import "time"

// Evidence answers who reads a field, from consumer evidence gathered outside
// the contract (Pact files, usage exports). Rules ask; they never parse files.
type Evidence interface {
	// Readers returns the consumers that read field of op. op is an HTTP
	// operation ("GET /v1/orders/{id}") or a proto message full name; field
	// is a dotted path from the body (or message) root, or only its tail when
	// the field sits in a shared schema: an entry matches when its path ends
	// with field's segments.
	Readers(op, field string) []Reader
	// Knows reports whether the evidence describes op at all, so that a field
	// absent from it is known to be unread rather than merely unknown.
	Knows(op string) bool
	// Calls returns the consumers the evidence shows calling op (an HTTP
	// operation or an rpc full name), each with its last call; for a usage
	// row Reads counts the calls.
	Calls(op string) []Reader
	// Since is the start of the readers window: a reader last seen before it
	// no longer counts.
	Since() time.Time
	// Window is the window's length (--readers-window).
	Window() time.Duration
	// Sent returns, from recorded traffic, the consumers whose exchanges
	// with op carried field in the body on side dir: with Request they sent
	// it; with Response the server sent it to them, which proves no read.
	Sent(op, field string, dir Direction) []Reader
	// Traffic is what the recorded traffic bound to the contract spans; nil
	// when the evidence holds none.
	Traffic() *Traffic
}

// Traffic is what recorded traffic (HAR files, traces, access logs) spans.
type Traffic struct {
	First, Last time.Time
	// Requests counts the exchanges within the window and Consumers who
	// made them: what "no call" is measured against.
	Requests  int64
	Consumers int
	// Covers is true when the traffic starts at or before the window's
	// start, so that an operation it never shows called was not called.
	Covers bool
}

// Reader is one consumer's reading of a field.
type Reader struct {
	Consumer string
	// LastSeen is when the consumer last read the field; zero means the
	// consumer reads it now (a Pact file describes current behaviour).
	LastSeen time.Time
	// Reads counts the reads in a usage export, or the exchanges recorded
	// traffic shows within the window (all of them for a reader gone before
	// it); 0 when not counted.
	Reads int64
	// File names the evidence file the reading comes from.
	File string
	// Traffic marks a reader seen in recorded traffic rather than in a
	// consumer contract or a usage export.
	Traffic bool
}

// Active reports whether r still counts as a reader at the start of the window.
func (r Reader) Active(since time.Time) bool {
	return r.LastSeen.IsZero() || !r.LastSeen.Before(since)
}
