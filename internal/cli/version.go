package cli

import "runtime/debug"

// Version is set at build time with -ldflags "-X .../cli.Version=...".
// Left at "dev", version() asks the build information instead.
var Version = "dev"

// version is the version dbmem reports and writes into the files it
// generates: Version when it was set at build time, else what Go recorded
// of the build (see describeBuild).
func version() string {
	if Version != "dev" {
		return Version
	}
	info, _ := debug.ReadBuildInfo()
	return describeBuild(info)
}

// describeBuild names a build: the module version of `go install
// ...@v1.2.3`, else "dev-" and the first 12 digits of the VCS revision
// (with "-dirty" when the tree had changes), else "dev".
func describeBuild(info *debug.BuildInfo) string {
	if info == nil {
		return "dev"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch {
		case s.Key == "vcs.revision":
			rev = s.Value[:min(len(s.Value), 12)]
		case s.Key == "vcs.modified" && s.Value == "true":
			dirty = "-dirty"
		}
	}
	if rev == "" {
		return "dev"
	}
	return "dev-" + rev + dirty
}
