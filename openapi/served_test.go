package openapi

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/contractlint/contractlint/internal/source"
)

// countingSource counts the reads of each file.
type countingSource struct {
	source.Source
	mu    sync.Mutex
	reads map[string]int
}

func (c *countingSource) ReadFile(name string) ([]byte, error) {
	c.mu.Lock()
	c.reads[name]++
	c.mu.Unlock()
	return c.Source.ReadFile(name)
}

// A split tree (DigitalOcean's layout) names one shared response from every
// operation file; kin-openapi asks for the file once per $ref to it. Each
// file is read, checked and rewritten once, however often it is named.
func TestSplitTreeReadsEachFileOnce(t *testing.T) {
	const ops = 40
	var root strings.Builder
	root.WriteString("openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n")
	files := fstest.MapFS{
		"shared/error.yml": {Data: []byte("description: failed\ncontent:\n  application/json:\n    schema:\n      $ref: 'model.yml'\n")},
		"shared/model.yml": {Data: []byte("type: object\nproperties:\n  id: {type: string}\n")},
	}
	for i := range ops {
		fmt.Fprintf(&root, "  /r%d:\n    get:\n      $ref: 'ops/op%d.yml'\n", i, i)
		files[fmt.Sprintf("ops/op%d.yml", i)] = &fstest.MapFile{Data: []byte(fmt.Sprintf(
			"operationId: op%d\nresponses:\n  '200':\n    $ref: '../shared/error.yml'\n  '404':\n    $ref: '../shared/error.yml'\n", i))}
	}
	files["openapi.yaml"] = &fstest.MapFile{Data: []byte(root.String())}
	src := &countingSource{Source: source.FS{FS: files, Name: "tree"}, reads: map[string]int{}}
	d, err := Load(src, "openapi.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, n := range src.reads {
		if n != 1 {
			t.Errorf("%s read %d times, want once", name, n)
		}
	}
	for i := range ops {
		op := d.T.Paths.Find(fmt.Sprintf("/r%d", i)).Get
		if op == nil || op.Responses.Status(404) == nil || op.Responses.Status(404).Value.Description == nil ||
			*op.Responses.Status(404).Value.Description != "failed" {
			t.Fatalf("/r%d: the shared response was not read into the operation", i)
		}
		s := op.Responses.Status(200).Value.Content.Get("application/json").Schema.Value
		if s.Properties["id"] == nil {
			t.Fatalf("/r%d: the shared response's schema file was not read", i)
		}
	}
}
