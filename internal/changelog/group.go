package changelog

import (
	"cmp"
	"path"
	"slices"
	"strings"

	"github.com/contractlint/contractlint/rules"
)

// GroupKind orders the changelog: operations first (what a client calls),
// then the schemas they share, then whatever belongs to the file as a whole.
type GroupKind uint8

const (
	OperationGroup GroupKind = iota + 1
	SchemaGroup
	ContractGroup
)

func (k GroupKind) String() string {
	switch k {
	case OperationGroup:
		return "operation"
	case SchemaGroup:
		return "schema"
	}
	return "contract"
}

// MarshalText names the kind in JSON.
func (k GroupKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// Group is the changes of one operation, rpc, schema or message.
type Group struct {
	// Release names the release the changes are since, when a log covers
	// several (review --against).
	Release string
	// Contract names the file when a log covers several (review).
	Contract string
	Kind     GroupKind
	Name     string
	// Noun is what a schema group holds: schema, message or enum.
	Noun string
	// Operations is every operation the group's changes reach (schema groups).
	Operations []string
	Entries    []Entry
}

// group sorts entries into groups named by the element that owns them.
func group(entries []Entry, contracts ...*rules.Contract) []Group {
	proto := slices.ContainsFunc(contracts, func(c *rules.Contract) bool { return c != nil && c.Format == rules.Proto })
	enumOf := enums(contracts)
	titles := titles(contracts)
	byKey := map[[2]string]*Group{}
	var order []*Group
	for _, e := range entries {
		kind, name, rest := ownerOpenAPI(e, titles)
		if proto {
			kind, name = ownerProto(e, enumOf)
		}
		k := [2]string{kind.String(), name}
		g, ok := byKey[k]
		if !ok {
			g = &Group{Kind: kind, Name: name, Noun: noun(kind, e.Subject, proto)}
			byKey[k] = g
			order = append(order, g)
		}
		e.Element = readable(rest)
		if proto {
			e.Element = strings.TrimPrefix(strings.TrimPrefix(e.Path, name), ".")
		}
		if proto && e.Subject == rules.SubjectEnumValue {
			e.Element = "" // the value's own name says it
		}
		g.Entries = append(g.Entries, e)
	}
	out := make([]Group, 0, len(order))
	for _, g := range order {
		slices.SortStableFunc(g.Entries, func(a, b Entry) int {
			return cmp.Or(cmp.Compare(a.Element, b.Element), cmp.Compare(a.Action, b.Action), cmp.Compare(a.Aspect, b.Aspect))
		})
		if g.Kind == SchemaGroup {
			for _, e := range g.Entries {
				g.Operations = append(g.Operations, e.Operations...)
			}
			slices.Sort(g.Operations)
			g.Operations = slices.Compact(g.Operations)
		}
		out = append(out, *g)
	}
	slices.SortFunc(out, func(a, b Group) int { return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Name, b.Name)) })
	return out
}

func noun(k GroupKind, s rules.Subject, proto bool) string {
	switch {
	case k != SchemaGroup:
		return ""
	case !proto:
		return "schema"
	case s == rules.SubjectEnum || s == rules.SubjectEnumValue:
		return "enum"
	}
	return "message"
}

// ownerOpenAPI reads the owner off a JSON pointer, and returns the segments
// below it: #/paths/{path}/{method} is an operation, #/components/schemas/{name}
// a schema. A schema in a file of its own is named by its $ref: FILE#/{name}
// for a file of named schemas, FILE# for a whole-file schema, which its
// title names (else the file's base name).
func ownerOpenAPI(e Entry, titles map[string]string) (GroupKind, string, []string) {
	file, frag, _ := strings.Cut(e.Path, "#")
	seg := rules.PointerSegments(frag)
	switch {
	case len(seg) >= 2 && seg[0] == "paths":
		if len(seg) >= 3 && httpMethods[seg[2]] {
			return OperationGroup, strings.ToUpper(seg[2]) + " " + seg[1], seg[3:]
		}
		return OperationGroup, seg[1], seg[2:]
	case len(seg) >= 3 && seg[0] == "components":
		if seg[1] == "schemas" {
			return SchemaGroup, seg[2], seg[3:]
		}
		return SchemaGroup, seg[1] + "/" + seg[2], seg[3:]
	case file == "":
		return ContractGroup, "", nil
	case len(seg) >= 1 && !schemaKeywords[seg[0]]:
		return SchemaGroup, seg[0], seg[1:]
	}
	name := titles[file+"#"]
	if name == "" {
		name = strings.TrimSuffix(path.Base(file), path.Ext(file))
	}
	return SchemaGroup, name, seg
}

