package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/contractlint/contractlint/internal/source"
)

// blameReach is how many lines either side of an acceptance's place are
// searched for the line that says it: a proto ignore's comment sits above
// the element it is placed at, an OpenAPI ignore's rule may sit below its
// key.
const blameReach = 20

// author is who answers for the line of name near line that says says (an
// ignore's rule ID; "" for the line itself): the author of the commit in
// base..head that added it, as git blame tells, or, when it is not
// committed yet, who would commit it. "" when git cannot tell.
func (s *reviewSources) author(name string, line int, says string) string {
	if s == nil || line < 1 || !filepath.IsLocal(filepath.FromSlash(name)) {
		return ""
	}
	args := []string{"blame", "--porcelain", "-L", fmt.Sprintf("%d,%d", max(1, line-blameReach), line+blameReach)}
	switch {
	case s.head != "" && s.base != "":
		args = append(args, s.base+".."+s.head)
	case s.head != "":
		args = append(args, s.head)
	case s.base != "":
		args = append(args, s.base+"..") // the work tree, back to the base
	}
	out, err := source.RunGit(s.top, append(args, "--", name)...)
	if err != nil {
		// -L past the end of the file: the file is shorter than the reach.
		args[3] = fmt.Sprintf("%d,", max(1, line-blameReach))
		if out, err = source.RunGit(s.top, append(args, "--", name)...); err != nil {
			return ""
		}
	}
	who := nearestAuthor(out, line, says)
	if who == uncommitted {
		return s.ident()
	}
	return who
}

// uncommitted is what nearestAuthor says of a line no commit holds yet.
const uncommitted = "\x00uncommitted"

// nearestAuthor reads git blame --porcelain output: the author ("Name
// <mail>") of the line nearest to line whose text holds says.
func nearestAuthor(out []byte, line int, says string) string {
	authors := map[string]string{}
	var sha, best string
	var final int
	bestDist := -1
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		text := sc.Text()
		switch {
		case strings.HasPrefix(text, "\t"):
			d := max(final-line, line-final)
			if strings.Contains(text, says) && (bestDist < 0 || d < bestDist) {
				best, bestDist = sha, d
			}
		case strings.HasPrefix(text, "author "):
			authors[sha] = strings.TrimPrefix(text, "author ")
		case strings.HasPrefix(text, "author-mail "):
			authors[sha] += " " + strings.TrimPrefix(text, "author-mail ")
		default:
			// "<sha> <orig line> <final line> [<lines>]" starts each line.
			if f := strings.Fields(text); len(f) >= 3 && len(f[0]) >= 40 {
				sha = f[0]
				final, _ = strconv.Atoi(f[2])
			}
		}
	}
	if best == "" {
		return ""
	}
	if strings.Trim(best, "0") == "" {
		return uncommitted
	}
	return authors[best]
}
