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
		{nil, "devel"},
		{&debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}}, "v1.4.0"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "devel"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "3f2a1c9e8d7c6b5a4f3e"}, {Key: "vcs.modified", Value: "true"}}}, "devel (3f2a1c9e8d7c, modified)"},
	} {
		if got := versionOf(c.bi); got != c.want {
			t.Errorf("versionOf(%+v) = %q, want %q", c.bi, got, c.want)
		}
	}
}
