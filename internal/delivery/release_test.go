package delivery

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// runnerPlatforms are the runners the release builds for: RUNNER_OS and
// RUNNER_ARCH as a runner sets them, and the GOOS_GOARCH in the asset name.
var runnerPlatforms = []struct{ os, arch, target string }{
	{"Linux", "X64", "linux_amd64"}, {"Linux", "ARM64", "linux_arm64"},
	{"macOS", "X64", "darwin_amd64"}, {"macOS", "ARM64", "darwin_arm64"},
	{"Windows", "X64", "windows_amd64"},
}

// step is the step of steps with this name.
func step(t *testing.T, steps []actionStep, name string) actionStep {
	t.Helper()
	for _, st := range steps {
		if st.Name == name {
			return st
		}
	}
	t.Fatalf("no step named %q", name)
	return actionStep{}
}

var buildCmd = regexp.MustCompile(`CGO_ENABLED=0 go build (.*?) -o `)

// buildFlags are the flags of the one `CGO_ENABLED=0 go build` in a script.
func buildFlags(t *testing.T, script string) string {
	t.Helper()
	m := buildCmd.FindAllStringSubmatch(script, -1)
	if len(m) != 1 {
		t.Fatalf("want one `CGO_ENABLED=0 go build ... -o` in:\n%s", script)
	}
	return m[0][1]
}

// release puts a release in the fake gh's store: the archive holding exe
// as contractlint, and a checksums file giving it sum ("" for its own).
func release(t *testing.T, tmp, tag, target, exe, sum string) {
	dir := filepath.Join(tmp, "releases", tag)
	pack := filepath.Join(tmp, "pack-"+tag)
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	executable(t, filepath.Join(pack, "contractlint"), string(b))
	asset := "contractlint_" + target + ".tar.gz"
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	must(t, pack, nil, "tar", "-czf", filepath.Join(dir, asset), "contractlint")
	if sum == "" {
		a, err := os.ReadFile(filepath.Join(dir, asset))
		if err != nil {
			t.Fatal(err)
		}
		sum = fmt.Sprintf("%x", sha256.Sum256(a))
	}
	write(t, filepath.Join(dir, "checksums.txt"), sum+"  "+asset+"\n")
}

// releaseDist is the dist directory of the release's own build
// (.ci/release-build, what release.yml runs) for this machine's platform, in
// a clean clone of this repository tagged v0.0.1: the archive and
// checksums.txt a release of that tag publishes, the binary reporting the tag
// as its version (the script checks it). .ci/parts makes it before the
// tests and names it in CONTRACTLINT_RELEASE_DIST, so that no test compiles
// a release.
func releaseDist(t *testing.T) string {
	t.Helper()
	dist := part(t, "CONTRACTLINT_RELEASE_DIST")
	if _, err := os.Stat(filepath.Join(dist, "checksums.txt")); err != nil {
		t.Fatalf("CONTRACTLINT_RELEASE_DIST=%s is no release build's output: %v", dist, err)
	}
	return dist
}

