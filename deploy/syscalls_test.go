package deploy

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// syscallGroups reads every group systemd knows (systemd-analyze
// syscall-filter): "@name" then its members, syscalls or other groups.
func syscallGroups(t *testing.T) map[string][]string {
	t.Helper()
	out, err := exec.Command("systemd-analyze", "syscall-filter").Output()
	if err != nil {
		t.Fatalf("systemd-analyze syscall-filter: %v", err)
	}
	groups := map[string][]string{}
	var cur string
	s := bufio.NewScanner(bytes.NewReader(out))
	for s.Scan() {
		l := s.Text()
		switch {
		case strings.HasPrefix(l, "@"):
			cur = strings.TrimSpace(l)
		case cur != "" && strings.TrimSpace(l) != "" && !strings.HasPrefix(strings.TrimSpace(l), "#"):
			groups[cur] = append(groups[cur], strings.TrimSpace(l))
		}
	}
	return groups
}

func expand(groups map[string][]string, names []string, into map[string]bool) {
	for _, n := range names {
		if strings.HasPrefix(n, "@") {
			expand(groups, groups[n], into)
		} else {
			into[n] = true
		}
	}
}

// allowed is what the unit's SystemCallFilter= lines let through, read
// as systemd.exec(5) says: the first line decides allow or deny list, each
// later one adds (allow) or removes (~ deny) in order.
func allowed(t *testing.T, filters []string) map[string]bool {
	t.Helper()
	groups := syscallGroups(t)
	allow := map[string]bool{}
	for i, f := range filters {
		rest, deny := strings.CutPrefix(f, "~")
		if i == 0 && deny {
			t.Fatalf("filters %q start with a deny list: this check reads allow lists", filters)
		}
		set := map[string]bool{}
		expand(groups, strings.Fields(rest), set)
		for s := range set {
			if deny {
				delete(allow, s)
			} else {
				allow[s] = true
			}
		}
	}
	if len(allow) < 100 {
		t.Fatalf("filters %q allow only %d system calls: systemd-analyze syscall-filter not understood", filters, len(allow))
	}
	return allow
}

var straceLine = regexp.MustCompile(`^\d+\s+([a-z0-9_]+)\(`)

// checkSyscalls wants every system call dbmem made (from its execve on)
// to pass the unit's filter: one that did not would fail with EPERM
// (SystemCallErrorNumber=EPERM) under systemd.
func checkSyscalls(t *testing.T, u unit, trace string) {
	t.Helper()
	b, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	started := false
	for _, l := range strings.Split(string(b), "\n") {
		m := straceLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		started = started || m[1] == "execve"
		if started {
			used[m[1]] = true
		}
	}
	if len(used) < 20 {
		t.Fatalf("only %d system calls traced: %v", len(used), used)
	}
	ok := allowed(t, u.filters)
	var denied []string
	for s := range used {
		if !ok[s] {
			denied = append(denied, s)
		}
	}
	sort.Strings(denied)
	if len(denied) > 0 {
		t.Errorf("SystemCallFilter %q would deny %q, which dbmem used", u.filters, denied)
	}
	t.Logf("%d distinct system calls, all allowed by %q", len(used), u.filters)
}

// testInstalledWatchRecord runs the installed dbmem-watch-record unit's
// ExecStart with its ARGS for two ticks, then reads the history it wrote.
func testInstalledWatchRecord(t *testing.T) {
	u := readUnit(t, "/usr/lib/systemd/system/dbmem-watch-record.service")
	if err := os.MkdirAll("/var/lib/dbmem", 0o700); err != nil { // StateDirectory=dbmem; purge removes it
		t.Fatal(err)
	}
	trace := filepath.Join(t.TempDir(), "strace")
	cmd := u.sandboxed(trace, append(slices.Clone(u.exec), "--count=2", "--interval=1s")...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%q: %v\n%s", cmd.Args, err, out)
	}
	out := run(t, "/usr/bin/dbmem", "history", "/var/lib/dbmem/watch.db")
	if !strings.Contains(out, "2 ticks") && !strings.Contains(out, "ticks") {
		t.Errorf("dbmem history of the recorded file:\n%s", out)
	}
	checkSyscalls(t, u, trace)
}

// testCapabilities reads this host with dbmem report as the unit would
// (root, its bounding set) and with one capability less each: with both,
// nothing is refused; without CAP_SYS_PTRACE smaps_rollup is, without
// CAP_DAC_READ_SEARCH the data directory's postmaster.pid is. So the set
// is needed and enough (the exporter reads smaps_rollup, not the exact
// fast path of report, which alone needs CAP_SYS_ADMIN).
func testCapabilities(t *testing.T) {
	u := readUnit(t, "/usr/lib/systemd/system/dbmem-exporter.service")
	report := func(caps []string) string {
		set := "-all"
		for _, c := range caps {
			set += ",+" + c
		}
		out, err := exec.Command("setpriv", "--bounding-set="+set, "--inh-caps=-all", "--no-new-privs", "--",
			"/usr/bin/dbmem", "report", "--method", "smaps", "--json").Output()
		if err != nil {
			t.Fatalf("report with %s: %v", set, err)
		}
		return string(out)
	}
	if out := report(u.caps); strings.Contains(out, "permission denied") {
		t.Errorf("with %v something was refused:\n%s", u.caps, denials(out))
	}
	for _, c := range []struct{ drop, refused string }{{"sys_ptrace", "smaps_rollup: permission denied"}, {"dac_read_search", "postmaster.pid: permission denied"}} {
		less := slices.DeleteFunc(slices.Clone(u.caps), func(s string) bool { return s == c.drop })
		if out := report(less); !strings.Contains(denials(out), c.refused) {
			t.Errorf("without %s: want %q refused, got:\n%s", c.drop, c.refused, denials(out))
		}
	}
}

// denials are the lines of text that say permission denied.
func denials(json string) string {
	return strings.Join(regexp.MustCompile(`"[^"]*permission denied[^"]*"`).FindAllString(json, -1), "\n")
}
