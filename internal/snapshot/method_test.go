package snapshot

import (
	"testing"

	"github.com/dbmem/dbmem/internal/capture"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/pagecost"
)

// TestResolveMethod: "" keeps the Pss switch; a recorded or replayed
// snapshot cannot use the fast path.
func TestResolveMethod(t *testing.T) {
	live, tree := linux.DefaultFS(), capture.TreeFS("/nonexistent")
	tapped := live
	tapped.Tap = capture.NewRecorder()
	for _, tc := range []struct {
		name string
		o    Options
		want pagecost.Choice
	}{
		{"old Pss switch on", Options{FS: live, Pss: true}, pagecost.ChoiceSmaps},
		{"old Pss switch off", Options{FS: live}, pagecost.ChoiceStatus},
		{"auto live", Options{FS: live, Method: pagecost.ChoiceAuto}, pagecost.ChoiceAuto},
		{"fast live", Options{FS: live, Method: pagecost.ChoiceFast, Pss: true}, pagecost.ChoiceFast},
		{"auto replayed", Options{FS: tree, Method: pagecost.ChoiceAuto}, pagecost.ChoiceSmaps},
		{"fast replayed", Options{FS: tree, Method: pagecost.ChoiceFast}, pagecost.ChoiceStatus},
		{"auto recorded", Options{FS: tapped, Method: pagecost.ChoiceAuto}, pagecost.ChoiceSmaps},
		{"smaps recorded", Options{FS: tapped, Method: pagecost.ChoiceSmaps}, pagecost.ChoiceSmaps},
	} {
		if got := resolveMethod(tc.o); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
