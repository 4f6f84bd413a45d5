package snapshot

import (
	"testing"

	"github.com/dbmem/dbmem/internal/capture"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/measure"
)

// TestResolveMethod: "" reads status; a recorded or replayed
// snapshot cannot use the fast path.
func TestResolveMethod(t *testing.T) {
	live, tree := linux.DefaultFS(), capture.TreeFS("/nonexistent")
	tapped := live
	tapped.Tap = capture.NewRecorder()
	for _, tc := range []struct {
		name string
		o    Options
		want measure.Method
	}{
		{"default", Options{FS: live}, measure.Status},
		{"smaps live", Options{FS: live, Method: measure.Smaps}, measure.Smaps},
		{"auto live", Options{FS: live, Method: measure.Auto}, measure.Auto},
		{"fast live", Options{FS: live, Method: measure.Fast}, measure.Fast},
		{"auto replayed", Options{FS: tree, Method: measure.Auto}, measure.Smaps},
		{"fast replayed", Options{FS: tree, Method: measure.Fast}, measure.Status},
		{"auto recorded", Options{FS: tapped, Method: measure.Auto}, measure.Smaps},
		{"smaps recorded", Options{FS: tapped, Method: measure.Smaps}, measure.Smaps},
	} {
		if got := resolveMethod(tc.o); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
