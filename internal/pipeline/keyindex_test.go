package pipeline_test

import (
	"fmt"
	"strings"
	"testing"
)

// The key convention over a split tree: whether the API takes an
// Idempotency-Key, and on what share of its operations, is read from every
// operation of the tree, the ones a subset load leaves out included (Lob's
// shape: six of 45 POSTs take the key, and a change adds a seventh without
// it). Each case is held to the whole load's findings, field by field, and
// to a run that does not load the tree whole.

// keyTree is a tree of a root and a file per path: /keyedN take the key (a
// $ref into a shared parameters file), /openN are keyless POSTs, and
// /made, the path the change edits, is a GET the new side adds a keyless
// POST to.
func keyTree(keyed, open int) map[string]string {
	var paths strings.Builder
	files := map[string]string{}
	add := func(p, text string) {
		fmt.Fprintf(&paths, "  /%s:\n    $ref: 'resources/%s.yml'\n", p, p)
		files["resources/"+p+".yml"] = text
	}
	for i := range keyed {
		add(fmt.Sprintf("keyed%d", i), "post:\n  parameters:\n    - $ref: '../shared/parameters/idempotency.yml#/idem-header'\n"+made201)
	}
	for i := range open {
		add(fmt.Sprintf("open%d", i), "post:\n"+made201)
	}
	add("made", "get:\n  responses:\n    '200':\n      description: ok\n")
	files["openapi.yaml"] = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n" + paths.String()
	files["shared/parameters/idempotency.yml"] = "idem-header:\n  in: header\n  name: Idempotency-Key\n  required: false\n  schema: {type: string, maxLength: 256}\n" +
		"idem-query:\n  in: query\n  name: idempotency_key\n  schema: {type: string}\n"
	return files
}

const made201 = "  responses:\n    '201':\n      description: made\n"

// newKeylessPost is the change of every case: /made takes a POST without
// the key.
func newKeylessPost(side, name, text string) string {
	if side == "new" && name == "resources/made.yml" {
		return text + "post:\n" + made201
	}
	return text
}

// TestKeyConventionFromIndexLob: the key covers only its families (six
// keyed, many keyless left out), and the new keyless POST is outside them:
// a warning whose counts include every operation left out, told without
// loading the tree whole.
func TestKeyConventionFromIndexLob(t *testing.T) {
	old, new := writeTrees(t, keyTree(6, 20), newKeylessPost)
	st := subsetRun(t, old, new)
	if st.ChunksSkipped == 0 || st.Rerun != 0 {
		t.Errorf("skipped %d of %d chunks, %d reruns (%s); want the index of operations to judge the key convention", st.ChunksSkipped, st.Chunks, st.Rerun, st.NoPlan)
	}
}

// TestKeyConventionFromIndexWide: the key is the API's (keyed operations
// at least half the keyless), so the new POST without it is an error
// naming the first keyed operation in place order, a file left out.
func TestKeyConventionFromIndexWide(t *testing.T) {
	old, new := writeTrees(t, keyTree(4, 3), newKeylessPost)
	if st := subsetRun(t, old, new); st.ChunksSkipped == 0 || st.Rerun != 0 {
		t.Errorf("skipped %d of %d chunks, %d reruns (%s); want the index of operations to judge the key convention", st.ChunksSkipped, st.Chunks, st.Rerun, st.NoPlan)
	}
}

// TestKeyConventionFromIndexTipped: the new POST tips the API from a
// convention of the whole API to one of its families, so operations left
// out that broke the convention now lack a key no convention asks for: a
// finding of another rule on operations the subset does not hold (new
// where the config turns the first rule off), which the whole tree must
// tell.
func TestKeyConventionFromIndexTipped(t *testing.T) {
	// Keyless others of any operation judged may be twice the keyed: with
	// 2 keyed and 4 keyless, the new fifth keyless POST tips it.
	old, new := writeTrees(t, keyTree(2, 5), newKeylessPost)
	if st := subsetRun(t, old, new); st.Rerun != 1 {
		t.Errorf("%d reruns, want the whole tree to report the operations left out", st.Rerun)
	}
}

// TestKeyConventionFromIndexSpellings: the key as the loader finds it in
// every way a tree writes it: inline in lower case, on the path item, a
// $ref into the root's components, a $ref to a $ref; and a keyless POST
// that says it is idempotent.
func TestKeyConventionFromIndexSpellings(t *testing.T) {
	files := keyTree(0, 5)
	files["openapi.yaml"] += "  /inline:\n    $ref: 'resources/inline.yml'\n  /item:\n    $ref: 'resources/item.yml'\n" +
		"  /root:\n    $ref: 'resources/root.yml'\n  /chain:\n    $ref: 'resources/chain.yml'\n  /safe:\n    $ref: 'resources/safe.yml'\n" +
		"  /rooted:\n    post:\n      parameters:\n        - $ref: '#/components/parameters/Key'\n" + strings.ReplaceAll(made201, "\n  ", "\n      ") +
		"components:\n  parameters:\n    Key:\n      name: Idempotency-Key\n      in: header\n      schema: {type: string}\n"
	files["resources/inline.yml"] = "post:\n  parameters:\n    - {name: idempotency-key, in: header, schema: {type: string}}\n" + made201
	files["resources/item.yml"] = "parameters:\n  - $ref: '../shared/parameters/idempotency.yml#/idem-header'\npatch:\n" + made201
	files["resources/root.yml"] = "post:\n  parameters:\n    - $ref: '../openapi.yaml#/components/parameters/Key'\n" + made201
	files["resources/chain.yml"] = "post:\n  parameters:\n    - $ref: '../shared/parameters/chain.yml'\n" + made201
	files["shared/parameters/chain.yml"] = "$ref: 'idempotency.yml#/idem-header'\n"
	files["resources/safe.yml"] = "post:\n  x-idempotent: true\n" + made201
	old, new := writeTrees(t, files, newKeylessPost)
	if st := subsetRun(t, old, new); st.ChunksSkipped == 0 || st.Rerun != 0 {
		t.Errorf("skipped %d of %d chunks, %d reruns (%s); want the index of operations to judge the key convention", st.ChunksSkipped, st.Chunks, st.Rerun, st.NoPlan)
	}
}
