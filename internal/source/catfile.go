package source

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"strings"
)

// Cat is a running `git cat-file` batch process: one request a line to In,
// the answers read from Out, in order.
type Cat struct {
	cmd    *exec.Cmd
	In     io.WriteCloser
	Out    *bufio.Reader
	stderr bytes.Buffer
	// exited is set once Ask has waited for a process that went away.
	exited bool
}

// StartCat starts `git cat-file` with args (a batch mode) in the
// repository at dir. quotepath=off keeps non-ASCII names as they are.
func StartCat(dir string, args ...string) (*Cat, error) {
	cmd := exec.Command("git", append([]string{"-c", "core.quotepath=off", "cat-file"}, args...)...)
	cmd.Dir = dir
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	c := &Cat{cmd: cmd, In: in, Out: bufio.NewReader(out)}
	cmd.Stderr = &c.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("git cat-file: %v", err)
	}
	return c, nil
}

// Ask sends one request and returns the header line of its answer; the
// content, if any, follows in Out. When cat-file has gone (a git older
// than 2.36 refuses --batch-command and exits at once), the error carries
// what git said rather than a bare EOF.
func (c *Cat) Ask(request string) (string, error) {
	_, err := fmt.Fprintln(c.In, request)
	if err == nil {
		var header string
		if header, err = c.Out.ReadString('\n'); err == nil {
			return header, nil
		}
	}
	c.In.Close()
	c.cmd.Wait() // git's stderr is whole once it has exited
	c.exited = true
	if said := strings.TrimSpace(c.stderr.String()); said != "" {
		said, _, _ = strings.Cut(said, "\n")
		return "", fmt.Errorf("git cat-file: %v: %s (contractlint needs git 2.36 or later)", err, said)
	}
	return "", fmt.Errorf("git cat-file: %v", err)
}

// Close ends the process: it exits once its input ends.
func (c *Cat) Close() error {
	if c.exited {
		return nil
	}
	c.In.Close()
	return c.cmd.Wait()
}
