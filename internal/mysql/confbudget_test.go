package mysql

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/dbmem/dbmem/internal/confbudget"
	"github.com/dbmem/dbmem/internal/hostchange/hostiletest"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/treetest"
)

// Nobody's fake mysqld (a script named mysqld, so the kernel names the
// process so) whose my.cnf includes itself five times: root's discovery
// used to read it forever (5^n files, 35 MB/s). Now the read ends at the
// first cycle, with a gap naming the file, and the options before it kept.
func TestSelfIncludingOptionFileEndsAtOnce(t *testing.T) {
	if syscall.Geteuid() != 0 {
		t.Skip("needs root to act as nobody")
	}
	dir := hostiletest.SharedDir(t)
	hostiletest.MustNobody(t, fmt.Sprintf(`set -e; cd %[1]s
printf '[mysqld]\nmax_connections = 77\n' > my.cnf
for i in 1 2 3 4 5; do echo '!include %[1]s/my.cnf' >> my.cnf; done
printf '#!/bin/sh\nsleep 600\n' > mysqld; chmod 755 mysqld`, dir))
	out := hostiletest.MustNobody(t, fmt.Sprintf("setsid %s/mysqld --defaults-file=%s/my.cnf >/dev/null 2>&1 & echo $!", dir, dir))
	pid, err := strconv.Atoi(out)
	if err != nil {
		t.Fatalf("pid %q: %v", out, err)
	}
	t.Cleanup(func() { syscall.Kill(-pid, syscall.SIGKILL) }) // its session: the script and its sleep
	waitComm(t, pid, "mysqld")
	ins, _, err := Discover(context.Background(), linux.DefaultFS(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range ins {
		if in.PID != pid {
			continue
		}
		want := dir + "/my.cnf: refused: an include cycle: " + dir + "/my.cnf includes " + dir + "/my.cnf"
		if !hasGap(in.Gaps, "option file "+dir+"/my.cnf", want) || len(in.OptionFiles) != 1 {
			t.Errorf("gaps %+v, files read %v; want one file and the cycle refused: %q", in.Gaps, in.OptionFiles, want)
		}
		if in.Settings["max_connections"].Value != "77" {
			t.Errorf("max_connections %+v, want 77 from the file", in.Settings["max_connections"])
		}
		return
	}
	t.Fatalf("fake mysqld %d not found", pid)
}

func hasGap(gaps []linux.Gap, what, why string) bool {
	for _, g := range gaps {
		if g.What == what && strings.Contains(g.Why, why) {
			return true
		}
	}
	return false
}

// waitComm waits until the forked shell has exec'd the script.
func waitComm(t *testing.T, pid int, comm string) {
	t.Helper()
	for i := 0; i < 500; i++ {
		if st, err := linux.ReadStat(linux.DefaultFS(), pid); err == nil && st.Comm == comm {
			return
		}
		syscall.Nanosleep(&syscall.Timespec{Nsec: 10e6}, nil)
	}
	t.Fatalf("process %d never became %s", pid, comm)
}

// FuzzOptionIncludeGraph reads trees of up to 8 option files whose lines
// (chosen by the input) !include one another, !includedir a directory, or
// set an option: the read never panics, reads no more files than the
// budget, and when an include cycle is reachable it ends with the cycle's
// gap.
func FuzzOptionIncludeGraph(f *testing.F) {
	f.Add([]byte{0x10, 0x00, 0x21, 0x12, 0x30})
	f.Add([]byte{0x10, 0x10, 0x10, 0x10, 0x10})
	f.Add([]byte{0x30, 0x06, 0x17, 0x07, 0x10})
	f.Fuzz(func(t *testing.T, b []byte) {
		files, edges := optionGraph(b)
		mem := &treetest.Mem{Files: files}
		budget := confbudget.Budget{Files: 40, FileBytes: 512, TotalBytes: 4096, Depth: 6, FanOut: 6}
		_, _, gaps := readOptionFilesBudget(linux.FS{Root: "/", Files: mem}, []string{"/c/f0.cnf"}, nil, []string{"mysqld"}, budget)
		if mem.Reads() > budget.Files {
			t.Errorf("%d files read, budget %d", mem.Reads(), budget.Files)
		}
		if cyclic(edges, 0, map[int]int{}) && len(gaps) == 0 {
			t.Errorf("a cycle read without a gap: %q", files)
		}
	})
}

// optionGraph turns b into files /c/fN.cnf (N the low 3 bits of a byte;
// /c/d/f6.cnf and f7 in the directory /c/d): high nibble 0 chooses the
// file the next lines go to, 1 adds !include of file N, 3 !includedir
// /c/d, others an option.
func optionGraph(b []byte) (map[string]string, map[int][]int) {
	name := func(n int) string {
		if n >= 6 {
			return fmt.Sprintf("/c/d/f%d.cnf", n)
		}
		return fmt.Sprintf("/c/f%d.cnf", n)
	}
	files, edges := map[string]string{name(0): "[mysqld]\n", name(6): "", name(7): ""}, map[int][]int{}
	cur := 0
	for _, c := range b {
		n := int(c & 7)
		line := ""
		switch c >> 4 {
		case 0:
			cur = n
		case 1:
			line, edges[cur] = "!include "+name(n)+"\n", append(edges[cur], n)
			files[name(n)] += ""
		case 3:
			line, edges[cur] = "!includedir /c/d\n", append(edges[cur], 6, 7)
		default:
			line = fmt.Sprintf("max_connections = %d\n", c)
		}
		files[name(cur)] += line
	}
	return files, edges
}

// cyclic reports whether a cycle is reachable from n (state 1: on the
// path, 2: done).
func cyclic(edges map[int][]int, n int, state map[int]int) bool {
	state[n] = 1
	for _, m := range edges[n] {
		if state[m] == 1 || state[m] == 0 && cyclic(edges, m, state) {
			return true
		}
	}
	state[n] = 2
	return false
}