// TestActionRelease runs the action pinned to a release tag: it installs
// the release's binary without compiling, and on any failure warns and
// builds, never running an archive whose checksum does not match.
func TestActionRelease(t *testing.T) {
	need(t, "bash")
	need(t, "jq")
	need(t, "tar")
	top := repoTop(t)
	act := readAction(t, top)
	i := slices.IndexFunc(runnerPlatforms, func(p struct{ os, arch, target string }) bool {
		return p.target == runtime.GOOS+"_"+runtime.GOARCH
	})
	if i < 0 || runtime.GOOS != "linux" {
		t.Skipf("the fake runner plays a Linux runner; this is %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	plat := runnerPlatforms[i]
	// The fake runner skips uses: steps; Go is set up exactly when it builds.
	build := step(t, act.Runs.Steps, "Build contractlint")
	for _, st := range act.Runs.Steps {
		if strings.HasPrefix(st.Uses, "actions/setup-go@") && st.If != build.If {
			t.Errorf("setup-go runs if %q, the build if %q", st.If, build.If)
		}
	}
	dist := releaseDist(t)
	good := filepath.Join(dist, runtime.GOOS+"-"+runtime.GOARCH, "contractlint")
	if v := strings.TrimSpace(must(t, dist, nil, good, "--version")); v != "contractlint version v0.0.1" {
		t.Fatalf("the release build's binary says %q", v)
	}
	// Run, this would leave a mark: the action must not run it.
	marks := t.TempDir()
	marked, ran := filepath.Join(marks, "contractlint"), filepath.Join(marks, "ran")
	write(t, marked, fmt.Sprintf("#!/bin/sh\ntouch %q\necho contractlint version v0.0.1\n", ran))

	for _, c := range []struct {
		name, ref  string
		relTag     string // the release in the store ("" none)
		exe, sum   string
		want       string // "" installed from the release; else the step's log says this and the action builds
		warnWanted bool
	}{
		{name: "good asset", ref: "v0.0.1", relTag: "v0.0.1", exe: good},
		{name: "bad checksum", ref: "v0.0.1", relTag: "v0.0.1", exe: marked, sum: strings.Repeat("0", 64),
			want: "does not match checksums.txt", warnWanted: true},
		{name: "wrong version", ref: "v0.0.2", relTag: "v0.0.2", exe: good,
			want: `reports "contractlint version v0.0.1"`, warnWanted: true},
		{name: "no release", ref: "v9.9.9", want: "could not download", warnWanted: true},
		{name: "commit", ref: strings.Repeat("3f2a1c9e", 5), want: "is not a release tag"},
	} {
		t.Run(c.name, func(t *testing.T) {
			os.Remove(ran)
			tmp := t.TempDir()
			work, base := pullRequest(t, tmp)
			r := newFakeRunner(t, act, top, work, tmp, base)
			r.env = append(r.env, "RUNNER_OS="+plat.os, "RUNNER_ARCH="+plat.arch)
			r.ctx["github.action_ref"] = c.ref
			switch {
			case c.exe == good && c.relTag == c.ref:
				// The release exactly as the release build left it.
				rel := filepath.Join(tmp, "releases", c.relTag)
				must(t, tmp, nil, "mkdir", "-p", rel)
				for _, f := range []string{"contractlint_" + plat.target + ".tar.gz", "checksums.txt"} {
					must(t, tmp, nil, "cp", filepath.Join(dist, f), rel)
				}
			case c.relTag != "":
				release(t, tmp, c.relTag, plat.target, c.exe, c.sum)
			}
			stdout, status := r.run(act)
			if status != 1 || !strings.Contains(stdout, "field-redefined") {
				t.Errorf("the review step exited %d, want 1 with the finding:\n%s", status, stdout)
			}
			log := r.log.String()
			goCalls, _ := os.ReadFile(r.goLog)
			built := strings.Contains(string(goCalls), "go build")
			ghCalls, _ := os.ReadFile(r.ghLog)
			asked := strings.Contains(string(ghCalls), "gh release download "+c.ref+" --repo shop/contractlint")
			if c.want == "" {
				if built || !strings.Contains(log, "installed release "+c.ref) {
					t.Errorf("want the release installed and nothing compiled; go calls:\n%s\nlog:\n%s", goCalls, log)
				}
				installed, _ := os.ReadFile(r.binary() + ".real")
				if want, _ := os.ReadFile(good); string(installed) != string(want) {
					t.Error("the installed contractlint is not the release's binary")
				}
				return
			}
			if !built || !strings.Contains(log, c.want) || strings.Contains(log, "::warning") != c.warnWanted {
				t.Errorf("want the step to say %q (warning: %v) and contractlint built; go calls:\n%s\nlog:\n%s", c.want, c.warnWanted, goCalls, log)
			}
			if asked != (c.ref[0] == 'v') {
				t.Errorf("ref %s: asked gh for the release: %v; gh calls:\n%s", c.ref, asked, ghCalls)
			}
			if _, err := os.Stat(ran); err == nil {
				t.Error("the action ran a binary whose checksum did not match")
			}
		})
	}
}

// TestReleaseWorkflow checks that a release ships what the action looks
// for: its build step's flags are the action's (so the download is the
// binary the build would make), and the action's download step, on each
// runner platform, finds, verifies and installs the archive the release's
// own packing step made (with a go that writes a stand-in binary).
func TestReleaseWorkflow(t *testing.T) {
	need(t, "bash")
	need(t, "tar")
	need(t, "sha256sum")
	top := repoTop(t)
	act := readAction(t, top)
	var wf struct {
		Permissions map[string]string `yaml:"permissions"`
		Jobs        map[string]struct {
			Permissions map[string]string `yaml:"permissions"`
			Steps       []actionStep      `yaml:"steps"`
		} `yaml:"jobs"`
	}
	b, err := os.ReadFile(filepath.Join(top, ".github", "workflows", "release.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatal(err)
	}
	job, ok := wf.Jobs["release"]
	if !ok || len(wf.Jobs) != 1 {
		t.Fatalf("want one job, release: %v", wf.Jobs)
	}
	if len(wf.Permissions) != 1 || wf.Permissions["contents"] != "write" || job.Permissions != nil {
		t.Errorf("permissions %v (job %v), want only contents: write", wf.Permissions, job.Permissions)
	}
	pack, upload := step(t, job.Steps, "Build and pack"), step(t, job.Steps, "Upload")
	script, err := os.ReadFile(filepath.Join(top, ".ci", "release-build"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(pack.Run, ".ci/release-build \"$TAG\"") {
		t.Errorf("the release's build step does not run .ci/release-build with the tag:\n%s", pack.Run)
	}
	if got, want := buildFlags(t, string(script)), buildFlags(t, step(t, act.Runs.Steps, "Build contractlint").Run); got != want {
		t.Errorf("the release builds with %s, the action with %s", got, want)
	}

	tmp := t.TempDir()
	src, tools := filepath.Join(tmp, "src"), filepath.Join(tmp, "tools")
	goLog, ghLog := filepath.Join(tmp, "go.log"), filepath.Join(tmp, "gh.log")
	executable(t, filepath.Join(tools, "go"), `#!/usr/bin/env bash
[ "$1" = env ] && exec "$REAL_GO" "$@"
echo "CGO_ENABLED=$CGO_ENABLED $GOOS/$GOARCH go $*" >> "$FAKE_GO_LOG"
while [ $# -gt 0 ]; do [ "$1" = -o ] && out="$2"; shift; done
printf '#!/bin/sh\necho "contractlint version %s"\n' "$TAG" > "$out"
chmod +x "$out"
`)
	executable(t, filepath.Join(tools, "gh"), fakeGH)
	executable(t, filepath.Join(src, ".ci", "release-build"), string(script))
	env := []string{"TAG=v0.0.1", "REAL_GO=" + need(t, "go"), "FAKE_GO_LOG=" + goLog, "FAKE_GH_LOG=" + ghLog, "GH_TOKEN=fake-token",
		"FAKE_GH_RELEASES=" + filepath.Join(tmp, "releases"), "PATH=" + tools + string(os.PathListSeparator) + os.Getenv("PATH")}
	sh := func(dir, script string, env []string) string {
		return must(t, dir, env, "bash", "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", script)
	}
	sh(src, pack.Run, env)
	calls, _ := os.ReadFile(goLog)
	for _, p := range runnerPlatforms {
		if want := "CGO_ENABLED=0 " + strings.Replace(p.target, "_", "/", 1) + " go build"; !strings.Contains(string(calls), want) {
			t.Errorf("the release does not build %q; go calls:\n%s", want, calls)
		}
	}
	dist := filepath.Join(src, "dist")
	sh(dist, "sha256sum --strict -c checksums.txt", nil)
	sh(src, upload.Run, env)
	up, _ := os.ReadFile(ghLog)
	if !strings.Contains(string(up), "gh release upload v0.0.1 --clobber") || !strings.Contains(string(up), "dist/checksums.txt") {
		t.Errorf("the upload step does not upload the checksums to release v0.0.1; gh calls:\n%s", up)
	}

	// The release as the action sees it: the files the upload step named.
	rel := filepath.Join(tmp, "releases", "v0.0.1")
	if err := os.MkdirAll(rel, 0o755); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dist, "*"))
	for _, f := range files {
		if base := filepath.Base(f); strings.Contains(string(up), "dist/"+base) {
			must(t, tmp, nil, "cp", f, filepath.Join(rel, base))
		}
	}
	download := step(t, act.Runs.Steps, "Download contractlint release").Run
	for _, p := range runnerPlatforms {
		run := t.TempDir()
		out := filepath.Join(run, "output")
		sh(run, download, append(env, "ACTION_REF=v0.0.1", "ACTION_REPOSITORY=shop/contractlint",
			"RUNNER_OS="+p.os, "RUNNER_ARCH="+p.arch, "RUNNER_TEMP="+run, "GITHUB_OUTPUT="+out,
			"CONTRACTLINT="+filepath.Join(run, "contractlint")))
		if o, _ := os.ReadFile(out); string(o) != "installed=true\n" {
			t.Errorf("%s/%s: the action did not install the release's archive (outputs %q)", p.os, p.arch, o)
		}
	}
}
