// Package tojson writes a YAML document as indented JSON, the layout JSON
// writers give it, so that tests can hold a JSON path of the tool to the
// YAML one on the same cases.
package tojson

import (
	"encoding/json"
	"fmt"

	"go.yaml.in/yaml/v4"
)

// Indented is text as JSON indented by two spaces, keys sorted; false when
// text does not parse or holds what JSON cannot (a key that is a
// collection).
func Indented(text string) (string, bool) {
	var v any
	if err := yaml.Unmarshal([]byte(text), &v); err != nil {
		return "", false
	}
	v, ok := value(v)
	if !ok {
		return "", false
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return "", false
	}
	return string(b) + "\n", true
}

// value turns the maps YAML decodes with other than string keys into
// JSON objects.
func value(v any) (any, bool) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			e, ok := value(e)
			if !ok {
				return nil, false
			}
			v[k] = e
		}
		return v, true
	case map[any]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			switch k.(type) {
			case map[string]any, map[any]any, []any:
				return nil, false
			}
			e, ok := value(e)
			if !ok {
				return nil, false
			}
			m[fmt.Sprint(k)] = e
		}
		return m, true
	case []any:
		for i, e := range v {
			e, ok := value(e)
			if !ok {
				return nil, false
			}
			v[i] = e
		}
	}
	return v, true
}
