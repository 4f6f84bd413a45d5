package apply

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/render"
)

// RefusedError is returned by Run for a plan with refusals: nothing was
// changed.
type RefusedError struct{ Refusals []Refusal }

func (e *RefusedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "refused %d change(s) that would make the host worse; nothing was changed", len(e.Refusals))
	for _, r := range e.Refusals {
		b.WriteString("\n  " + r.String())
	}
	return b.String()
}

// VerifyError is a value the kernel did not take as written.
type VerifyError struct {
	Change Change
	Msg    string
}

func (e *VerifyError) Error() string { return e.Msg }

func verifyError(c Change) error {
	if !render.IsPool(c.Setting) {
		return &VerifyError{c, fmt.Sprintf("%s: wrote %q to %s, the kernel reads back %q", c.Setting.Name, c.New, c.Path, c.Got)}
	}
	want, _ := strconv.ParseUint(c.New, 10, 64)
	got, _ := strconv.ParseUint(c.Got, 10, 64)
	return &VerifyError{c, fmt.Sprintf("%s: asked the kernel for %d huge pages, it could allocate only %d "+
		"(%d short): free memory is too fragmented (or too scarce) for more pages of this size now. "+
		"Fix: compact memory and retry (echo 1 > /proc/sys/vm/compact_memory), or allocate the pool at boot, "+
		"before memory fragments (keep it in /etc/sysctl.d and reboot, or hugepages=%d on the kernel command line)",
		c.Setting.Name, want, got, want-min(got, want), want)}
}
