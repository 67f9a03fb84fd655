package cli

import (
	"github.com/spf13/pflag"

	"github.com/contractlint/contractlint/internal/changelog"
	"github.com/contractlint/contractlint/internal/compat"
	"github.com/contractlint/contractlint/internal/review"
)

// transitive holds review's --against and --against-tags.
type transitive struct {
	against []string
	tags    string
}

func (t *transitive) register(f *pflag.FlagSet) {
	f.StringArrayVar(&t.against, "against", nil, "compare with this release (repeatable); each break is reported once, naming the oldest release it breaks")
	f.StringVar(&t.tags, "against-tags", "", "compare with every tag matching this glob (\"v*\"), as --against does")
}

func (t *transitive) on() bool { return len(t.against) > 0 || t.tags != "" }

// run reviews the head against every release; the result's note, for the
// report, says which releases were checked and which skipped. With log
// (--changelog), each release's changes join it under the release's name.
func (t *transitive) run(e *Env, o review.Options, log *changelog.Log) (*compat.Result, error) {
	co := compat.Options{Review: o, Against: t.against, Tags: t.tags}
	if log != nil {
		// The review's diffs added their groups to log as they ran.
		mark, vmark := 0, 0
		co.Each = func(rel string, rr *review.Result) {
			logFiles(log, rr)
			for i := mark; i < len(log.Groups); i++ {
				log.Groups[i].Release = rel
			}
			for i := vmark; i < len(log.Versions); i++ {
				log.Versions[i].Release = rel
			}
			mark, vmark = len(log.Groups), len(log.Versions)
		}
	}
	res, err := compat.Run(co)
	if err != nil {
		return nil, err
	}
	warnUnmatched(e, res.Unmatched)
	return res, nil
}

// lockedReleases resolves lock --releases into the releases to record.
func lockedReleases(e *Env, glob string) ([]review.LockedRelease, error) {
	if glob == "" {
		return nil, nil
	}
	repo, err := review.OpenRepo(e.abs("."))
	if err != nil {
		return nil, err
	}
	locked, err := compat.Locked(repo.Top, glob)
	if err != nil {
		return nil, err
	}
	rels, err := compat.Resolve(repo.Top, nil, glob, len(locked) > 0)
	if err != nil {
		return nil, err
	}
	out := make([]review.LockedRelease, 0, len(rels))
	for _, r := range rels {
		out = append(out, review.LockedRelease{Name: r.Name, Commit: r.Commit})
	}
	return out, nil
}
