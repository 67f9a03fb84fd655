package openapi

import (
	"net/textproto"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/contractlint/contractlint/rules"
)

func (d *differ) responses(id, base string, old, new *openapi3.Responses) {
	if old == nil || new == nil {
		return
	}
	om, nm := old.Map(), new.Map()
	var idx []int
	for _, status := range sortedKeys(om) {
		oref := om[status]
		path := base + "/responses/" + escape(status)
		nref, ok := nm[status]
		if !ok || oref.Value == nil || nref.Value == nil {
			if !ok {
				idx = append(idx, d.add(rules.Change{Kind: rules.Removed, Subject: rules.SubjectResponse,
					Name: status, Path: path, OldLoc: respLoc(d.old, oref), Anchor: d.new.KeyLoc(new.Origin)}))
			}
			continue
		}
		idx = append(idx, d.headers(id, path, oref.Value.Headers, nref.Value.Headers)...)
		d.content(id, path, oref.Value.Content, nref.Value.Content, rules.Response)
	}
	d.reach(idx, id, rules.Response)
}

func respLoc(doc *Doc, r *openapi3.ResponseRef) rules.Location {
	if r.Origin != nil && r.Origin.Key != nil {
		return doc.Loc(r.Origin.Key)
	}
	if r.Value != nil {
		return doc.KeyLoc(r.Value.Origin)
	}
	return doc.Loc(nil)
}

// headers reports response headers that clients may rely on and that are
// gone or no longer promised, and compares the schemas of the others.
func (d *differ) headers(id, path string, old, new openapi3.Headers) []int {
	canon := map[string]*openapi3.HeaderRef{}
	for name, h := range new {
		canon[textproto.CanonicalMIMEHeaderKey(name)] = h
	}
	var idx []int
	for _, name := range sortedKeys(old) {
		if nh := canon[textproto.CanonicalMIMEHeaderKey(name)]; nh != nil {
			if oh := old[name]; oh.Value != nil && nh.Value != nil {
				hpath := path + "/headers/" + escape(name)
				if oh.Value.Required && !nh.Value.Required {
					idx = append(idx, d.add(rules.Change{Kind: rules.Modified, Subject: rules.SubjectHeader,
						Aspect: rules.AspectRequired, Name: name, Path: hpath, Old: rules.Value{Text: "required"}, New: rules.Value{Text: "optional"},
						OldLoc: d.old.KeyLoc(oh.Value.Origin), NewLoc: d.new.FieldLoc(nh.Value.Origin, "required")}))
				}
				d.reachSchema(d.schema(oh.Value.Schema, nh.Value.Schema, hpath+"/schema"), id, rules.Response)
			}
			continue
		}
		loc, h := d.old.Loc(nil), old[name]
		if h.Origin != nil && h.Origin.Key != nil {
			loc = d.old.Loc(h.Origin.Key)
		} else if h.Value != nil {
			loc = d.old.KeyLoc(h.Value.Origin)
		}
		idx = append(idx, d.add(rules.Change{Kind: rules.Removed, Subject: rules.SubjectHeader,
			Name: name, Path: path + "/headers/" + escape(name), OldLoc: loc, Required: h.Value != nil && h.Value.Required}))
	}
	return idx
}

// alternative is one way to satisfy an operation's security: every scheme
// in it, with its scopes.
type alternative map[string][]string

func (a alternative) key() string {
	names := sortedKeys(a)
	return strings.Join(names, "+")
}

// keys names the alternatives for messages: "apiKey or oauth".
func keys(alts []alternative) string {
	names := make([]string, len(alts))
	for i, a := range alts {
		names[i] = a.key()
	}
	return strings.Join(names, " or ")
}

func effectiveSecurity(doc *openapi3.T, op *openapi3.Operation) []alternative {
	reqs := doc.Security
	if op.Security != nil {
		reqs = *op.Security
	}
	out := make([]alternative, 0, len(reqs))
	for _, r := range reqs {
		out = append(out, alternative(r))
	}
	return out
}

func anonymous(alts []alternative) bool {
	return len(alts) == 0 || slices.ContainsFunc(alts, func(a alternative) bool { return len(a) == 0 })
}

// admits reports whether every client that satisfies a also satisfies b:
// b asks for no scheme a lacks and no scope a's scheme lacks.
func (a alternative) admits(b alternative) bool {
	for scheme, scopes := range b {
		have, ok := a[scheme]
		if !ok {
			return false
		}
		for _, s := range scopes {
			if !slices.Contains(have, s) {
				return false
			}
		}
	}
	return true
}

// scope is one name a security requirement lists for one scheme.
type scope struct{ scheme, name string }

// missingScopes lists the scopes of b that a lacks, scheme by scheme.
func (a alternative) missingScopes(b alternative) []scope {
	var out []scope
	for _, scheme := range sortedKeys(b) {
		for _, s := range b[scheme] {
			if !slices.Contains(a[scheme], s) {
				out = append(out, scope{scheme, s})
			}
		}
	}
	return out
}

// closest is the new alternative over the same schemes as a that asks
// the fewest scopes a lacks, or nil when none uses the same schemes.
func closest(a alternative, na []alternative) alternative {
	var best alternative
	for _, b := range na {
		if b.key() == a.key() && (best == nil || len(a.missingScopes(b)) < len(a.missingScopes(best))) {
			best = b
		}
	}
	return best
}

// security reports a new requirement (an old way in now needs more) and new
// scopes on a scheme clients already use. An old way in still works when any
// new alternative asks no more of it, so two alternatives of one scheme
// (`[{bearer: [create]}, {bearer: [update]}]`) are each matched to their own.
func (d *differ) security(id, base string, o, n *openapi3.Operation) {
	oa, na := effectiveSecurity(d.old.T, o), effectiveSecurity(d.new.T, n)
	loc := d.new.FieldLoc(n.Origin, "security")
	if n.Security == nil {
		loc = d.new.KeyLoc(n.Origin)
	}
	var idx []int
	for _, a := range oa {
		for _, scheme := range sortedKeys(a) {
			d.reach(d.schemes[scheme], id, rules.Request)
		}
	}
	if anonymous(oa) && !anonymous(na) {
		idx = append(idx, d.add(rules.Change{Kind: rules.Added, Subject: rules.SubjectSecurity,
			Name: keys(na), New: rules.Value{Text: keys(na)}, Path: base + "/security", NewLoc: loc}))
	}
	if anonymous(na) {
		d.reach(idx, id, rules.Request)
		return
	}
	scopes := map[string]bool{}
	for _, a := range oa {
		if len(a) == 0 || slices.ContainsFunc(na, a.admits) {
			continue
		}
		if b := closest(a, na); b != nil {
			for _, s := range a.missingScopes(b) {
				if name := s.scheme + ":" + s.name; !scopes[name] {
					scopes[name] = true
					idx = append(idx, d.add(rules.Change{Kind: rules.Added, Subject: rules.SubjectScope,
						Name: name, Path: base + "/security", NewLoc: loc, Undecided: scopesOutside(d.new.T, s.scheme)}))
				}
			}
			continue
		}
		idx = append(idx, d.add(rules.Change{Kind: rules.Added, Subject: rules.SubjectSecurity,
			Name: keys(na), Old: rules.Value{Text: a.key()}, New: rules.Value{Text: keys(na)}, Path: base + "/security", NewLoc: loc}))
	}
	d.reach(idx, id, rules.Request)
}
