package cli

import (
	"path/filepath"
	"slices"

	"github.com/contractlint/contractlint/internal/source"
)

// preCommit sets the review the pre-commit framework's mode asks for, for
// `review --pre-commit FILE...` (the hook in .pre-commit-hooks.yaml).
// pre-commit names a range of commits (--from-ref/--to-ref, a pre-push
// hook) in PRE_COMMIT_FROM_REF and PRE_COMMIT_TO_REF: the hook reviews that
// range, as pre-commit's own `git diff FROM...TO` does. Otherwise the FILEs
// tell the modes apart: a commit passes staged files only, --all-files every
// tracked contract, staged or not, and then the hook reviews the branch
// against its merge base with the default branch. The FILEs never limit the
// review: pre-commit passes no deleted file, and a deletion must be seen.
func (ro *reviewOptions) preCommit(e *Env, files []string) error {
	from, to := e.Getenv("PRE_COMMIT_FROM_REF"), e.Getenv("PRE_COMMIT_TO_REF")
	switch {
	case from != "" && to != "":
		ro.review.Base, ro.review.Head, ro.review.Staged = from, to, false
		return nil
	case from != "" || to != "":
		return usageErr("--pre-commit: PRE_COMMIT_FROM_REF and PRE_COMMIT_TO_REF come together; only one is set")
	case e.Getenv("PRE_COMMIT_REMOTE_NAME") != "":
		// A push without a range: pre-commit names none when the pushed
		// commits reach a root the remote does not have (a repository's
		// first push). Nothing of it is published, so nothing can break:
		// every contract is compared as added.
		ro.review.Base, ro.review.Staged = source.EmptyTree, false
		return nil
	}
	ro.review.Staged = true
	if len(files) == 0 {
		return nil
	}
	out, err := source.RunGit(e.abs("."), "diff", "--cached", "--name-only", "--no-renames", "-z")
	if err != nil {
		return reviewErr(err)
	}
	staged := source.SplitZ(out)
	for _, f := range files {
		if !slices.Contains(staged, filepath.ToSlash(f)) {
			// A file the commit does not change: --all-files (or --files).
			ro.review.Staged = false
			return nil
		}
	}
	return nil
}
