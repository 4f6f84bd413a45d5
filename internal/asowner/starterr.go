package asowner

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// startError explains a helper that could not start: EPERM comes from
// any of setgroups, setgid, setuid and execve in the child, so the cause
// is found here (capabilities first, then the binary's mode).
func (r *Runner) startError(a Account, err error) error {
	if !errors.Is(err, os.ErrPermission) {
		return fmt.Errorf("start the helper as OS user %s: %w", a.Name, err)
	}
	if missing := missingCaps(); missing != "" {
		return fmt.Errorf("dbmem lacks %s, which running its helper as OS user %s takes (%w): %s",
			missing, a.Name, err, r.socketHint(a))
	}
	exe, _ := os.Readlink("/proc/self/exe")
	if st, serr := os.Stat(exe); serr == nil && !executableBy(st, a) {
		return fmt.Errorf("OS user %s may not execute dbmem's binary %s (mode %s; make it mode 0755): %w", a.Name, exe, st.Mode().Perm(), err)
	}
	return fmt.Errorf("the kernel refused to start dbmem's helper as OS user %s (%w): with CAP_SETUID and CAP_SETGID and an executable binary, a system call filter or a security module denies setgroups, setgid, setuid or execve", a.Name, err)
}

// socketHint says how a service without CAP_SETUID reaches a helper.
func (r *Runner) socketHint(a Account) string {
	if r.SocketDir == "" {
		return "run dbmem as root with them"
	}
	return fmt.Sprintf("no helper socket %s serves that account (systemctl enable --now dbmem-pg-helper.socket runs the helper as postgres; see docs/security.md for another account), or run dbmem as root with them",
		filepath.Join(r.SocketDir, a.Name+".sock"))
}

// missingCaps names the capabilities among CAP_SETUID and CAP_SETGID that
// this process does not have in its effective set ("" when it has both,
// or when its status cannot be read).
func missingCaps() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "CapEff:"); ok {
			eff, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			if err != nil {
				return ""
			}
			var miss []string
			for _, c := range []struct {
				bit  uint
				name string
			}{{7, "CAP_SETUID"}, {6, "CAP_SETGID"}} {
				if eff&(1<<c.bit) == 0 {
					miss = append(miss, c.name)
				}
			}
			return strings.Join(miss, " and ")
		}
	}
	return ""
}

// executableBy reports whether a may execute a file of this mode and
// owner (without supplementary groups, as the helper runs).
func executableBy(st os.FileInfo, a Account) bool {
	s, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return true
	}
	switch {
	case s.Uid == a.UID:
		return st.Mode()&0o100 != 0
	case s.Gid == a.GID:
		return st.Mode()&0o010 != 0
	}
	return st.Mode()&0o001 != 0
}
