package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/contractlint/contractlint/internal/cache"
	"github.com/contractlint/contractlint/internal/pipeline"
)

// cacheFlag is --cache DIR: where lowered .proto files are kept between
// runs, so a review's base side is not compiled again on every push.
type cacheFlag struct{ dir string }

func (c *cacheFlag) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&c.dir, "cache", "", "keep each .proto file's lowered contract in this directory between runs, keyed by a hash of the file, its imports and the tool version (off by default; OpenAPI documents always load)")
}

// open sets o.Cache when --cache is given; done trims the directory to its
// bound and closes it. An unusable directory is a usage error: the user
// asked for it.
func (c *cacheFlag) open(e *Env, o *pipeline.Options) (done func(), err error) {
	if c.dir == "" {
		return func() {}, nil
	}
	build, err := executableHash()
	if err != nil {
		fmt.Fprintf(e.Stderr, "contractlint: --cache: %v; the cache is not used\n", err)
		return func() {}, nil
	}
	s, err := cache.Open(e.abs(c.dir), Version()+" "+build)
	if err != nil {
		return nil, usageErr("--cache: %v", err)
	}
	o.Cache = s
	return func() {
		if err := s.Trim(); err != nil {
			fmt.Fprintf(e.Stderr, "contractlint: --cache: %v\n", err)
		}
		s.Close()
	}, nil
}

// executableHash identifies the build that writes an entry. The version
// alone does not: every build from a source tree without a tag, the
// Action's included, calls itself devel, and two of them may lower
// differently.
func executableHash() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	f, err := os.Open(exe)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)[:16]), nil
}