// schemaKeywords are the keywords a whole-file schema's changes sit under,
// which are not the names of schemas in a file of several.
var schemaKeywords = map[string]bool{"properties": true, "items": true, "additionalProperties": true,
	"allOf": true, "anyOf": true, "oneOf": true, "not": true, "enum": true, "discriminator": true,
	"required": true, "type": true, "format": true, "nullable": true, "patternProperties": true,
	"prefixItems": true, "contains": true, "const": true, "default": true}

// titles maps the path of each whole-file OpenAPI schema to its title.
func titles(contracts []*rules.Contract) map[string]string {
	out := map[string]string{}
	eachSchema(contracts, rules.OpenAPI, func(s *rules.Schema) {
		if s.Title != "" && strings.HasSuffix(s.Path, "#") && out[s.Path] == "" {
			out[s.Path] = s.Title
		}
	})
	return out
}

// eachSchema calls f on every schema of the contracts in that format.
func eachSchema(contracts []*rules.Contract, format rules.Format, f func(*rules.Schema)) {
	for _, c := range contracts {
		if c != nil && c.Format == format {
			for _, s := range c.Schemas {
				f(s)
			}
		}
	}
}

var httpMethods = map[string]bool{"get": true, "put": true, "post": true, "delete": true,
	"options": true, "head": true, "patch": true, "trace": true}

// ownerProto reads the owner off a full name: an rpc is its own group, a
// field, oneof or enum value belongs to its message or enum.
func ownerProto(e Entry, enumOf map[string]string) (GroupKind, string) {
	if enum, ok := enumOf[e.Path]; ok && e.Subject == rules.SubjectEnumValue {
		return SchemaGroup, enum
	}
	switch e.Subject {
	case rules.SubjectRPC, rules.SubjectService:
		return OperationGroup, e.Path
	case rules.SubjectMessage, rules.SubjectEnum:
		return SchemaGroup, e.Path
	case rules.SubjectField, rules.SubjectOneof, rules.SubjectEnumValue, rules.SubjectReserved:
		if i := strings.LastIndexByte(e.Path, '.'); i > 0 && e.Subject != rules.SubjectReserved {
			return SchemaGroup, e.Path[:i]
		}
		return SchemaGroup, e.Path
	}
	return ContractGroup, e.Path
}

// enums maps a proto enum value's full name to its enum's: values are
// scoped beside their enum (pkg.STATUS_OPEN belongs to pkg.Status), so the
// name alone does not tell which enum holds it.
func enums(contracts []*rules.Contract) map[string]string {
	out := map[string]string{}
	eachSchema(contracts, rules.Proto, func(s *rules.Schema) {
		scope := s.Path[:max(strings.LastIndexByte(s.Path, '.'), 0)]
		for _, v := range s.Enum {
			out[strings.TrimPrefix(scope+"."+v, ".")] = s.Path
		}
	})
	return out
}

// readable names a place inside an operation or schema the way its reader
// thinks of it: "response 200.data[].id", not the pointer's bookkeeping.
func readable(seg []string) string {
	var parts []string
	for i := 0; i < len(seg); i++ {
		switch s := seg[i]; {
		case s == "properties" || s == "schema":
		case s == "content" && i+1 < len(seg):
			i++ // the media type: the same place in each of them
		case s == "requestBody":
			parts = append(parts, "request body")
		case (s == "responses" || s == "parameters") && i+1 < len(seg):
			word := map[string]string{"responses": "response "}[s]
			parts = append(parts, word+seg[i+1])
			i++
		case s == "items" && len(parts) > 0:
			parts[len(parts)-1] += "[]"
		case s == "enum" && i+1 < len(seg):
			i++ // an enum value is named by the entry itself
		default:
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, ".")
}
