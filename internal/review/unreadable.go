package review

import (
	"fmt"
	"strings"

	"github.com/contractlint/contractlint/internal/engine"
	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/protobuf"
	"github.com/contractlint/contractlint/rules"
)

// bufExcluded reports a .proto file that buf.yaml excludes from its module:
// buf never builds it (vendored or generated trees), so review leaves it out.
func bufExcluded(src source.Source, c FileChange) bool {
	if c.New == "" || !isProto(c.New) {
		return false
	}
	ex, err := protobuf.Excluded(src, c.New)
	return err == nil && ex
}

// unreadable is a reviewed contract that did not parse or compile.
type unreadable struct {
	file  FileChange
	probs source.Problems
}

// maxShown bounds the problems quoted in one contract-unreadable finding.
const maxShown = 3

// unreadableFindings turns unreadable contracts into one contract-unreadable
// finding each, so one broken file does not hide what the others break.
// When nothing else was reviewed there is nothing to keep: the problems are
// the run's input error (exit 2), every one of them.
func unreadableFindings(us []unreadable, reviewed int, po pipeline.Options) ([]rules.Finding, error) {
	if len(us) == reviewed {
		var all source.Problems
		for _, u := range us {
			all = append(all, u.probs...)
		}
		return nil, all
	}
	r, ok := po.Registry.Get("contract-unreadable")
	if !ok {
		return nil, fmt.Errorf("rule contract-unreadable is not registered")
	}
	reg, err := rules.NewRegistry([]*rules.Rule{r})
	if err != nil {
		return nil, err
	}
	var changes []rules.Change
	for _, u := range us {
		first := u.probs[0]
		msgs := make([]string, 0, maxShown)
		for _, p := range u.probs[:min(len(u.probs), maxShown)] {
			msgs = append(msgs, rules.Location{File: p.File, Line: p.Line, Column: p.Column}.String()+": "+source.Bound(p.Msg))
		}
		if n := len(u.probs) - maxShown; n > 0 {
			msgs = append(msgs, fmt.Sprintf("and %d more", n))
		}
		// A problem without a line (a file the compiler gave up on) is
		// shown on the file's first line, where an annotation can sit.
		at := rules.Location{File: first.File, Line: max(first.Line, 1), Column: max(first.Column, 1)}
		name := u.file.New
		changes = append(changes, rules.Change{Kind: rules.Modified, Subject: rules.SubjectContract,
			Aspect: rules.AspectUnreadable, Format: pipeline.FormatOf(pipeline.Side{Files: []string{name}}),
			Name: name, Path: name, New: rules.Value{Text: strings.Join(msgs, "; ")}, NewLoc: at})
	}
	return engine.RunMatched(reg, po.Settings, po.Matched, rules.DiffRule, &rules.Input{Changes: changes}), nil
}
