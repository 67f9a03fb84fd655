// Package waiver reads and applies .contractlint-waivers.yaml: accepted
// changes kept as code, where CODEOWNERS can guard them. A waiver names a
// rule, an element and the fingerprint of the change it accepts (rule,
// element, old and new values; never a line), says why and who owns the
// decision, and may expire. An expired waiver is a finding of its own; one
// that matched nothing is unused-ignore, as a stale ignore is.
package waiver

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/contractlint/contractlint/internal/limits"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

// FileName is the waivers file, beside the config.
const FileName = ".contractlint-waivers.yaml"

// ExpiredID is the rule reported for a waiver past its date.
const ExpiredID = "waiver-expired"

// UnapprovedID is the rule reported, under the config's require-approval,
// for an acceptance (an inline ignore, a waiver) a change adds itself.
const UnapprovedID = "acceptance-unapproved"

// Unapproved is the failing finding require-approval makes of finding f,
// which the change itself accepted by what (an owner, an inline ignore's
// place) for reason, at the acceptance's place at.
func Unapproved(f rules.Finding, at rules.Location, by, reason string) rules.Finding {
	return rules.Finding{Rule: UnapprovedID, Severity: rules.Error, Where: at, Path: f.Path,
		Message: fmt.Sprintf("the change accepts its own %s at %s (by %s: %s); require-approval in the base config: "+
			"merge the acceptance on its own first, where its owners approve it", f.Rule, f.Path, by, reason)}
}

// Waiver is one accepted change.
type Waiver struct {
	Rule        string
	Element     string
	Fingerprint string
	Reason      string
	Owner       string
	// Expires is the last day the waiver holds; zero when it never expires.
	Expires time.Time
	Loc     rules.Location
}

// Waived is a finding a waiver accepted, with the waiver that did.
type Waived struct {
	Finding rules.Finding
	Waiver  Waiver
}

// Justification is what a report says about a waived finding.
func (w Waived) Justification() string {
	return fmt.Sprintf("waived by %s: %s", w.Waiver.Owner, w.Waiver.Reason)
}

// Load reads FileName in dir, named name in messages; a missing file is
// no waivers. It is read like a contract, through the source boundary of
// dir under the default limits: a link out of the tree is refused. resolve
// maps a rule name (an ID or a buf or oasdiff alias) to the rule IDs it
// stands for.
func Load(dir, name string, resolve func(string) []string) ([]Waiver, error) {
	if _, err := os.Lstat(filepath.Join(dir, FileName)); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	src, err := source.OpenDir(dir)
	if err != nil {
		return nil, source.Errorf(name, 0, 0, "cannot read the waivers: %v", err)
	}
	data, err := limits.Default().Guard(src, func(string) string { return name }).ReadFile(FileName)
	var ps source.Problems
	if errors.As(err, &ps) {
		return nil, ps
	}
	if err != nil {
		return nil, source.Errorf(name, 0, 0, "cannot read the waivers: %v", err)
	}
	return Parse(name, data, resolve)
}

// Parse reads waivers text; every problem is reported at its file:line:col.
func Parse(name string, data []byte, resolve func(string) []string) ([]Waiver, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, source.Errorf(name, 0, 0, "%v", err)
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	var probs source.Problems
	bad := func(n *yaml.Node, format string, args ...any) {
		probs = append(probs, source.Problem{File: name, Line: n.Line, Column: n.Column, Msg: fmt.Sprintf(format, args...)})
	}
	top := doc.Content[0]
	var list *yaml.Node
	if top.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(top.Content); i += 2 {
			if top.Content[i].Value != "waivers" {
				bad(top.Content[i], "unknown key %q (want waivers)", top.Content[i].Value)
				continue
			}
			list = top.Content[i+1]
		}
	}
	if list == nil || list.Kind != yaml.SequenceNode {
		if list == nil && top.Kind == yaml.MappingNode && len(probs) == 0 {
			return nil, nil
		}
		bad(top, "want `waivers:` and a list of waivers")
		return nil, probs
	}
	var out []Waiver
	for _, e := range list.Content {
		if e.Kind != yaml.MappingNode {
			bad(e, "a waiver is a mapping: rule, element, fingerprint, reason, owner, expires")
			continue
		}
		w := Waiver{Loc: rules.Location{File: name, Line: e.Line, Column: e.Column}}
		for i := 0; i+1 < len(e.Content); i += 2 {
			k, v := e.Content[i], e.Content[i+1]
			if v.Kind != yaml.ScalarNode || strings.TrimSpace(v.Value) == "" {
				bad(v, "waiver: %s: want a non-empty string", k.Value)
				continue
			}
			switch k.Value {
			case "rule":
				ids := resolve(v.Value)
				switch len(ids) {
				case 0:
					bad(v, "unknown rule %q (see `contractlint rules`)", v.Value)
				case 1:
					w.Rule = ids[0]
				default:
					bad(v, "%s stands for %d rules; a waiver names one", v.Value, len(ids))
				}
			case "element":
				w.Element = v.Value
			case "fingerprint":
				w.Fingerprint = v.Value
			case "reason":
				if rules.PlaceholderReason(v.Value) {
					bad(v, "waiver: reason: want why the change is accepted, not the placeholder %q", v.Value)
				}
				w.Reason = v.Value
			case "owner":
				w.Owner = v.Value
			case "expires":
				d, err := time.Parse(time.DateOnly, v.Value)
				if err != nil {
					bad(v, "waiver: expires: want a date such as 2026-12-31, not %q", v.Value)
				}
				w.Expires = d
			default:
				bad(k, "waiver: unknown key %q (want rule, element, fingerprint, reason, owner or expires)", k.Value)
			}
		}
		for _, req := range []struct{ key, val string }{{"rule", w.Rule}, {"element", w.Element}, {"reason", w.Reason}, {"owner", w.Owner}} {
			if req.val == "" {
				bad(e, "a waiver needs its %s", req.key)
			}
		}
		out = append(out, w)
	}
	if len(probs) > 0 {
		return nil, probs
	}
	return out, nil
}

