package servertrust

import (
	"fmt"
	"strings"
)

// Verdict says whether an instance may shape what dbmem advises for the
// whole host (the huge page pool, overcommit): only when its process, its
// binary and its data directory are a trusted server account's.
type Verdict struct {
	// Known is false when who owns the instance was not read (a capture
	// from an older dbmem, a --proc tree): it is then taken as captured.
	Known   bool
	Trusted bool
	// Why names what is not trusted and how to trust it ("" when trusted).
	Why string
}

// Vouch judges o by p, defaults being the engine's own accounts
// ("postgres", "mysql"). A nil o is unknown. Unchecked items (a binary
// that could not be looked at) do not count against the instance; a
// contradiction, an untrusted process account, a binary that is neither
// root's nor a trusted account's or that others may write, or a data
// directory that is not the process account's do.
func (p Policy) Vouch(o *Ownership, defaults ...string) Verdict {
	if o == nil {
		return Verdict{}
	}
	var why []string
	why = append(why, o.Failed...)
	trusted := p.Trusted(o.Process, defaults...)
	if !trusted {
		why = append(why, fmt.Sprintf("run by %s, not a trusted server account (trusted: %s)", o.Process, p.TrustedList(defaults...)))
	}
	if b := o.Binary; b != nil {
		if b.Owner.UID != 0 && !p.Trusted(b.Owner, defaults...) {
			why = append(why, fmt.Sprintf("its binary %s is owned by %s", b.Path, b.Owner))
		}
		if b.Perm&0o022 != 0 {
			why = append(why, fmt.Sprintf("its binary %s may be written by others (mode %04o)", b.Path, b.Perm))
		}
	}
	if d := o.DataDir; d != nil && d.Owner.UID != o.Process.UID {
		why = append(why, fmt.Sprintf("its data directory %s is owned by %s, not by %s, which runs it", d.Path, d.Owner, o.Process))
	}
	if len(why) == 0 {
		return Verdict{Known: true, Trusted: true}
	}
	s := strings.Join(why, "; ")
	if !trusted {
		s += fmt.Sprintf(" (--server-account %s trusts it)", o.Process.Flag())
	}
	return Verdict{Known: true, Why: s}
}

// Flag is how --server-account names a: its name, else its uid.
func (a Account) Flag() string {
	if a.Name != "" {
		return a.Name
	}
	return fmt.Sprint(a.UID)
}
