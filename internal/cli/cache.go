package cli

import (
	"fmt"

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
	s, err := cache.Open(e.abs(c.dir), Version())
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
