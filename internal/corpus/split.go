package corpus

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v4"
)

// Split writes the single-file OpenAPI document doc into dir as a split
// spec: openapi.yaml keeps everything but the paths, and each paths entry
// becomes paths/NAME.yaml (the path, its slashes as underscores, as Redocly's
// `split` names them), whose `#/components/schemas/X` become $refs to
// ../openapi.yaml#/components/schemas/X. The benchmarks of multi-file trees
// and .ci/side-by-side build their trees with it, so both measure the same
// layout. It returns the files written, slash-separated and relative to dir.
//
// The schemas stay in the root: split one per file, as Redocly does, with
// whole-file $refs between them, Stripe's densely cyclic schemas make every
// kin-openapi-based loader (contractlint's and oasdiff's) resolve each file
// again at every use, and neither finishes (over 2 minutes and 13 GB).
func Split(doc []byte, dir string) ([]string, error) {
	files, err := SplitFiles(doc)
	if err != nil {
		return nil, err
	}
	names := slices.Sorted(maps.Keys(files))
	for _, name := range names {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, files[name], 0o644); err != nil {
			return nil, err
		}
	}
	return names, nil
}

// SplitFiles is the tree Split writes, in memory: each file's text by its
// slash-separated name. Tests that split hundreds of small documents read
// them from memory, where writing them cost more than comparing them.
func SplitFiles(doc []byte) (map[string][]byte, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(doc, &root); err != nil {
		return nil, err
	}
	if root.Kind != yaml.DocumentNode || len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("not a YAML mapping")
	}
	top := root.Content[0]
	files := map[string][]byte{}
	for k := 0; k+1 < len(top.Content); k += 2 {
		if top.Content[k].Value != "paths" {
			continue
		}
		paths := top.Content[k+1]
		for i := 0; i+1 < len(paths.Content); i += 2 {
			p, v := paths.Content[i].Value, paths.Content[i+1]
			if !strings.HasPrefix(p, "/") {
				continue
			}
			file := "paths/" + strings.ReplaceAll(strings.TrimPrefix(p, "/"), "/", "_") + ".yaml"
			rewrite(v, "../openapi.yaml")
			if err := encode(files, file, v); err != nil {
				return nil, err
			}
			paths.Content[i+1] = refNode(file)
		}
	}
	if err := encode(files, "openapi.yaml", top); err != nil {
		return nil, err
	}
	return files, nil
}

// encode adds n, written as YAML, to files as file.
func encode(files map[string][]byte, file string, n *yaml.Node) error {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	files[file] = b.Bytes()
	return nil
}

func refNode(file string) *yaml.Node {
	return &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
		{Kind: yaml.ScalarNode, Value: "$ref"}, {Kind: yaml.ScalarNode, Value: file}}}
}

// rewrite points each local $ref under n into file instead.
func rewrite(n *yaml.Node, file string) {
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Value == "$ref" && v.Kind == yaml.ScalarNode && strings.HasPrefix(v.Value, "#/") {
				v.Value = file + v.Value
			}
		}
	}
	for _, c := range n.Content {
		rewrite(c, file)
	}
}

// SplitChange makes the one-file change the multi-file benchmarks measure
// in a tree Split wrote: GET /v1/coupons's optional limit parameter becomes
// required (one line of paths/v1_coupons.yaml).
func SplitChange(dir string) error {
	p := filepath.Join(dir, "paths", "v1_coupons.yaml")
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	const from, to = "name: limit\n      required: false", "name: limit\n      required: true"
	if !bytes.Contains(b, []byte(from)) {
		return fmt.Errorf("%s: no optional limit parameter to change", p)
	}
	return os.WriteFile(p, bytes.Replace(b, []byte(from), []byte(to), 1), 0o644)
}
