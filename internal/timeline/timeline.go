// Package timeline is the evolution report of a repository: every release
// tag and the head on one timeline, OpenAPI and proto contracts alike. Each
// consecutive pair of releases is reviewed as `review --base` would review
// it, and the head against every release as `review --against-tags` does;
// the changelog of every comparison comes along. The report is one typed
// value, written as JSON, text or one self-contained HTML page, all three
// from the same value.
package timeline

import (
	"github.com/contractlint/contractlint/internal/changelog"
	"github.com/contractlint/contractlint/rules"
)

// Report is the whole history. Every string that comes from a contract has
// been through report.Clean, as in every other report.
type Report struct {
	// Repository names the repository (origin's URL without credentials).
	Repository string `json:"repository,omitempty"`
	// LinkBase is the prefix of links to a file at a commit:
	// LINKBASE/COMMIT/FILE#LLINE.
	LinkBase string `json:"link_base,omitempty"`
	// Supported says which releases are still supported: --supported's glob,
	// or the releases evidence shows called within the readers window.
	Supported string `json:"supported,omitempty"`
	// Releases are the tags, oldest first, then the head.
	Releases []Release `json:"releases"`
	// Steps compare each release with the one before, and the head with
	// the last release: what each release changed.
	Steps []Step `json:"steps"`
	// AgainstHead compares the head with each release still in use: what an
	// upgrade to the head does to that release's clients.
	AgainstHead []Step `json:"against_head"`
	// Breaks are review --against-tags' findings: each break once, found
	// against the oldest release it breaks.
	Breaks []Finding `json:"breaks"`
	Notes  []string  `json:"notes,omitempty"`
}

// Release is one tag, or the head.
type Release struct {
	Name   string `json:"name"`
	Commit string `json:"commit,omitempty"`
	// Date is the commit's date (RFC 3339); the head's is its last commit's.
	Date string `json:"date,omitempty"`
	Head bool   `json:"head,omitempty"`
	// Uncommitted marks a head whose working tree differs from its last
	// commit: what was compared is the working tree.
	Uncommitted bool `json:"uncommitted,omitempty"`
	// Supported marks a release --supported names (or evidence shows
	// called); OldestSupported the first of them.
	Supported       bool `json:"supported,omitempty"`
	OldestSupported bool `json:"oldest_supported,omitempty"`
	// Skipped marks a release no client calls within the readers window:
	// the head was not compared with it.
	Skipped bool `json:"skipped,omitempty"`
	// Locked marks a release only contractlint.lock still knows.
	Locked bool `json:"locked,omitempty"`
}

// Step is one comparison: From's contracts against To's.
type Step struct {
	From     string    `json:"from"`
	To       string    `json:"to"`
	Counts   []Counts  `json:"counts"`
	Findings []Finding `json:"findings"`
	Changes  []Change  `json:"changes"`
	// Versions are the versions the To side declares: the bump the step's
	// changes needed against the one each declared.
	Versions []Version `json:"versions,omitempty"`
}

// Version is one declared version of a step (info.version, a proto
// package's suffix): the bump needed and the bump declared ("none" when
// it did not move, "unreadable" when the two could not be compared).
type Version struct {
	What     string `json:"what"`
	Old      string `json:"old"`
	New      string `json:"new"`
	Needed   string `json:"needed"`
	Declared string `json:"declared"`
	// Short marks a version that moved less than its changes needed.
	Short bool `json:"short,omitempty"`
	// Text says it all in one sentence, as the changelog does.
	Text string `json:"text"`
}

// Counts sums up one step for one format.
type Counts struct {
	Format string `json:"format"`
	// Errors, Warnings and Infos count the findings by severity; Breaking
	// those that break a client of the older side.
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Infos    int `json:"infos"`
	Breaking int `json:"breaking"`
	// Additive counts the changelog's additions that break nobody;
	// Changes every changelog entry.
	Additive int `json:"additive"`
	Changes  int `json:"changes"`
}

// Finding is one finding of a comparison, where it belongs and what the
// report knows beside it.
type Finding struct {
	Rule     string         `json:"rule"`
	Severity rules.Severity `json:"severity"`
	Message  string         `json:"message"`
	// Path names the element: a JSON pointer or a proto full name.
	Path string `json:"path,omitempty"`
	Place
	Old        *Place   `json:"old,omitempty"`
	Operations []string `json:"operations,omitempty"`
	Format     string   `json:"format"`
	// Contract, Kind and Element name the changelog group the finding
	// belongs to: an operation or rpc, a schema or message, a file.
	Contract string `json:"contract"`
	Kind     string `json:"kind"`
	Element  string `json:"element"`
	// Breaking marks a diff rule's warning or error; Oldest names the
	// oldest release it breaks and Reaches every release it was found
	// against (comparisons with the head).
	Breaking bool     `json:"breaking"`
	Oldest   string   `json:"oldest,omitempty"`
	Reaches  []string `json:"reaches,omitempty"`
	// Readers is the evidence about a removed field's readers.
	Readers []Reader `json:"readers,omitempty"`
	// Meaning sets a redefined field's old facts beside its new ones.
	Meaning []Fact `json:"meaning,omitempty"`
	// key names the break across releases as the transitive review does;
	// loose whatever line it is on.
	key, loose string
}

// Place is a file and line, on the new side or (Side "old") the old one,
// with the commit it is at and a link to it when the report has a base.
type Place struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column,omitempty"`
	Side   string `json:"side,omitempty"`
	Commit string `json:"commit,omitempty"`
	Link   string `json:"link,omitempty"`
}

// Change is one changelog entry of a step.
type Change struct {
	Contract string           `json:"contract"`
	Format   string           `json:"format"`
	Kind     string           `json:"kind"`
	Element  string           `json:"element"`
	Action   changelog.Action `json:"change"`
	Subject  string           `json:"subject"`
	// What describes the change as the text changelog does.
	What string `json:"what"`
	Path string `json:"path"`
	Place
	Operations []string `json:"operations,omitempty"`
	Breaking   []Break  `json:"breaking"`
	Readers    []Reader `json:"readers,omitempty"`
	Meaning    []Fact   `json:"meaning,omitempty"`
}

// Break is a rule's verdict that a change breaks someone.
type Break struct {
	Direction string         `json:"direction"`
	Rule      string         `json:"rule"`
	Severity  rules.Severity `json:"severity"`
}

// Reader is one consumer's reading of a removed field.
type Reader struct {
	Consumer string `json:"consumer"`
	// LastSeen is a day (2006-01-02), or "" for a Pact file: what the
	// consumer does now.
	LastSeen string `json:"last_seen,omitempty"`
	Reads    int64  `json:"reads,omitempty"`
	File     string `json:"file"`
	// Active marks a reading within the readers window.
	Active bool `json:"active"`
}

// Fact is one property of a field on both sides: its type, unit, format.
type Fact struct {
	Name string `json:"name"`
	Old  string `json:"old"`
	New  string `json:"new"`
	// Changed marks a fact that differs.
	Changed bool `json:"changed"`
}
