package cli

import (
	"cmp"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/contractlint/contractlint/internal/config"
	"github.com/contractlint/contractlint/internal/limits"
	"github.com/contractlint/contractlint/internal/report"
	"github.com/contractlint/contractlint/rules"
)

// common holds the flags every checking command shares.
type common struct {
	format string
	failOn string
	// fromTop says the report's file names are relative to the top of
	// the work tree (review's), not to the working directory.
	fromTop bool
	output  string
	// root is --root: the folder a side's $refs and imports may reach,
	// in place of its git work tree (or its own folder outside one).
	root       string
	protoPaths []string
	protoLevel string
	stats      bool
	strict     bool
	// noShortcuts is --no-shortcuts: load and compare everything, for
	// checking that the subset load and the unchanged-file skip change nothing.
	noShortcuts bool
	// maxFileSize, maxDepth and maxFiles are the --max-* limits; zero
	// means the config's value, else the default.
	maxFileSize string
	maxDepth    int
	maxFiles    int
	maxElements int
	maxKeys     int
	maxLine     string
	maxTotal    int
	maxCounts   []string
	// compat is --compat, on the commands that judge a diff.
	compat string
	// config is --config.
	config string
	flags  *pflag.FlagSet
	// also maps a format to the file --output-FORMAT names: one run writes
	// every report a CI job needs.
	also map[string]*string
	// waive is set on the commands that apply the waivers file (waive.go).
	waive *waivers
	// requireApproval is the config's require-approval (review: the base's).
	requireApproval bool
	// compared names the files the command compared (as shown), for the
	// chain's unused-accepts step; none for a command that compares none.
	compared []string
	// sources reads both sides for the formats that quote them (review's).
	sources report.Sources
}

// alsoFormats are the formats with an --output-FORMAT flag: every one, so
// one run writes the annotations, the test report and the platform's
// report a CI job uploads, and the review is read once for all of them.
var alsoFormats = report.Formats()

func (c *common) register(cmd *cobra.Command) {
	f := cmd.Flags()
	c.flags = f
	f.StringVar(&c.config, "config", "", "config file (default: "+config.FileName+" found upward from the working directory)")
	f.StringVar(&c.format, "format", "text", "report format: "+joinFormats())
	f.StringVar(&c.failOn, "fail-on", "error", "exit 1 when a finding is at or above: error, warning, info or never; version-bump: when the declared version moved less than the change needs")
	f.StringVarP(&c.output, "output", "o", "", "write the report to this file instead of standard output")
	c.also = map[string]*string{}
	for _, name := range alsoFormats {
		c.also[name] = f.String("output-"+name, "", "also write a "+name+" report to this file")
	}
	f.StringArrayVar(&c.protoPaths, "proto-path", nil, "extra .proto import root (repeatable, like protoc -I)")
	f.StringVar(&c.protoLevel, "proto-level", "file", "proto strictness: file, package, wire-json or wire")
	f.BoolVar(&c.stats, "stats", false, "print wall time, CPU time and allocation per phase, the files skipped as unchanged and peak memory to standard error")
	f.BoolVar(&c.noShortcuts, "no-shortcuts", false, "load and compare whole contracts: no subset load of OpenAPI, no skipping of unchanged files (the findings must be the same)")
	f.BoolVar(&c.strict, "strict", false, "refuse (exit 2) an OpenAPI document that fails validation, instead of reporting contract-invalid")
	f.StringVar(&c.maxFileSize, strings.TrimPrefix(limits.FileSizeFlag, "--"), "", "largest contract, $ref or import file to read (default "+limits.FormatSize(limits.DefaultFileSize)+")")
	f.IntVar(&c.maxDepth, strings.TrimPrefix(limits.DepthFlag, "--"), 0, "deepest nesting of a YAML or JSON document, or of braces in a .proto file (default "+strconv.Itoa(limits.DefaultDepth)+")")
	f.IntVar(&c.maxFiles, strings.TrimPrefix(limits.FilesFlag, "--"), 0, "most files one side may read, imports and $refs included (default "+strconv.Itoa(limits.DefaultFiles)+")")
	f.IntVar(&c.maxKeys, strings.TrimPrefix(limits.KeysFlag, "--"), 0, "most keys one YAML or JSON mapping may hold: properties of a schema, paths (default "+strconv.Itoa(limits.DefaultKeys)+")")
	f.StringVar(&c.maxLine, strings.TrimPrefix(limits.ProtoLineFlag, "--"), "", "longest line of a .proto file, in bytes or like 64KiB (default "+limits.FormatSize(limits.DefaultProtoLine)+")")
	f.IntVar(&c.maxTotal, strings.TrimPrefix(limits.TotalFlag, "--"), 0, "most elements one side may read across all its files, counted as --max-elements counts them (default "+strconv.Itoa(limits.DefaultTotalElements)+")")
	f.StringArrayVar(&c.maxCounts, strings.TrimPrefix(limits.CountFlag, "--"), nil, "limit one kind, KIND=N (repeatable): operations, schemas, messages, fields or reserved per side, properties per schema")
	f.IntVar(&c.maxElements, strings.TrimPrefix(limits.ElementsFlag, "--"), 0, "most elements one file may hold: YAML/JSON keys and list items with aliases expanded, .proto declarations and list entries (default "+strconv.Itoa(limits.DefaultElements)+", .proto "+strconv.Itoa(limits.DefaultProtoElements)+")")
}

