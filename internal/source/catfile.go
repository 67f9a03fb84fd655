package source

import (
	"bufio"
	"fmt"
	"io"
	"os/exec"
)

// Cat is a running `git cat-file` batch process: one request a line to In,
// the answers read from Out, in order.
type Cat struct {
	cmd *exec.Cmd
	In  io.WriteCloser
	Out *bufio.Reader
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
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("git cat-file: %v", err)
	}
	return &Cat{cmd: cmd, In: in, Out: bufio.NewReader(out)}, nil
}

// Close ends the process: it exits once its input ends.
func (c *Cat) Close() error {
	c.In.Close()
	return c.cmd.Wait()
}
