package rules

import "fmt"

// protoHTTPRules compare an rpc's (google.api.http) routes as OpenAPI
// operations are compared: grpc-gateway and HTTP transcoding serve them to
// HTTP clients, whom buf's gRPC-level checks do not see.
func protoHTTPRules() []*Rule {
	return []*Rule{protoHTTPBindingChanged(), protoHTTPBodyChanged()}
}

func protoHTTPBindingChanged() *Rule {
	return onChange(&Rule{
		ID: "proto-http-binding-changed", Pack: Breaking, Formats: Proto, Severity: Error, Levels: lvFPJ,
		Reads: []Entry{{Modified, SubjectRPC, AspectHTTPBinding}},
		Doc: Doc{
			Title: "An rpc's HTTP route was removed or changed",
			Text: "An rpc bound to HTTP with (google.api.http) is served by grpc-gateway or transcoding to " +
				"HTTP clients, which call its route (method and path template), not its gRPC name. Changing the " +
				"method or the path template, or removing one of its additional_bindings, leaves those clients " +
				"with 404 or 405 though every gRPC check passes. Keep the old route as an additional binding " +
				"beside the new one, deprecate it, and remove it when nobody calls it.",
			Bad: `option (google.api.http) = {post: "/v1/{name=orders/*}:cancel" body: "*"};
  ->
option (google.api.http) = {post: "/v1/{name=orders/*}/cancel" body: "*"};`,
			Good: `option (google.api.http) = {
  post: "/v1/{name=orders/*}/cancel" body: "*"
  additional_bindings { post: "/v1/{name=orders/*}:cancel" body: "*" }
};`,
		},
	}, func(c *Change) (string, bool) {
		if !modified(c, SubjectRPC, AspectHTTPBinding) {
			return "", false
		}
		if c.New.Text == "" {
			return fmt.Sprintf("rpc %s: HTTP binding %s removed: HTTP clients of it now get 404; keep it as an "+
				"additional binding until nobody calls it", c.Path, c.Old.Text), true
		}
		return fmt.Sprintf("rpc %s: HTTP binding %s changed to %s: HTTP clients of the old route now get 404 or "+
			"405; keep the old route as an additional binding", c.Path, c.Old.Text, c.New.Text), true
	})
}

func protoHTTPBodyChanged() *Rule {
	return onChange(&Rule{
		ID: "proto-http-body-changed", Pack: Breaking, Formats: Proto, Severity: Error, Levels: lvFPJ,
		Reads: []Entry{{Modified, SubjectRPC, AspectHTTPBody}},
		Doc: Doc{
			Title: "The request field an rpc's HTTP route takes as its body changed",
			Text: "The body option of a (google.api.http) binding says which request field the HTTP body " +
				"fills: \"*\" the whole request, a field name that field alone, none a request read only from " +
				"the path and query. Changing it changes what an HTTP client must send on the same route: a " +
				"body written for the old binding is now read as another field, or refused. Keep the body, " +
				"and bind the new shape on a new route.",
			Bad:  `patch: "/v1/{order.name=orders/*}" body: "order"   ->   body: "*"`,
			Good: `patch: "/v1/{order.name=orders/*}" body: "order"`,
		},
	}, func(c *Change) (string, bool) {
		if !modified(c, SubjectRPC, AspectHTTPBody) {
			return "", false
		}
		return fmt.Sprintf("rpc %s: the body of %s changed from %s to %s: HTTP clients send the body the old "+
			"binding read; keep it", c.Path, c.Name, bodyText(c.Old.Text), bodyText(c.New.Text)), true
	})
}

// bodyText quotes a binding's body, naming its absence.
func bodyText(b string) string {
	if b == "" {
		return "none"
	}
	return fmt.Sprintf("%q", b)
}
