package rules

import "fmt"

func requestFieldRemovedWhileSent() *Rule {
	return onSentField(&Rule{
		ID:       "request-field-removed-while-sent",
		Pack:     Evolution,
		Formats:  OpenAPI,
		Mode:     DiffRule,
		Severity: Error,
		Doc: Doc{
			Title: "A request field is removed while clients still send it",
			Text: "Recorded traffic (--readers: HAR files, access logs with request bodies) or a Pact file " +
				"shows consumers sending a request field that this change removes, within the readers " +
				"window. From the moment it ships their value is ignored, or the request refused where " +
				"the schema forbids unknown properties. Keep the field, mark it deprecated, tell the " +
				"named consumers, and remove it once the traffic shows nobody sending it.",
			Bad: `# calls.har: web sent amount in 2 POST /v1/charges within 30 days
# new: amount removed from the request body`,
			Good: `# new: keep amount, deprecated, until no client sends it
amount: {type: integer, deprecated: true}`,
		},
	}, Request, func(c *Change, u *Usage) (string, bool) {
		if len(u.Consumers) == 0 {
			return "", false
		}
		return fmt.Sprintf("%s: removed while %s; keep it (deprecated) until they have stopped sending it", c.Name, u), true
	})
}

func responseFieldRemovedWhileSent() *Rule {
	return onSentField(&Rule{
		ID:       "response-field-removed-while-sent",
		Pack:     Evolution,
		Formats:  OpenAPI,
		Mode:     DiffRule,
		Severity: Info,
		Doc: Doc{
			Title: "A response field traffic shows sent is removed: sent is not read",
			Text: "Recorded traffic (--readers: HAR files with response bodies) shows the server sending a " +
				"response field that this change removes. That proves the field was sent, not that " +
				"anyone read it: only a consumer contract (a Pact file) proves a read, and " +
				"field-removed-while-read judges by those. This finding records the traffic beside " +
				"the breaking rules' verdict, which it leaves as it is.",
			Bad: `# calls.har: GET /v1/charges/{id} answered with status to 2 clients
# new: status removed from the response`,
			Good: `# a Pact file from each client says whether it reads status`,
		},
	}, Response, func(c *Change, u *Usage) (string, bool) {
		if len(u.Consumers) == 0 {
			return "", false
		}
		return fmt.Sprintf("%s: %s", c.Name, u), true
	})
}

// onSentField wires a check over the removed body fields on side dir that
// evidence shows carried in exchanges within the window.
func onSentField(r *Rule, dir Direction, match func(c *Change, u *Usage) (string, bool)) *Rule {
	return checkRemovedFields(r, func(c *Change) bool { return c.Format != Proto && c.Dir.Has(dir) },
		func(in *Input, c *Change) (Finding, bool) {
			var active []Reader
			for _, q := range queries(c) {
				for _, s := range in.Readers.Sent(q.op, q.field, dir) {
					if s.Active(in.Readers.Since()) {
						active = append(active, s)
					}
				}
			}
			u := usageOf(in.Readers, byConsumer(active))
			u.Request, u.Sent = dir == Request, dir == Response
			msg, ok := match(c, u)
			f := c.Finding(r, msg)
			f.Usage = u
			return f, ok
		})
}
