package review

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/contractlint/contractlint/internal/limits"
	"github.com/contractlint/contractlint/internal/source"
)

// countingSource counts the bytes a sniff reads.
type countingSource struct {
	source.Source
	read int64
}

func (c *countingSource) ReadFile(name string) ([]byte, error) {
	b, err := c.Source.ReadFile(name)
	c.read += int64(len(b))
	return b, err
}

func (c *countingSource) ReadPrefix(name string, n int64) ([]byte, error) {
	b, err := source.ReadPrefix(c.Source, name, n)
	c.read += int64(len(b))
	return b, err
}

func memSource(files map[string]string) source.Source {
	m := fstest.MapFS{}
	for name, text := range files {
		m[name] = &fstest.MapFile{Data: []byte(text)}
	}
	return source.FS{FS: m, Name: "test"}
}

// bigJSON is a JSON file of about n bytes whose keys are sorted, so a
// contract's "openapi" comes after "components" (whose schemas $ref each
// other); a data file's rows hold an "openapi" key, but not at the top.
func bigJSON(n int, openapiKey bool) []byte {
	var b bytes.Buffer
	b.WriteString(`{"components": {"rows": [`)
	row := `{"id": %d, "openapi": "not a top-level key"},`
	if openapiKey {
		row = `{"properties": {"id%d": {"$ref": "#/components/schemas/Id"}}},`
	}
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, row, i)
	}
	b.WriteString(`{}]}`)
	if openapiKey {
		b.WriteString(`, "info": {"title": "t", "version": "1"}, "openapi": "3.0.3", "paths": {}`)
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// Telling whether a file is a contract reads a prefix of one larger than
// the file-size limit, and never parses one: a data file added beside the
// contracts costs its scan, not a parse many times its size. A contract
// over the limit is still one (loading it then says it is too large).
func TestIsContractBounded(t *testing.T) {
	globs := []string{"**/*.json", "**/*.yaml"}
	over := limits.Limits{FileSize: 1 << 20}
	files := map[string][]byte{
		"data.json":      bigJSON(2<<20, false),
		"big-api.json":   bigJSON(2<<20, true),
		"sorted.json":    bigJSON(600<<10, true),
		"rows.json":      bigJSON(600<<10, false),
		"big-api.yaml":   []byte("# generated\nopenapi: 3.0.3\ninfo: {title: t, version: \"1\"}\npaths: {}\nx-pad: '" + strings.Repeat("x", 2<<20) + "'\n"),
		"late-key.yaml":  []byte("info: {title: t, version: \"1\"}\npaths: {}\nx-pad: '" + strings.Repeat("x", 600<<10) + "'\nopenapi: 3.0.3\n"),
		"nested.yaml":    []byte("data:\n  openapi: 3.0.3\n  pad: '" + strings.Repeat("x", 600<<10) + "'\n"),
		"small.yaml":     []byte("openapi: 3.0.3\ninfo: {title: t, version: \"1\"}\npaths: {}\n"),
		"small-not.yaml": []byte("title: notes\n"),
	}
	want := map[string]bool{"big-api.json": true, "sorted.json": true, "big-api.yaml": true, "late-key.yaml": true, "small.yaml": true}
	for name, text := range files {
		src := &countingSource{Source: memSource(map[string]string{name: string(text)})}
		if got := isContractWithin(src, name, globs, over); got != want[name] {
			t.Errorf("isContract(%s) = %v, want %v", name, got, want[name])
		}
		if int64(len(text)) > over.FileSize && src.read > sniffPrefix {
			t.Errorf("%s: read %d bytes of a file over the limit, want at most %d", name, src.read, sniffPrefix)
		}
	}
}
