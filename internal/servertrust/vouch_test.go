package servertrust

import (
	"strings"
	"testing"
)

// TestVouch: only an instance whose process, binary and data directory
// are a trusted account's is trusted; each other case names what is not,
// and --server-account appears only where it would help.
func TestVouch(t *testing.T) {
	pg := Account{UID: 101, Name: "postgres"}
	nobody := Account{UID: 65534, Name: "nobody"}
	root := Account{UID: 0, Name: "root"}
	file := func(a Account, perm uint32) *FileOwner { return &FileOwner{Path: "/x", Owner: a, Perm: perm} }
	for _, c := range []struct {
		name string
		o    *Ownership
		p    Policy
		want string // "" trusted, else a part of Why; "unknown" for a nil ownership
	}{
		{"not recorded", nil, Policy{}, "unknown"},
		{"package server", &Ownership{Process: pg, Binary: file(root, 0o755), DataDir: file(pg, 0o700)}, Policy{}, ""},
		{"binary and data unchecked", &Ownership{Process: pg, Unchecked: []string{"binary: permission denied"}}, Policy{}, ""},
		{"nobody's fake", &Ownership{Process: nobody, Binary: file(nobody, 0o755), DataDir: file(nobody, 0o755)}, Policy{},
			"run by nobody, not a trusted server account (trusted: postgres, "},
		{"nobody trusted", &Ownership{Process: nobody, Binary: file(nobody, 0o755), DataDir: file(nobody, 0o700)}, Policy{Accounts: []string{"nobody"}}, ""},
		{"nobody's binary", &Ownership{Process: pg, Binary: file(nobody, 0o755), DataDir: file(pg, 0o700)}, Policy{}, "its binary /x is owned by nobody"},
		{"writable binary", &Ownership{Process: pg, Binary: file(root, 0o777), DataDir: file(pg, 0o700)}, Policy{}, "may be written by others (mode 0777)"},
		{"another's data", &Ownership{Process: pg, Binary: file(root, 0o755), DataDir: file(nobody, 0o700)}, Policy{}, "owned by nobody, not by postgres"},
		{"uids differ", &Ownership{Process: pg, Failed: []string{"pid 9 runs with real uid 0 and effective uid 101"}}, Policy{}, "real uid 0"},
	} {
		v := c.p.Vouch(c.o, "postgres")
		switch {
		case c.want == "unknown" && (v.Known || v.Trusted):
			t.Errorf("%s: %+v, want unknown", c.name, v)
		case c.want == "" && (!v.Known || !v.Trusted || v.Why != ""):
			t.Errorf("%s: %+v, want trusted", c.name, v)
		case c.want != "" && c.want != "unknown" && (!v.Known || v.Trusted || !strings.Contains(v.Why, c.want)):
			t.Errorf("%s: %+v, want untrusted: %q", c.name, v, c.want)
		}
		if hint := strings.Contains(v.Why, "--server-account"); hint != (c.name == "nobody's fake") {
			t.Errorf("%s: --server-account hint %v in %q", c.name, hint, v.Why)
		}
	}
}
