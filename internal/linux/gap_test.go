package linux

import (
	"errors"
	"fmt"
	iofs "io/fs"
	"syscall"
	"testing"
)

// TestGapKind: a gap's kind comes from the error's type, whatever its
// message says, and decisions (dropGone) read the kind.
func TestGapKind(t *testing.T) {
	for _, c := range []struct {
		err  error
		want GapKind
	}{
		{fmt.Errorf("read /proc/1/smaps_rollup: %w", iofs.ErrPermission), GapDenied},
		{fmt.Errorf("open /proc/1/stat: %w", iofs.ErrNotExist), GapAbsent},
		{syscall.ESRCH, GapAbsent},
		{fmt.Errorf("read /proc/1/maps: %w after 2s", ErrReadTimeout), GapTimeout},
		{errors.New("permission: not present"), GapFailed}, // words are not a kind
	} {
		g := gapFor("x", c.err)
		if g.Kind != c.want || !g.Is(c.want) {
			t.Errorf("%v: kind %q, want %q", c.err, g.Kind, c.want)
		}
	}
	if !(Gap{What: "x", Why: "not present"}).Is(GapFailed) {
		t.Error("a gap built without a kind is not failed")
	}
	gaps := dropGone([]Gap{
		{What: "a", Why: "anything", Kind: GapAbsent},
		{What: "b", Why: "not present (said by someone else)"},
		{What: "c", Why: "x", Kind: GapDenied},
	})
	if len(gaps) != 2 || gaps[0].What != "b" || gaps[1].What != "c" {
		t.Errorf("dropGone kept %v, want b and c", gaps)
	}
}
