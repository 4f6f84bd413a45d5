package exporter

import (
	"runtime"
	"runtime/debug"
)

// collectBuildInfo sends dbmem_build_info: the version given, the VCS
// revision Go recorded (empty, that is absent, when it recorded none) and
// the toolchain.
func collectBuildInfo(out *sink, version string) {
	var rev string
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" {
				rev = s.Value
			}
		}
	}
	out.gauge(descBuild, 1, version, rev, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
