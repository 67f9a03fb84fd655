package review

import "github.com/contractlint/contractlint/internal/changelog"

// LogFiles lists in log the contract files the review found added or
// deleted, which it compared with no other version, as review --changelog
// and the history report list them.
func (res *Result) LogFiles(log *changelog.Log) {
	for _, f := range res.Files {
		switch f.Status {
		case Added:
			log.File(changelog.Added, f.New, nil)
		case Deleted:
			log.File(changelog.Removed, f.Old, res.Findings)
		}
	}
}
