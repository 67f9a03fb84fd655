package config_test

import (
	"strings"
	"testing"

	"github.com/contractlint/contractlint/internal/config"
	"github.com/contractlint/contractlint/internal/limits"
	"github.com/contractlint/contractlint/internal/source"
)

// FuzzParse feeds mutated .contractlint.yaml text to the parser: whatever
// the bytes, the result is a config or an input error naming the file; never
// a panic. Seeds are the commented default and one value of every key.
func FuzzParse(f *testing.F) {
	f.Add(config.Template)
	for _, s := range []string{
		"packs: {breaking: off, evolution: on}\nrules: {field-redefined: off}\nseverity: {field-redefined: warning}\n",
		"ignore: [\"third_party/**\"]\ncontracts: [\"api/*.yaml\"]\n",
		"readers: {paths: [pacts], window: 30d}\nproto: {level: wire, paths: [proto]}\nhistory: {depth: 5}\n",
		"limits: {file-size: 1MiB, depth: 64, files: 100}\n",
		"a: &a [x]\nb: *a\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := config.Parse(".contractlint.yaml", "/repo", data)
		if err != nil {
			if !source.Named(err) {
				t.Fatalf("error is not an input error naming its file: %T %v", err, err)
			}
			return
		}
		if c == nil {
			t.Fatal("no config and no error")
		}
	})
}

// TestLimits: the limits: keys set the bounds the --max-* flags also set,
// and a bad value is an error at its place.
func TestLimits(t *testing.T) {
	c, err := config.Parse("c.yaml", "/repo", []byte("limits: {file-size: 1MiB, depth: 64, files: 100, elements: 5000, keys: 300, proto-line: 1KiB, total-elements: 9000, operations: 7, reserved: 8}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Limits.FileSize != 1<<20 || c.Limits.Depth != 64 || c.Limits.Files != 100 || c.Limits.Elements != 5000 || c.Limits.Keys != 300 || c.Limits.ProtoLine != 1024 ||
		c.Limits.TotalElements != 9000 || c.Limits.Counts[limits.Operations] != 7 || c.Limits.Counts[limits.Reserved] != 8 {
		t.Errorf("limits = %+v", c.Limits)
	}
	for text, want := range map[string]string{
		"limits:\n  file-size: huge\n": `c.yaml:2:14: limits.file-size: want a size such as 64MiB, not "huge"`,
		"limits:\n  depth: 0\n":        `c.yaml:2:10: limits.depth: want a positive number, not "0"`,
		"limits:\n  files: [1]\n":      `c.yaml:2:10: limits.files: want a positive number`,
		"limits:\n  nesting: 3\n":      `c.yaml:2:3: unknown key limits.nesting (want file-size, depth, files, elements, total-elements, keys, proto-line or a kind`,
		"limits:\n  messages: -1\n":    `c.yaml:2:13: limits.messages: want a positive number, not "-1"`,
	} {
		if _, err := config.Parse("c.yaml", "/repo", []byte(text)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", text, err, want)
		}
	}
}
