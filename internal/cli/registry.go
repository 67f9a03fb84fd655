package cli

import (
	"github.com/contractlint/contractlint/internal/config"
	"github.com/contractlint/contractlint/rules"
)

// loadRegistry reads the config (--config, or the one found upward) and
// returns it with the rules it knows: the built-in ones and its own.
func loadRegistry(e *Env, file string) (*config.Config, *rules.Registry, error) {
	cfg, err := loadConfig(e, file)
	if err != nil {
		return nil, nil, err
	}
	reg, err := cfg.Registry()
	if err != nil {
		return nil, nil, usageErr("%v", err)
	}
	return cfg, reg, nil
}
