package cli

import (
	"runtime/debug"
	"testing"
)

func TestVersionOf(t *testing.T) {
	for _, c := range []struct {
		bi   *debug.BuildInfo
		want string
	}{
		{nil, noCommit},
		{&debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}}, "v1.4.0"},
		// go run, or a build with -buildvcs=false: no commit to print, and
		// it says why rather than printing a bare "devel".
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, noCommit},
		// go build in a checkout of a commit no tag names (Go 1.24 and later
		// stamp a pseudo-version): the commit, not v0.0.0-....
		{&debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261205120936-4fbb69becfac"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "4fbb69becfac0dc50ce7d37a9af26e4224e1d503"}}}, "devel (4fbb69becfac)"},
		{&debug.BuildInfo{Main: debug.Module{Version: "v0.1.1-0.20261205120936-4fbb69becfac+dirty"}}, "devel (4fbb69becfac, modified)"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "3f2a1c9e8d7c6b5a4f3e"}, {Key: "vcs.modified", Value: "true"}}}, "devel (3f2a1c9e8d7c, modified)"},
	} {
		if got := versionOf(c.bi); got != c.want {
			t.Errorf("versionOf(%+v) = %q, want %q", c.bi, got, c.want)
		}
	}
}
