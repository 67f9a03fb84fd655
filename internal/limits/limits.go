// Package limits holds the bounds that keep a hostile contract from costing
// unbounded time or memory: how large one file may be, how deeply a YAML or
// JSON document may nest, how many elements one file may hold (aliases
// expanded), how many files and elements one side may read, and how many of
// each kind (operations, schemas, messages, ...) it may build. Each has a
// default, a command-line flag and a config key, and hitting one is an input
// error naming the file, the limit and the flag that raises it.
package limits

import (
	"fmt"
	"strconv"
	"strings"
)

// Limits bound one run. A zero field means the default.
type Limits struct {
	// FileSize is the largest file, in bytes, a side may read (--max-file-size).
	FileSize int64
	// Depth is the deepest nesting of objects and arrays in a YAML or JSON
	// document (--max-depth). A schema nested n levels is about 2n deep.
	Depth int
	// Files is the most files one side may read: a proto tree with its
	// imports, or an OpenAPI document with its $refs (--max-files).
	Files int
	// Elements is the most elements one file may hold (--max-elements): in
	// YAML or JSON the keys and list items after every alias is expanded
	// (operations, schemas, properties, enum values all are); in a .proto
	// file the declarations and list entries (messages, fields, enum
	// values, each reserved number or name). It bounds what the loader
	// builds, where the file size alone does not. The flag sets it for both
	// formats; unset, each format has its own default (ProtoElements).
	Elements int
	// ProtoElements is Elements for .proto files: a declaration costs the
	// compiler about 2.5 times what a YAML element costs kin-openapi.
	ProtoElements int
	// Keys is the most keys one YAML or JSON mapping may hold (--max-keys):
	// the properties of one schema, the paths, the schemas. The YAML
	// library under kin-openapi compares every pair of a mapping's keys,
	// so time grows with their square.
	Keys int
	// ProtoLine is the longest line of a .proto file, in bytes
	// (--max-proto-line). protocompile finds each position's column by
	// counting from the start of its line, so a statement of n entries on
	// one line costs n times the line's length.
	ProtoLine int
	// TotalElements is the most elements one side may read across all its
	// files, each counted once as Elements counts it
	// (--max-total-elements): it holds a whole side, a proto tree with
	// its imports or a document with its $refs, under SideBudget.
	TotalElements int
	// Counts limits each kind of thing built (--max-count KIND=N):
	// properties per schema, every other kind per side.
	Counts Counts
}

// Defaults: far above real contracts (Stripe's OpenAPI document is 4 MiB
// and nests 26 levels; googleapis is about 7,200 .proto files), far below
// what would exhaust a CI runner.
const (
	DefaultFileSize = 64 << 20
	DefaultDepth    = 256
	DefaultFiles    = 20000
	// DefaultElements and DefaultProtoElements keep loading any one file
	// under the memory budget (TestMemoryBudget measures the cost of an
	// element): Stripe's document holds 95,700 elements, googleapis'
	// largest file (compute.proto) 20,700.
	DefaultElements      = 400_000
	DefaultProtoElements = 180_000
	// DefaultKeys holds the YAML library's pairwise key check to about
	// 5·10⁷ comparisons, seconds at worst; Stripe's widest mapping
	// (components.schemas) has about 1,300 keys.
	DefaultKeys = 10_000
	// DefaultProtoLine is 16 KiB: googleapis' longest line is 479 bytes;
	// a full line of reserved numbers costs the compiler about 0.1 s of
	// CPU (a 52 KB one 1.4 s, growing with the square).
	DefaultProtoLine = 16 << 10
	// MemoryBudget is what loading one file at the default limits may
	// allocate, in all (an upper bound on its peak heap).
	MemoryBudget = 1 << 30
	// DefaultTotalElements admits the whole googleapis tree (7,227 files,
	// 457,600 elements) with half again to grow, and Stripe's document
	// (95,700 elements).
	DefaultTotalElements = 700_000
	// SideBudget is what loading one side at the default limits may
	// allocate, in all (an upper bound on its peak heap; a run reads two
	// sides): DefaultTotalElements at the costliest element, a .proto
	// declaration in a tree of files, about 5,300 bytes (TestSideBudget).
	SideBudget = 4 << 30
)

// Flag names, shown in every message about a limit.
const (
	FileSizeFlag  = "--max-file-size"
	DepthFlag     = "--max-depth"
	FilesFlag     = "--max-files"
	ElementsFlag  = "--max-elements"
	KeysFlag      = "--max-keys"
	ProtoLineFlag = "--max-proto-line"
	TotalFlag     = "--max-total-elements"
)

// Default returns the built-in limits.
func Default() Limits {
	return Limits{FileSize: DefaultFileSize, Depth: DefaultDepth, Files: DefaultFiles, Elements: DefaultElements, ProtoElements: DefaultProtoElements,
		Keys: DefaultKeys, ProtoLine: DefaultProtoLine, TotalElements: DefaultTotalElements, Counts: defaultCounts}
}

// OrDefault fills every unset (zero or negative) field with its default.
func (l Limits) OrDefault() Limits {
	d := Default()
	orDefault(&l.FileSize, d.FileSize)
	orDefault(&l.Depth, d.Depth)
	orDefault(&l.Files, d.Files)
	orDefault(&l.Elements, d.Elements)
	orDefault(&l.ProtoElements, d.ProtoElements)
	orDefault(&l.Keys, d.Keys)
	orDefault(&l.ProtoLine, d.ProtoLine)
	orDefault(&l.TotalElements, d.TotalElements)
	for k, n := range l.Counts {
		if n <= 0 {
			l.Counts[k] = d.Counts[k]
		}
	}
	return l
}

// orDefault sets an unset (zero or negative) limit to its default.
func orDefault[T int | int64](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

// ParseSize reads a byte count: a plain number of bytes, or one with a
// KiB, MiB or GiB suffix (KB, MB, GB and K, M, G mean the same).
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	up := strings.ToUpper(t)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"GIB", 1 << 30}, {"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1}} {
		if strings.HasSuffix(up, u.suffix) {
			t, mult = strings.TrimSpace(t[:len(t)-len(u.suffix)]), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("%q is not a size (want a positive number of bytes, or one like 64MiB)", s)
	}
	return n * mult, nil
}

// FormatSize shows a byte count the way ParseSize reads it back.
func FormatSize(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%dGiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
