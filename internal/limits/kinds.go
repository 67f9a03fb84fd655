package limits

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Kind is one kind of thing a contract makes the loader build, with its own
// limit (--max-count KIND=N, limits.KIND). The kinds are counted by the
// same pre-parse scans as the elements, so a limit on them bounds memory
// before anything is built.
type Kind int

const (
	// Operations are the method keys under each path of an OpenAPI document.
	Operations Kind = iota
	// Schemas are the keys under components.schemas (definitions in
	// Swagger 2).
	Schemas
	// Properties are the keys of one properties mapping: the only kind
	// limited per schema rather than per side.
	Properties
	// Messages are .proto message declarations, nested ones included.
	Messages
	// Fields are .proto field declarations (map and oneof fields too).
	Fields
	// Reserved are the entries of .proto reserved statements: each number,
	// range or name.
	Reserved
	numKinds
)

// Kinds lists every kind, in the order its name is shown.
var Kinds = []Kind{Operations, Schemas, Properties, Messages, Fields, Reserved}

var kindNames = [numKinds]string{"operations", "schemas", "properties", "messages", "fields", "reserved"}

// kindNouns name each kind in messages, where "reserved" alone would not
// read as a count.
var kindNouns = [numKinds]string{"operations", "schemas", "properties", "messages", "fields", "reserved entries"}

// defaultCounts are far above real contracts and far below the element
// limits: Stripe's document has 468 operations, 819 schemas and at most
// 81 properties in one schema; the whole googleapis tree has 44,700
// messages, 149,700 fields and 22 reserved entries.
var defaultCounts = Counts{Operations: 50_000, Schemas: 100_000, Properties: 10_000, Messages: 200_000, Fields: 600_000, Reserved: 100_000}

// CountFlag is the flag that sets the limit on one kind.
const CountFlag = "--max-count"

func (k Kind) String() string { return kindNames[k] }

// Counts holds a number per kind: what a scan found, or the limits on it.
type Counts [numKinds]int

// ParseKind reads a kind's name.
func ParseKind(s string) (Kind, error) {
	for _, k := range Kinds {
		if k.String() == s {
			return k, nil
		}
	}
	return 0, fmt.Errorf("unknown kind %q (want %s)", s, strings.Join(kindNames[:], ", "))
}

// ParseCount reads one --max-count value, KIND=N.
func ParseCount(s string) (Kind, int, error) {
	name, num, ok := strings.Cut(s, "=")
	if !ok {
		return 0, 0, fmt.Errorf("%q: want KIND=N, such as operations=1000", s)
	}
	k, err := ParseKind(strings.TrimSpace(name))
	if err != nil {
		return 0, 0, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(num))
	if err != nil || n <= 0 {
		return 0, 0, fmt.Errorf("%q: want a positive number after %s=", s, k)
	}
	return k, n, nil
}

// countHint shows how to raise the limit on k.
func countHint(k Kind) string { return CountFlag + " " + k.String() + "=N" }

// openapiKind tells which kind a mapping key is, given the keys (and "-"
// for list items) on the way to it from the top of the document; ok is
// false for a key of no limited kind.
func openapiKind(path [][]byte, key []byte) (Kind, bool) {
	n := len(path)
	switch {
	case n == 2 && string(path[0]) == "paths" && isMethod(key):
		return Operations, true
	case n == 2 && string(path[0]) == "components" && string(path[1]) == "schemas",
		n == 1 && string(path[0]) == "definitions":
		return Schemas, true
	case n > 0 && string(path[n-1]) == "properties":
		return Properties, true
	}
	return 0, false
}

func isMethod(key []byte) bool {
	switch string(key) {
	case "get", "put", "post", "delete", "options", "head", "patch", "trace":
		return true
	}
	return false
}

// keyName is a mapping key as written, without quotes.
func keyName(b []byte) []byte {
	b = bytes.TrimSpace(b)
	if len(b) >= 2 && (b[0] == '"' || b[0] == '\'') && b[len(b)-1] == b[0] {
		b = b[1 : len(b)-1]
	}
	return b
}
