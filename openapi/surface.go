package openapi

import (
	"fmt"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/contractlint/contractlint/rules"
)

// stabilityLevels orders x-stability-level from least to most stable.
var stabilityLevels = []string{"draft", "alpha", "beta", "stable"}

// stability reports an operation whose x-stability-level went down: clients
// that adopted it as stable now hold a promise it no longer makes.
func (d *differ) stability(id, base string, o, n *openapi3.Operation) []int {
	ol, nl, down := lowered(o.Extensions, n.Extensions)
	if !down {
		return nil
	}
	return []int{d.add(rules.Change{Kind: rules.Modified, Subject: rules.SubjectOperation, Aspect: rules.AspectStability,
		Name: id, Path: base, Old: rules.Value{Text: ol}, New: rules.Value{Text: nl}, OldLoc: d.old.FieldLoc(o.Origin, "x-stability-level"),
		NewLoc: d.new.FieldLoc(n.Origin, "x-stability-level")})}
}

// lowered reads x-stability-level on both sides and says whether it went
// down; levels outside the known four are not compared.
func lowered(o, n map[string]any) (string, string, bool) {
	ol, nl := fmt.Sprint(o["x-stability-level"]), fmt.Sprint(n["x-stability-level"])
	oi, ni := slices.Index(stabilityLevels, ol), slices.Index(stabilityLevels, nl)
	return ol, nl, oi >= 0 && ni >= 0 && ni < oi
}

// webhooks compares 3.1 webhooks like operations, with the directions
// turned: the API sends the webhook's request and the client answers it.
func (d *differ) webhooks() {
	oh, nh := d.old.T.Webhooks, d.new.T.Webhooks
	for _, name := range sortedKeys(oh) {
		item := oh[name]
		if item == nil {
			continue
		}
		n, ok := nh[name]
		if !ok || n == nil {
			i := d.add(rules.Change{Kind: rules.Removed, Subject: rules.SubjectOperation, Name: "webhook " + name,
				Path: "#/webhooks/" + escape(name), Old: rules.Value{Text: "webhook"}, Webhook: true, OldLoc: d.old.KeyLoc(item.Origin)})
			d.reach([]int{i}, "webhook "+name, rules.Request|rules.Response)
			continue
		}
		d.turned(func() { d.calledBack(name, "#/webhooks/"+escape(name), item, n) })
	}
}

// callbacks compares an operation's callbacks the same way; a removed
// callback is the API no longer calling the client, which breaks no client.
func (d *differ) callbacks(id, base string, o, n *openapi3.Operation) {
	for _, name := range sortedKeys(o.Callbacks) {
		oc, nc := o.Callbacks[name], n.Callbacks[name]
		if oc == nil || nc == nil || oc.Value == nil || nc.Value == nil {
			continue
		}
		for expr, item := range oc.Value.Map() {
			if ni := nc.Value.Value(expr); ni != nil && item != nil {
				d.turned(func() {
					d.calledBack(id+" callback "+name, base+"/callbacks/"+escape(name)+"/"+escape(expr), item, ni)
				})
			}
		}
	}
}

// calledBack compares the operations of a path item the API calls on the client.
func (d *differ) calledBack(name, base string, o, n *openapi3.PathItem) {
	oldOps, newOps := o.Operations(), n.Operations()
	for _, m := range sortedKeys(oldOps) {
		if nop, ok := newOps[m]; ok {
			id := name + " " + strings.ToUpper(m)
			path := base + "/" + strings.ToLower(m)
			d.requestBody(id, path, oldOps[m], nop)
			d.responses(id, path, oldOps[m].Responses, nop.Responses)
		}
	}
}

// turned runs f with request and response swapped.
func (d *differ) turned(f func()) {
	d.turn = !d.turn
	defer func() { d.turn = !d.turn }()
	f()
}

func (d *differ) direction(dir rules.Direction) rules.Direction {
	if !d.turn {
		return dir
	}
	var out rules.Direction
	if dir.Has(rules.Request) {
		out |= rules.Response
	}
	if dir.Has(rules.Response) {
		out |= rules.Request
	}
	return out
}

// securitySchemes compares the schemes both versions define; each change is
// reached from the operations that use the scheme (see security).
func (d *differ) securitySchemes() {
	oc, nc := d.old.T.Components, d.new.T.Components
	if oc == nil || nc == nil {
		return
	}
	d.schemes = map[string][]int{}
	for _, name := range sortedKeys(oc.SecuritySchemes) {
		oref, nref := oc.SecuritySchemes[name], nc.SecuritySchemes[name]
		if oref == nil || nref == nil || oref.Value == nil || nref.Value == nil {
			continue
		}
		o, n := oref.Value, nref.Value
		path := "#/components/securitySchemes/" + escape(name)
		at := func(aspect, field string, oo, no *openapi3.Origin, old, new string) {
			if old != new {
				d.schemes[name] = append(d.schemes[name], d.add(rules.Change{Kind: rules.Modified, Subject: rules.SubjectSecurity,
					Aspect: rules.Aspect(aspect), Name: name, Path: path, Old: rules.Value{Text: old}, New: rules.Value{Text: new},
					OldLoc: d.old.FieldLoc(oo, field), NewLoc: d.new.FieldLoc(no, field)}))
			}
		}
		mod := func(aspect, field, old, new string) { at(aspect, field, o.Origin, n.Origin, old, new) }
		mod("type", "type", o.Type, n.Type)
		mod("in", "in", o.In, n.In)
		mod("name", "name", o.Name, n.Name)
		mod("scheme", "scheme", strings.ToLower(o.Scheme), strings.ToLower(n.Scheme))
		mod("url", "openIdConnectUrl", o.OpenIdConnectUrl, n.OpenIdConnectUrl)
		if o.Flows != nil {
			nf := n.Flows
			if nf == nil {
				nf = &openapi3.OAuthFlows{}
			}
			for _, f := range []struct {
				name string
				o, n *openapi3.OAuthFlow
			}{{"implicit", o.Flows.Implicit, nf.Implicit}, {"password", o.Flows.Password, nf.Password},
				{"clientCredentials", o.Flows.ClientCredentials, nf.ClientCredentials}, {"authorizationCode", o.Flows.AuthorizationCode, nf.AuthorizationCode}} {
				switch {
				case f.o == nil:
				case f.n == nil:
					mod("flow", "flows", f.name, "")
				default:
					at("url", "authorizationUrl", f.o.Origin, f.n.Origin, f.o.AuthorizationURL, f.n.AuthorizationURL)
					at("url", "tokenUrl", f.o.Origin, f.n.Origin, f.o.TokenURL, f.n.TokenURL)
					at("url", "refreshUrl", f.o.Origin, f.n.Origin, f.o.RefreshURL, f.n.RefreshURL)
				}
			}
		}
	}
}
