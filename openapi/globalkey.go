package openapi

import (
	"encoding/json"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/contractlint/contractlint/rules"
)

// globalKeyExt is the root extension that declares the idempotency key once
// for every operation that may change state, for an API that implements the
// key globally rather than per operation. Its value is a header Parameter
// Object, inline or a $ref to #/components/parameters/NAME.
const globalKeyExt = "x-idempotency"

// globalKey lowers the root x-idempotency declaration. One that is not a
// header parameter is reported as invalid, where it is, and declares nothing.
func (l *lowerer) globalKey() *rules.Param {
	v, ok := l.d.T.Extensions[globalKeyExt]
	if !ok {
		return nil
	}
	at := l.d.FieldLoc(l.d.T.Origin, globalKeyExt)
	bad := func(msg string) *rules.Param {
		l.c.Invalid = append(l.c.Invalid, rules.Invalid{Loc: at, Msg: globalKeyExt + ": " + msg})
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return bad("expected a header parameter (name: Idempotency-Key, in: header), or a $ref to one")
	}
	if ref, ok := m["$ref"].(string); ok {
		name, found := strings.CutPrefix(ref, "#/components/parameters/")
		var pr *openapi3.ParameterRef
		if found && l.d.T.Components != nil {
			pr = l.d.T.Components.Parameters[strings.NewReplacer("~1", "/", "~0", "~").Replace(name)]
		}
		if pr == nil || pr.Value == nil {
			return bad("$ref " + ref + " names no parameter under #/components/parameters")
		}
		return l.headerKey(pr, ref, bad)
	}
	b, err := json.Marshal(m)
	p := &openapi3.Parameter{}
	if err == nil {
		err = p.UnmarshalJSON(b)
	}
	if err != nil {
		return bad(err.Error())
	}
	k := l.headerKey(&openapi3.ParameterRef{Value: p}, "#/"+globalKeyExt, bad)
	if k != nil {
		k.Loc = at
	}
	return k
}

// headerKey lowers the parameter at ref as the global key, which must be a header.
func (l *lowerer) headerKey(ref *openapi3.ParameterRef, path string, bad func(string) *rules.Param) *rules.Param {
	if p := ref.Value; p.In != openapi3.ParameterInHeader || p.Name == "" {
		return bad("the key must be a header parameter, such as {name: Idempotency-Key, in: header, required: true}")
	}
	return l.param(ref, path)
}
