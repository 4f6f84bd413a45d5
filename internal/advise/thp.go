package advise

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dbmem/dbmem/internal/units"
)

// thpVerdict is what the engines present make of
// transparent_hugepage/enabled = current.
type thpVerdict struct {
	// Unmet are the engines whose advice current does not meet.
	Unmet []Engine
	// Want and Defrag are the values every engine accepts; "" when the
	// engines disagree (MongoDB 8 beside PostgreSQL) or one's advice is
	// unknown: the setting is then kept.
	Want, Defrag string
	// Against are the engines that would not accept the value the others
	// want, or whose advice is unknown: they block a change.
	Against []Engine
	Why     string
}

// decideTHP applies every engine's advice to the current value.
func decideTHP(engines []Engine, current string) thpVerdict {
	var v thpVerdict
	var whys []string
	for _, e := range engines {
		a := e.THP()
		if !a.Accepts(current) {
			v.Unmet = append(v.Unmet, e)
			if v.Want == "" {
				v.Want, v.Defrag = a.Want, a.Defrag
			}
			whys = append(whys, a.Why)
		}
	}
	if len(v.Unmet) == 0 {
		return v
	}
	for _, e := range engines {
		if a := e.THP(); a.Want == "" || !slices.Contains(a.Accept, v.Want) {
			v.Against = append(v.Against, e)
		}
	}
	if len(v.Against) > 0 {
		v.Want, v.Defrag = "", ""
	}
	v.Why = strings.Join(units.Unique(whys), "; ")
	return v
}

// engineNames is "postgresql 12 and redis".
func engineNames(es []Engine) string {
	var names []string
	for _, e := range es {
		names = append(names, e.String())
	}
	return joinAnd(units.Unique(names))
}

// thpAdvises is "advise never (or madvise)" or "advises always".
func thpAdvises(es []Engine, want string) string {
	verb := "advise"
	if len(es) == 1 {
		verb = "advises"
	}
	if want == "never" {
		return fmt.Sprintf("%s never (or madvise)", verb)
	}
	return fmt.Sprintf("%s %s", verb, want)
}
