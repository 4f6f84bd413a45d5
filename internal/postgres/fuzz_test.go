package postgres

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/dbmem/dbmem/internal/confbudget"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/treetest"
)

func FuzzParseTitle(f *testing.F) {
	f.Add("postgres: 15/main: app shop 10.1.2.3(51234) idle in transaction", "15/main")
	f.Add("postgres: :(: (", "")
	f.Fuzz(func(t *testing.T, title, cluster string) {
		if ParseTitle(title, cluster).Role == "" {
			t.Errorf("empty role for %q", title)
		}
	})
}

func FuzzParseConf(f *testing.F) {
	f.Add("shared_buffers = '4GB' # x\ninclude_dir 'conf.d'\nx = 'it''s'\n")
	f.Add("a = '\\")
	f.Fuzz(func(t *testing.T, s string) {
		parseConf(bytes.NewReader([]byte(s)), "fuzz.conf")
		parsePIDFile(s)
		parseCommandLine(splitOpts(s))
	})
}

// FuzzConfIncludeGraph reads trees of up to 8 files whose lines (chosen
// by the input) include one another, include a directory, or set a value:
// the read never panics, reads no more files than the budget, and ends
// without error only when no include cycle is reachable.
func FuzzConfIncludeGraph(f *testing.F) {
	f.Add([]byte{0x10, 0x00, 0x21, 0x12, 0x30})
	f.Add([]byte{0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x10})
	f.Add([]byte{0x40, 0x41, 0x42, 0x43})
	f.Fuzz(func(t *testing.T, b []byte) {
		files, edges := includeGraph(b)
		mem := &treetest.Mem{Files: files}
		budget := confbudget.Budget{Files: 40, FileBytes: 512, TotalBytes: 4096, Depth: 6, FanOut: 6}
		err := ReadConfFileBudget(linux.FS{Root: "/", Files: mem}, "/c/f0.conf", FromConfigFile, Settings{}, budget)
		if mem.Reads() > budget.Files {
			t.Errorf("%d files read, budget %d", mem.Reads(), budget.Files)
		}
		if err == nil && cyclic(edges, 0, map[int]int{}) {
			t.Errorf("a cycle read without error: %q", files)
		}
	})
}

// includeGraph turns b into files /c/fN.conf (N = the low 3 bits of a
// byte, the file the next lines go to when the high nibble is 0) whose
// lines include another file (1: include, 2: include_if_exists), the
// directory /c/d (3, holding f6 and f7 as d/f6.conf...), or set a value.
func includeGraph(b []byte) (map[string]string, map[int][]int) {
	files, edges := map[string]string{"/c/f0.conf": ""}, map[int][]int{}
	name := func(n int) string {
		if n >= 6 {
			return fmt.Sprintf("/c/d/f%d.conf", n)
		}
		return fmt.Sprintf("/c/f%d.conf", n)
	}
	cur := 0
	for _, c := range b {
		n := int(c & 7)
		line := ""
		switch c >> 4 {
		case 0:
			cur = n
		case 1:
			line, edges[cur] = fmt.Sprintf("include '%s'\n", name(n)), append(edges[cur], n)
		case 2:
			line, edges[cur] = fmt.Sprintf("include_if_exists '%s'\n", name(n)), append(edges[cur], n)
		case 3:
			line, edges[cur] = "include_dir 'd'\n", append(edges[cur], 6, 7)
		default:
			line = fmt.Sprintf("work_mem = %dMB\n", c)
		}
		files[name(cur)] += line
		if _, ok := files[name(n)]; !ok && c>>4 != 2 {
			files[name(n)] = ""
		}
	}
	for _, n := range []int{6, 7} {
		if _, ok := files[name(n)]; !ok {
			files[name(n)] = ""
		}
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
