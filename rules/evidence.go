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
}

// Reader is one consumer's reading of a field.
type Reader struct {
	Consumer string
	// LastSeen is when the consumer last read the field; zero means the
	// consumer reads it now (a Pact file describes current behaviour).
	LastSeen time.Time
	// Reads counts the reads in a usage export; 0 when not counted.
	Reads int64
	// File names the evidence file the reading comes from.
	File string
}

// Active reports whether r still counts as a reader at the start of the window.
func (r Reader) Active(since time.Time) bool {
	return r.LastSeen.IsZero() || !r.LastSeen.Before(since)
}