// registerRoot adds --root, on the commands that read contracts named on
// the command line (not review's, which reads git).
func (c *common) registerRoot(cmd *cobra.Command) {
	cmd.Flags().StringVar(&c.root, "root", "", "the folder $refs and imports may reach (default: the git work tree holding each contract, else the contract's own folder)")
}

// limits merges the --max-* flags over the config's limits.
func (c *common) limits(cfg limits.Limits) (limits.Limits, error) {
	l := cfg
	if c.maxFileSize != "" {
		n, err := limits.ParseSize(c.maxFileSize)
		if err != nil {
			return l, usageErr("%s: %v", limits.FileSizeFlag, err)
		}
		l.FileSize = n
	}
	if c.maxDepth < 0 || c.maxFiles < 0 || c.maxElements < 0 || c.maxKeys < 0 || c.maxTotal < 0 {
		return l, usageErr("%s, %s, %s, %s and %s: want a positive number", limits.DepthFlag, limits.FilesFlag, limits.ElementsFlag, limits.KeysFlag, limits.TotalFlag)
	}
	if c.maxTotal > 0 {
		l.TotalElements = c.maxTotal
	}
	for _, v := range c.maxCounts {
		k, n, err := limits.ParseCount(v)
		if err != nil {
			return l, usageErr("%s: %v", limits.CountFlag, err)
		}
		l.Counts[k] = n
	}
	if c.maxKeys > 0 {
		l.Keys = c.maxKeys
	}
	if c.maxLine != "" {
		n, err := limits.ParseSize(c.maxLine)
		if err != nil || n > math.MaxInt32 {
			return l, usageErr("%s: %q is not a size such as 64KiB", limits.ProtoLineFlag, c.maxLine)
		}
		l.ProtoLine = int(n)
	}
	if c.maxElements > 0 {
		l.Elements, l.ProtoElements = c.maxElements, c.maxElements
	}
	if c.maxDepth > 0 {
		l.Depth = c.maxDepth
	}
	if c.maxFiles > 0 {
		l.Files = c.maxFiles
	}
	return l.OrDefault(), nil
}

func joinFormats() string {
	s := ""
	for i, f := range report.Formats() {
		if i > 0 {
			s += "|"
		}
		s += f
	}
	return s
}

// configFailOn takes the config's fail-on unless --fail-on was given (the
// flag wins). A command whose default is never (history, changelog) reports
// and does not gate: the config's gate is not its.
func (c *common) configFailOn(cfg *config.Config) {
	if f := c.flags.Lookup("fail-on"); f != nil && !f.Changed && f.DefValue != "never" {
		c.failOn = cmp.Or(cfg.FailOn, f.DefValue)
	}
}

// threshold reads --fail-on; never means no severity fails the run, and
// so does version-bump, where only the version gate's findings do (fails).
func (c *common) threshold() (rules.Severity, error) {
	if c.failOn == "never" || c.failOn == rules.FailOnVersionBump {
		return rules.Error + 1, nil
	}
	s, err := rules.ParseSeverity(c.failOn)
	if err != nil {
		return 0, usageErr("--fail-on: %v", err)
	}
	return s, nil
}

// fails reports whether f fails the run at threshold.
func (c *common) fails(f rules.Finding, threshold rules.Severity) bool {
	return f.Severity >= threshold || c.failOn == rules.FailOnVersionBump && f.Rule == rules.VersionBumpMissingID
}

// gateVersions turns the version gate on when --fail-on (or the config's
// fail-on) is version-bump.
func (c *common) gateVersions(s *rules.Settings) {
	if c.failOn != rules.FailOnVersionBump {
		return
	}
	if s.Rules == nil {
		s.Rules = map[string]bool{}
	}
	s.Rules[rules.VersionBumpMissingID] = true
}
