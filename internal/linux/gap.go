package linux

import "fmt"

// Gap is something dbmem could not read: what is missing and why. Reports
// list gaps so that a partial answer is never mistaken for a complete one.
type Gap struct {
	What string `json:"what"`
	Why  string `json:"why"`
}

func (g Gap) String() string { return fmt.Sprintf("%s: %s", g.What, g.Why) }

func gapFor(what string, err error) Gap {
	switch {
	case IsDenied(err):
		return Gap{What: what, Why: "permission denied (run as root)"}
	case IsGone(err):
		return Gap{What: what, Why: "not present on this kernel or system"}
	}
	return Gap{What: what, Why: err.Error()}
}
