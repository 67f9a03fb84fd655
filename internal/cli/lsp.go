package cli

import (
	"context"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/contractlint/contractlint/internal/chain"
	"github.com/contractlint/contractlint/internal/config"
	"github.com/contractlint/contractlint/internal/lsp"
	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/internal/report"
	"github.com/contractlint/contractlint/internal/review"
	"github.com/contractlint/contractlint/rules"
)

// lspOptions are the flags of `contractlint lsp`.
type lspOptions struct {
	common
	base     string
	debounce time.Duration
}

func newLSPCmd(e *Env) *cobra.Command {
	o := lspOptions{}
	cmd := &cobra.Command{
		Use:   "lsp [--base REF]",
		Short: "Speak the Language Server Protocol on stdio: breaking changes in the editor as you type",
		Long: "lsp is a language server (stdio) for editors. For every open OpenAPI or .proto contract it\n" +
			"compares the unsaved buffer with the same file at the base revision, as review does (same\n" +
			"base, rules, config and filters), and publishes each finding as a diagnostic, with code\n" +
			"actions for the mechanical fixes and the rule's documentation on hover.\n" +
			"REF defaults to the merge base with the default branch; the client's\n" +
			"initializationOptions {\"base\": REF} overrides it.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runLSP(e, &o)
		},
	}
	c := &o.common
	c.flags = cmd.Flags()
	c.flags.StringVar(&c.config, "config", "", "config file (default: .contractlint.yaml found upward from the workspace root)")
	c.flags.StringArrayVar(&c.protoPaths, "proto-path", nil, "extra .proto import root, relative to the repository top (repeatable, like protoc -I)")
	c.flags.StringVar(&o.base, "base", "", "compare with this commit (default: the merge base with the default branch, else HEAD~1)")
	c.flags.DurationVar(&o.debounce, "debounce", 150*time.Millisecond, "while a comparison runs or is due, wait this long after a change for the next before comparing (a change after a pause is compared at once)")
	return cmd
}

func runLSP(e *Env, lo *lspOptions) error {
	lo.config = e.abs(lo.config)
	// The chain is review's: the waivers beside the config are read.
	lo.waive = &waivers{}
	configure := func(dir, base string) (review.Options, chain.Chain, error) {
		// The config is found upward from the workspace the editor opened,
		// not from wherever the editor started the server, and read as the
		// base holds it, as review reads it: a change that loosens it
		// governs once merged (review reports it as config-weakened; the
		// editor shows only the contracts).
		we := *e
		we.Getwd = func() (string, error) { return dir, nil }
		rev := reviewOptions{common: lo.common}
		rev.review.Base = base
		settings := rev.reviewSettings
		// The base's config is read from the sides opened here, the base
		// resolved once.
		if rev.review.Sides = sidesIn(dir, rev.review); rev.review.Sides == nil {
			// No base, no base config: the session says, once, which git
			// command fixes it, and serves with the work tree's meanwhile.
			settings = func(e *Env) (pipeline.Options, *config.Config, []rules.Change, error) {
				po, cfg, err := lo.options(e)
				return po, cfg, nil, err
			}
		}
		po, cfg, _, err := settings(&we)
		if err != nil {
			rev.closeSides()
			return review.Options{}, nil, err
		}
		po.ProtoPaths = append(slices.Clip(lo.protoPaths), po.ProtoPaths...)
		// The session compares on every edit and reports neither unused
		// accepts nor what a change accepted: a record would only grow.
		po.Matched = nil
		if len(cfg.Ignore) > 0 {
			top, err := rev.top(&we)
			if err != nil {
				rev.closeSides()
				return review.Options{}, nil, err
			}
			po.Settings.IgnoreName = ignoreNames(cfg.Dir, top)
		}
		rev.closeSides() // the session opens its own
		ro := review.Options{Globs: cfg.ContractGlobs(), HistoryDepth: cfg.HistoryDepth, HistoryAll: cfg.HistoryAll, Pipeline: po}
		if cfg.Contracts != nil {
			ro.GlobsFrom = cfg.File
		}
		return ro, chain.For(rev.chainCommand(&we, nil, po)), nil
	}
	err := lsp.Serve(context.Background(), e.Stdin, e.Stdout, lsp.Options{
		Configure: configure, Base: lo.base, Debounce: lo.debounce, RulesURL: report.DefaultRulesURL,
	})
	if err != nil {
		return &exitError{code: 1, msg: "lsp: " + err.Error()}
	}
	return nil
}

// sidesIn opens the sides of o in the git work tree holding dir; nil
// outside one, or where o's base (or the default base) does not resolve.
func sidesIn(dir string, o review.Options) *review.Sides {
	repo, err := review.OpenRepo(dir)
	if err != nil {
		return nil
	}
	sd, err := repo.OpenSides(o)
	if err != nil {
		return nil
	}
	return sd
}
