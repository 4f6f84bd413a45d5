package cli

import (
	"bytes"
	"context"
	"runtime/debug"
	"testing"
)

func TestDescribeBuild(t *testing.T) {
	rev := debug.BuildSetting{Key: "vcs.revision", Value: "a2bb4e2f0c9d1e2f3a4b5c6d7e8f9a0b1c2d3e4f"}
	dirty := debug.BuildSetting{Key: "vcs.modified", Value: "true"}
	clean := debug.BuildSetting{Key: "vcs.modified", Value: "false"}
	for _, tc := range []struct {
		info *debug.BuildInfo
		want string
	}{
		{nil, "dev"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "dev"},
		{&debug.BuildInfo{Main: debug.Module{Version: "v0.4.1"}, Settings: []debug.BuildSetting{rev}}, "v0.4.1"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{rev, clean}}, "dev-a2bb4e2f0c9d"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{rev, dirty}}, "dev-a2bb4e2f0c9d-dirty"},
	} {
		if got := describeBuild(tc.info); got != tc.want {
			t.Errorf("describeBuild(%+v) = %q, want %q", tc.info, got, tc.want)
		}
	}
}

// TestVersionSetAtBuildTimeWins: a version set with -ldflags -X is what
// --version prints, over the build information.
func TestVersionSetAtBuildTimeWins(t *testing.T) {
	old := Version
	t.Cleanup(func() { Version = old })
	Version = "v9.9.9-test"
	var out, errOut bytes.Buffer
	if code := Run(context.Background(), []string{"--version"}, nil, &out, &errOut); code != ExitOK || out.String() != "dbmem version v9.9.9-test\n" {
		t.Errorf("--version: exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
}
