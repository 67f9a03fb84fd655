package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
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
// not take.
func warnHeld(e *Env, cfg *config.Config) {
	if cfg == nil {
		return
	}
	_, held := cfg.Limits.Capped()
	for _, h := range held {
		fmt.Fprintf(e.Stderr, "contractlint: warning: %s: %s\n", report.Clean(cfg.File), h)
	}
}

// baseConfig reads the config at the base and compares the head's with it;
// nil when the config lies outside the repository.
func (ro *reviewOptions) baseConfig(e *Env, head *config.Config) (*config.Config, []rules.Change, error) {
	repo, err := review.OpenRepo(e.abs("."))
	if err != nil {
		return nil, nil, reviewErr(err)
	}
	base := repo.ResolveStaged()
	if !ro.review.Staged || ro.review.Base != "" {
		if base, err = repo.ResolveBase(ro.review.Base); err != nil {
			return nil, nil, reviewErr(err)
		}
	}
	abs := filepath.Join(repo.Top, config.FileName)
	if head.File != "" {
		abs = e.abs(head.File)
	}
	rel, err := filepath.Rel(repo.Top, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, nil, nil
	}
	name := filepath.ToSlash(rel)
	src, err := source.OpenRev(repo.Top, base.Commit)
	if err != nil {
		return nil, nil, reviewErr(err)
	}
	defer src.Close()
	baseCfg := &config.Config{File: name, Dir: filepath.Dir(abs)}
	if b, err := src.ReadFile(name); err == nil {
		if baseCfg, err = config.Parse(name, filepath.Dir(abs), b); err != nil {
			return nil, nil, inputErr(err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, inputErr(err)
	}
	baseCfg.Root = repo.Top
	if head.Root != "" {
		baseCfg.Root = head.Root
	}
	var text []byte
	if head.File != "" {
		if text, err = os.ReadFile(abs); err != nil {
			return nil, nil, inputErr(err)
		}
	}
	return baseCfg, review.ConfigWeakened(baseCfg, head, name, text), nil
}
