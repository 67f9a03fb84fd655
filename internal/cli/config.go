package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/contractlint/contractlint/internal/config"
)

// loadConfig reads --config, or the .contractlint.yaml found upward from the
// working directory; with neither, every default holds. A config that cannot
// be read is an input error (exit 2) naming file:line:col.
func loadConfig(e *Env, file string) (*config.Config, error) {
	if file == "" {
		wd, err := e.Getwd()
		if err != nil {
			return nil, usageErr("looking for %s: %v", config.FileName, err)
		}
		found, err := config.Find(wd)
		if err != nil {
			return nil, usageErr("looking for %s: %v", config.FileName, err)
		}
		file = displayPath(e, found)
	}
	if file == "" {
		return &config.Config{}, nil
	}
	cfg, err := config.LoadAs(e.abs(file), file)
	if err != nil {
		return nil, inputErr(err)
	}
	return cfg, nil
}

// ignoreNames makes the config's ignore globs relative to its own directory:
// a finding's file, shown relative to base, is renamed relative to dir.
// Without it the same glob would match differently from each directory.
func ignoreNames(dir, base string) func(string) string {
	d, err := filepath.Abs(dir)
	if err != nil {
		return nil
	}
	b, err := filepath.Abs(base)
	if err != nil || b == d {
		return nil
	}
	return func(f string) string {
		p := filepath.FromSlash(f)
		if !filepath.IsAbs(p) {
			p = filepath.Join(b, p)
		}
		if rel, err := filepath.Rel(d, p); err == nil {
			return filepath.ToSlash(rel)
		}
		return f
	}
}

// defaults takes the readers and window from the config unless the flags
// gave them.
func (o *readerOpts) defaults(e *Env, cfg *config.Config, flags *pflag.FlagSet) {
	if cfg == nil {
		return
	}
	if len(o.paths) == 0 && len(cfg.Readers) > 0 {
		// Shown relative to the working directory, like every other file.
		o.paths, o.root = make([]string, len(cfg.Readers)), cfg.Root
		for i, p := range cfg.Readers {
			o.paths[i] = displayPath(e, p)
		}
	}
	if cfg.ReadersWindow != 0 && !flags.Changed("readers-window") {
		o.window = window(cfg.ReadersWindow)
	}
	o.mapping = cfg.ReadersMapping
}

// displayPath names a found file relative to the working directory when it
// can, so messages carry no machine path.
func displayPath(e *Env, p string) string {
	if p == "" {
		return ""
	}
	wd, err := e.Getwd()
	if err != nil {
		return p
	}
	if rel, err := filepath.Rel(wd, p); err == nil {
		return rel
	}
	return p
}

func newInitCmd(e *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "init",
		Short: "Write a commented default " + config.FileName + " in the current directory",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runInit(e)
		},
	}
}

// runInit writes the config template in the working directory, never over
// an existing one.
func runInit(e *Env) error {
	wd, err := e.Getwd()
	if err != nil {
		return usageErr("%s: %v", config.FileName, err)
	}
	f, err := os.OpenFile(filepath.Join(wd, config.FileName), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return usageErr("%s already exists; edit it, or remove it to start over", config.FileName)
	}
	if err != nil {
		return usageErr("%s: %v", config.FileName, unwrapPath(err))
	}
	if _, err := f.Write(config.Template); err != nil {
		f.Close()
		return usageErr("%s: %v", config.FileName, unwrapPath(err))
	}
	if err := f.Close(); err != nil {
		return usageErr("%s: %v", config.FileName, unwrapPath(err))
	}
	fmt.Fprintf(e.Stdout, "wrote %s\n", config.FileName)
	return nil
}
