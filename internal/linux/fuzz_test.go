package linux

import (
	"bytes"
	"testing"
)

// The parsers must never panic, whatever the kernel (or a corrupted capture)
// gives them.

func FuzzParseKVFiles(f *testing.F) {
	f.Add([]byte(meminfo618))
	f.Add([]byte(statusBackend))
	f.Add([]byte("Rss: 1 kB\nPss: 1 kB\nPss_Anon: 18446744073709551615 kB\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		parseMeminfo(bytes.NewReader(b))
		parseStatus(bytes.NewReader(b))
		parseSmapsRollup(bytes.NewReader(b))
	})
}

func FuzzParseStat(f *testing.F) {
	f.Add("18707 (postgres) S 18590 18590 18590 0 -1 4194560 301245 0 3 0 29 41 0 0 20 0 1 0 9912 1678098432 304168")
	f.Add("1 ()) ) R")
	f.Fuzz(func(t *testing.T, s string) {
		st, err := parseStat(s)
		if err == nil && st.PID == 0 && st.Comm == "" && st.State == "" {
			t.Errorf("accepted %q without content", s)
		}
	})
}

func FuzzParseMapsAndSmaps(f *testing.F) {
	f.Add([]byte("7f2a40000000-7f2a93400000 rw-s 00000000 00:01 1054 /anon_hugepage (deleted)\nKernelPageSize: 2048 kB\nVmFlags: ht\n"))
	f.Add([]byte("a-b c d e f\n0-1 rw-p 0 0 0\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ms, err := ParseMaps(bytes.NewReader(b))
		for _, m := range ms {
			if m.End < m.Start {
				t.Errorf("mapping ends before it starts: %+v", m)
			}
		}
		_ = err
		parseSmaps(bytes.NewReader(b), nil)
	})
}

func FuzzParseProcCgroup(f *testing.F) {
	f.Add("0::/system.slice/x.service\n4:memory:/a\n")
	f.Fuzz(func(t *testing.T, s string) {
		ParseProcCgroup(bytes.NewReader([]byte(s)))
		SelectedWord(s)
		KernelVersion(s)
		poolSizeKB(s)
	})
}
