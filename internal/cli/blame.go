package cli

import (
	"bufio"
	"bytes"
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
	out, err := s.blame(name)
	if err != nil {
		return ""
	}
	who := nearestAuthor(out, line, says)
	if who == uncommitted {
		return s.ident()
	}
	return who
}

// blame is git blame --porcelain of the whole of name over the compared
// range, asked of git once a file per run: a file often holds several
// acceptances, and a git process costs more than blaming a file's few
// hundred lines.
func (s *reviewSources) blame(name string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b, ok := s.blames[name]; ok {
		return b.out, b.err
	}
	args := []string{"blame", "--porcelain"}
	switch {
	case s.head != "" && s.base != "":
		args = append(args, s.base+".."+s.head)
	case s.head != "":
		args = append(args, s.head)
	case s.base != "":
		args = append(args, s.base+"..") // the work tree, back to the base
	}
	out, err := source.RunGit(s.top, append(args, "--", name)...)
	if s.blames == nil {
		s.blames = map[string]blamed{}
	}
	s.blames[name] = blamed{out, err}
	return out, err
}

// blamed is one file's git blame output, or why git gave none.
type blamed struct {
	out []byte
	err error
}

// uncommitted is what nearestAuthor says of a line no commit holds yet.
const uncommitted = "\x00uncommitted"

// nearestAuthor reads git blame --porcelain output: the author ("Name
// <mail>") of the line nearest to line, at most blameReach lines away,
// whose text holds says.
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
			if d <= blameReach && strings.Contains(text, says) && (bestDist < 0 || d < bestDist) {
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
