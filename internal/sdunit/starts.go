package sdunit

import (
	"path"
	"strings"
)

// Starts says whether the unit's ExecStart (its files under root, merged as
// systemd does) runs one of programs: "pg_ctlcluster", "mariadbd" ...
func Starts(root, unit string, programs ...string) bool {
	u, err := Resolve(root, unit)
	if err != nil {
		return false
	}
	a, ok := u.Get("ExecStart")
	if !ok {
		return false
	}
	for _, f := range strings.Fields(a.Value) {
		for _, p := range programs {
			if path.Base(strings.TrimLeft(f, "-@+!:")) == p {
				return true
			}
		}
	}
	return false
}