// Matches reports whether w accepts finding f: the same rule and element
// and, when w has one, the same change fingerprint.
func (w Waiver) Matches(f rules.Finding) bool {
	return w.Rule == f.Rule && w.Element == f.Path && (w.Fingerprint == "" || w.Fingerprint == f.ChangeFingerprint())
}

// Expired reports whether w no longer holds on day now: it holds through
// its Expires date.
func (w Waiver) Expired(now time.Time) bool {
	return !w.Expires.IsZero() && !now.Before(w.Expires.AddDate(0, 0, 1))
}

// Apply splits fs into the findings kept and those a live waiver accepts,
// and adds a waiver-expired finding for each waiver past its date and an
// unused-ignore for each live one that matched nothing.
func Apply(ws []Waiver, fs []rules.Finding, now time.Time) ([]rules.Finding, []Waived) {
	if len(ws) == 0 {
		return fs, nil
	}
	used := make([]bool, len(ws))
	var kept []rules.Finding
	var waived []Waived
	for _, f := range fs {
		hit := -1
		for i, w := range ws {
			if w.Matches(f) && !w.Expired(now) {
				used[i] = true
				if hit < 0 {
					hit = i
				}
			}
		}
		if hit < 0 {
			kept = append(kept, f)
			continue
		}
		waived = append(waived, Waived{Finding: f, Waiver: ws[hit]})
	}
	for i, w := range ws {
		switch {
		case w.Expired(now):
			kept = append(kept, rules.Finding{Rule: ExpiredID, Severity: rules.Error, Where: w.Loc,
				Message: fmt.Sprintf("waiver of %s for %s (owner %s) expired on %s; renew it with a new date or fix the change", w.Rule, w.Element, w.Owner, w.Expires.Format(time.DateOnly))})
		case !used[i]:
			kept = append(kept, rules.Finding{Rule: rules.UnusedIgnoreID, Severity: rules.Warning, Where: w.Loc,
				Message: fmt.Sprintf("waiver of %s for %s matched no finding; remove it", w.Rule, w.Element)})
		}
	}
	rules.SortFindings(kept)
	return kept, waived
}

// Append adds w to the waivers file at path (creating it), keeping what is
// there byte for byte.
func Append(path string, w Waiver) error {
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	text := string(old)
	if strings.TrimSpace(text) == "" {
		text = "# Accepted changes; see `contractlint waive --help`.\nwaivers:\n"
	} else if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	q := func(s string) string {
		b, _ := yaml.Marshal(s)
		return strings.TrimSuffix(string(b), "\n")
	}
	text += fmt.Sprintf("  - rule: %s\n    element: %s\n    fingerprint: %s\n    reason: %s\n    owner: %s\n",
		q(w.Rule), q(w.Element), q(w.Fingerprint), q(w.Reason), q(w.Owner))
	if !w.Expires.IsZero() {
		text += fmt.Sprintf("    expires: %s\n", w.Expires.Format(time.DateOnly))
	}
	return os.WriteFile(path, []byte(text), 0o644)
}
