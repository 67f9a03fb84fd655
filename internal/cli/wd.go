package cli

import "path/filepath"

// abs names a file argument from the injected working directory: a relative
// name is the user's, written from where they stand, not from wherever the
// process happens to run. Messages keep showing the name as written.
func (e *Env) abs(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	wd, err := e.Getwd()
	if err != nil {
		return p
	}
	return filepath.Join(wd, p)
}
