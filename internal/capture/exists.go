package capture

import (
	"os"

	"github.com/dbmem/dbmem/internal/linux"
)

// ExistenceMarkers are host files whose mere existence a reader checks
// (linux.FS.Exists, which a Tap does not see): the container markers of
// linux.ReadEnvironment.
var ExistenceMarkers = []string{"/.dockerenv", "/run/.containerenv"}

// RecordExistence reads each host path that exists and is a small regular
// file through fs, so that its Tap records it and a replay finds it.
func RecordExistence(fs linux.FS, paths ...string) {
	for _, p := range paths {
		hp := fs.HostPath(p)
		if st, err := os.Stat(hp); err == nil && st.Mode().IsRegular() && st.Size() < 1<<20 {
			fs.ReadFile(hp)
		}
	}
}
