package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractlint/contractlint/internal/cli"
	"github.com/contractlint/contractlint/internal/gittest"
)

// The repository's URI is in the SARIF report, whether SARIF is the main
// report or an --output-sarif file beside another: origin's URL without
// credentials, or on GitHub the runner's repository. A review whose
// reports name no repository does not ask git for the remote at all.
func TestReviewRepositoryURIOnlyForSARIF(t *testing.T) {
	r := gittest.New(t)
	writeTree(t, r.Dir, map[string][]byte{"api.yaml": []byte("openapi: 3.0.3\ninfo: {title: t, version: \"1\"}\npaths: {}\n")})
	r.Commit(t, "v1", ".")
	r.Git(t, "remote", "add", "origin", "https://user:secret@example.com/shop/api.git")
	review := func(env map[string]string, args ...string) (stdout, trace string) {
		t.Helper()
		log := filepath.Join(t.TempDir(), "trace2")
		t.Setenv("GIT_TRACE2", log)
		var out, errs bytes.Buffer
		e := &cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errs,
			Getenv: func(k string) string { return env[k] }, Getwd: func() (string, error) { return r.Dir, nil }}
		code := cli.Main(append([]string{"review", "--base", "HEAD"}, args...), e)
		os.Unsetenv("GIT_TRACE2")
		if code != cli.ExitOK {
			t.Fatalf("review %q: exit %d\n%s%s", args, code, out.String(), errs.String())
		}
		b, _ := os.ReadFile(log)
		return out.String(), string(b)
	}
	const uri = `"repositoryUri": "https://example.com/shop/api.git"`
	if out, trace := review(nil, "--format", "json"); strings.Contains(trace, " remote -v") || strings.Contains(out, "example.com") {
		t.Errorf("--format json asked git for the remote, or printed it:\n%s", out)
	}
	if out, _ := review(nil, "--format", "sarif"); !strings.Contains(out, uri) {
		t.Errorf("--format sarif does not say %s:\n%s", uri, out)
	}
	sarif := filepath.Join(t.TempDir(), "out.sarif")
	review(nil, "--format", "text", "--output-sarif", sarif)
	if b, err := os.ReadFile(sarif); err != nil || !strings.Contains(string(b), uri) {
		t.Errorf("--output-sarif does not say %s (%v):\n%s", uri, err, b)
	}
	github := map[string]string{"GITHUB_SERVER_URL": "https://github.com/", "GITHUB_REPOSITORY": "shop/api"}
	out, trace := review(github, "--format", "sarif")
	if want := `"repositoryUri": "https://github.com/shop/api"`; !strings.Contains(out, want) || strings.Contains(trace, " remote -v") {
		t.Errorf("on GitHub, SARIF does not say %s, or git was asked for the remote:\n%s", want, out)
	}
}
