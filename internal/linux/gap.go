package linux

import (
	"errors"
	"fmt"
)

// Gap is something dbmem could not read: what is missing and why. Reports
// list gaps so that a partial answer is never mistaken for a complete one.
// Decisions about a gap use its Kind, never the words of Why.
type Gap struct {
	What string  `json:"what"`
	Why  string  `json:"why"`
	Kind GapKind `json:"kind,omitempty"`
}

// GapKind is why a gap is there, as a type (node_exporter keeps "not
// available" apart from failures the same way).
type GapKind string

const (
	// GapAbsent: the file or process is not there (not on this kernel,
	// or the process exited).
	GapAbsent GapKind = "absent"
	// GapDenied: the read was refused (not root, hidepid, ptrace checks).
	GapDenied GapKind = "denied"
	// GapTimeout: the read hung and was abandoned.
	GapTimeout GapKind = "timeout"
	// GapFailed: any other failure (a parse error, an I/O error); the
	// kind of gaps built without one.
	GapFailed GapKind = "failed"
)

func (g Gap) String() string { return fmt.Sprintf("%s: %s", g.What, g.Why) }

// Is reports whether the gap is of kind k; a gap without a kind is failed.
func (g Gap) Is(k GapKind) bool {
	if g.Kind == "" {
		return k == GapFailed
	}
	return g.Kind == k
}

// KindOf classifies an error as a gap kind.
func KindOf(err error) GapKind {
	switch {
	case IsDenied(err):
		return GapDenied
	case IsGone(err):
		return GapAbsent
	case errors.Is(err, ErrReadTimeout):
		return GapTimeout
	}
	return GapFailed
}

// gapFor is the gap of what, which err kept dbmem from reading.
func gapFor(what string, err error) Gap {
	switch k := KindOf(err); k {
	case GapDenied:
		return Gap{What: what, Why: "permission denied (run as root)", Kind: k}
	case GapAbsent:
		return Gap{What: what, Why: "not present on this kernel or system", Kind: k}
	default:
		return Gap{What: what, Why: err.Error(), Kind: k}
	}
}
