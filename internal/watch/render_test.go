package watch

import (
	"testing"

	"github.com/dbmem/dbmem/internal/inert"
)

// TestOwnColoursSurviveTheInertFilter: every colour watch paints with is
// one the screen's inert filter lets through (a colour it does not know
// shows as the text "\x1b[36m" on every finding line).
func TestOwnColoursSurviveTheInertFilter(t *testing.T) {
	for _, c := range []string{sgrBold, sgrReverse, sgrRed, sgrYellow, sgrCyan} {
		in := "\x1b[" + c + "mtext\x1b[0m"
		if got := inert.Output(in, true); got != in {
			t.Errorf("colour %s: the screen gets %q, want %q", c, got, in)
		}
	}
}
