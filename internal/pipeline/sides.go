package pipeline

import (
	"cmp"
	"errors"
	"strings"

	"github.com/contractlint/contractlint/internal/source"
)

// labelled marks every problem of err with the side's Label, so a reader
// of `review` (whose two sides show one file name) knows which version
// failed: " [base main]", " [head: working tree]". Other errors pass as
// they are.
func (s Side) labelled(err error) error {
	var ps source.Problems
	if s.Label == "" || !errors.As(err, &ps) {
		return err
	}
	out := make(source.Problems, len(ps))
	for i, p := range ps {
		p.Msg += labelSuffix(s.Label)
		out[i] = p
	}
	return out
}

func labelSuffix(label string) string { return " [" + label + "]" }

// BothSides is the label of a problem each side has alike.
const BothSides = "base and head"

// joinSides is the error of a compare whose sides failed to load: every
// problem of both, each once (one both sides share says so), so a base
// that fails does not hide what fails in the head. An error that is no
// input problem stands alone, the old side's first.
func joinSides(old, new Side, oerr, nerr error) error {
	var ops, nps source.Problems
	if oerr == nil || nerr == nil || !errors.As(oerr, &ops) || !errors.As(nerr, &nps) {
		return cmp.Or(oerr, nerr)
	}
	strip := func(p source.Problem, label string) source.Problem {
		if label != "" {
			p.Msg = strings.TrimSuffix(p.Msg, labelSuffix(label))
		}
		return p
	}
	inNew := map[source.Problem]bool{}
	for _, p := range nps {
		inNew[strip(p, new.Label)] = true
	}
	var all source.Problems
	shared := map[source.Problem]bool{}
	for _, p := range ops {
		bare := strip(p, old.Label)
		switch {
		case !inNew[bare]:
			all = append(all, p)
		case old.Label != "" || new.Label != "":
			bare.Msg += labelSuffix(BothSides)
			fallthrough
		default:
			shared[strip(p, old.Label)] = true
			all = append(all, bare)
		}
	}
	for _, p := range nps {
		if !shared[strip(p, new.Label)] {
			all = append(all, p)
		}
	}
	return sortedOnce(all)
}

// bothLabelled marks problems of files identical on both sides (the
// unchanged files a proto compare checks once) as both sides'.
func bothLabelled(old, new Side, err error) error {
	if old.Label == "" && new.Label == "" {
		return err
	}
	return Side{Label: BothSides}.labelled(err)
}
