package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/contractlint/contractlint/internal/config"
	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/internal/report"
	"github.com/contractlint/contractlint/internal/review"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

// reviewSettings are review's options: the gate is set by the base. The
// .contractlint.yaml found is read as the base revision holds it, like the
// lock, and what the change loosens in it is returned to be reported as
// config-weakened; the looser setting takes effect once merged. A --config
// the user names is their choice and used as given, as is the config of a
// review against releases (no base).
func (ro *reviewOptions) reviewSettings(e *Env) (pipeline.Options, *config.Config, []rules.Change, error) {
	cfg, err := loadConfig(e, ro.config)
	if err != nil {
		return pipeline.Options{}, nil, nil, err
	}
	po, cfg, err := ro.optionsFor(e, cfg)
	if err != nil || ro.config != "" || ro.transitive.on() {
		warnHeld(e, cfg)
		return po, cfg, nil, err
	}
	baseCfg, weak, err := ro.baseConfig(e, cfg)
	if err != nil || baseCfg == nil {
		warnHeld(e, cfg)
		return po, cfg, nil, err
	}
	// The base's config governs: its limits held are the ones to name.
	warnHeld(e, baseCfg)
	po, baseCfg, err = ro.optionsFor(e, baseCfg)
	return po, baseCfg, weak, err
}

// warnHeld names the limits of a config held at their built-in ceiling:
// the run goes on with the ceiling, and the user learns why a raise did
// not take. It also says which rule IDs the config names that were
// renamed or retired: they load, and the user learns what they now mean.
func warnHeld(e *Env, cfg *config.Config) {
	if cfg == nil {
		return
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintf(e.Stderr, "contractlint: warning: %s\n", report.Clean(w))
	}
	_, held := cfg.Limits.Capped()
	for _, h := range held {
		fmt.Fprintf(e.Stderr, "contractlint: warning: %s: %s\n", report.Clean(cfg.File), h)
	}
}

// baseConfig reads the config at the base and compares the head's with it,
// each side as the review reads its contracts (the head: the working tree,
// the index with --staged, --head's commit); nil when the config lies
// outside the repository.
func (ro *reviewOptions) baseConfig(e *Env, head *config.Config) (*config.Config, []rules.Change, error) {
	sd := ro.review.Sides
	if sd == nil {
		repo, err := review.OpenRepo(e.abs("."))
		if err != nil {
			return nil, nil, reviewErr(err)
		}
		if sd, err = repo.OpenSides(ro.review); err != nil {
			return nil, nil, reviewErr(err)
		}
		// The review compares these very sides: the base is resolved, and
		// each side's git process started, once a run.
		ro.review.Sides = sd
	}
	repo := sd.Repo()
	abs := filepath.Join(repo.Top, config.FileName)
	if head.File != "" {
		abs = e.abs(head.File)
	}
	rel, err := filepath.Rel(repo.Top, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, nil, nil
	}
	name := filepath.ToSlash(rel)
	baseCfg, _, err := configAt(sd.Old, name, filepath.Dir(abs))
	if err != nil {
		return nil, nil, err
	}
	headCfg, text, err := configAt(sd.New, name, filepath.Dir(abs))
	if err != nil {
		return nil, nil, err
	}
	for _, c := range []*config.Config{baseCfg, headCfg} {
		c.Root = repo.Top
		if head.Root != "" {
			c.Root = head.Root
		}
	}
	return baseCfg, review.ConfigWeakened(baseCfg, headCfg, name, text), nil
}

// closeSides ends the git processes of the sides baseConfig opened, if any.
func (ro *reviewOptions) closeSides() {
	if ro.review.Sides != nil {
		ro.review.Sides.Close()
		ro.review.Sides = nil
	}
}

// top is the top of the work tree review runs in: the sides' repository
// when baseConfig opened them, else found again.
func (ro *reviewOptions) top(e *Env) (string, error) {
	if ro.review.Sides != nil {
		return ro.review.Sides.Repo().Top, nil
	}
	repo, err := review.OpenRepo(e.abs("."))
	if err != nil {
		return "", err
	}
	return repo.Top, nil
}

// configAt reads the config name as src holds it, with its text; an empty
// config (the defaults) where src has none.
func configAt(src source.Source, name, dir string) (*config.Config, []byte, error) {
	b, err := src.ReadFile(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &config.Config{File: name, Dir: dir}, nil, nil
	case err != nil:
		return nil, nil, inputErr(err)
	}
	c, err := config.Parse(name, dir, b)
	if err != nil {
		return nil, nil, inputErr(err)
	}
	return c, b, nil
}
