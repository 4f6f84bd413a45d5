package dblog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func seeds(f *testing.F, pattern string) {
	files, _ := filepath.Glob(filepath.Join("testdata", pattern))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		if len(b) > 1024 {
			b = b[len(b)-1024:] // small seeds keep the fuzzer fast
		}
		f.Add(string(b))
	}
}

func FuzzParsePostgres(f *testing.F) {
	seeds(f, "postgresql-*")
	lines := strings.Split(dumpSeed, "\n")
	f.Add(strings.Join(lines[:4], "\n"))
	f.Add(dumpSeed)
	f.Add("LOG:  server process (PID 1) was terminated by signal 9: Killed\n\tx\nTopMemoryContext: 1 total in 1 blocks; 0 free (0 chunks); 1 used\n")
	f.Fuzz(func(t *testing.T, s string) {
		log, err := ParsePostgres(strings.NewReader(s))
		if err != nil {
			return
		}
		for _, c := range log.Crashes {
			c.Downtime()
			c.RecoveryDuration()
		}
		for _, o := range log.OutOfMemory {
			o.Largest(3)
		}
		for _, d := range log.ContextDumps {
			total, _, _ := d.Sums()
			if d.Complete && (d.GrandTotal == nil || d.GrandTotal.TotalBytes != total || d.Problem != "") {
				t.Fatalf("a complete dump that does not add up: %+v", d)
			}
			for _, c := range d.Contexts {
				if c.Depth < 0 {
					t.Fatalf("negative depth: %+v", c)
				}
			}
		}
	})
}

func FuzzParseContextLine(f *testing.F) {
	for _, s := range []string{
		"level: 2; CachedPlanSource: 4096 total in 3 blocks; 1976 free (3 chunks); 2120 used: prepare q1 as select 1",
		"    ExecutorState: 8192 total in 1 blocks; 3504 free (0 chunks); 4688 used",
		"level: 3; TupleSort tuples: 32768 total in 3 blocks (120 chunks); 1024 free (7 chunks); 31744 used",
		"level: 2; ReorderBufferChange: 8192 total in 1 blocks; 1 empty blocks; 7552 free (80 chunks); 640 used",
		"level: 4; Caller tuples: 65536 total in 4 blocks; 2000 free; 63536 used",
		"level: 2; 14 more child contexts containing 31 total in 28 blocks; 1 free (1 chunks); 2 used",
		"Grand total: 1819328 bytes in 211 blocks; 685664 free (148 chunks); 1133664 used",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, ok := ParseContextLine(s)
		if !ok {
			return
		}
		if l.Ident != "" && !strings.Contains(s, l.Ident) {
			t.Fatalf("ident %q not in %q", l.Ident, s)
		}
		stripped, cut := StripContextIdent(s)
		if cut != (l.Ident != "") || cut && stripped+": "+l.Ident != strings.TrimRight(s, "\r") {
			t.Fatalf("StripContextIdent(%q) = %q, %v (ident %q)", s, stripped, cut, l.Ident)
		}
	})
}

func FuzzParseMySQL(f *testing.F) {
	seeds(f, "mariadb-*")
	f.Fuzz(func(t *testing.T, s string) {
		ParseMySQL(strings.NewReader(s))
	})
}

// dumpSeed is a short pg_log_backend_memory_contexts dump (PostgreSQL 18
// numbers the levels from 1).
const dumpSeed = `2026-11-27 14:11:28.039 UTC [1724] LOG:  logging memory contexts of PID 1724
2026-11-27 14:11:28.039 UTC [1724] LOG:  level: 1; TopMemoryContext: 99456 total in 5 blocks; 5544 free (16 chunks); 93912 used
2026-11-27 14:11:28.039 UTC [1724] LOG:  level: 2; CacheMemoryContext: 1048576 total in 8 blocks; 395216 free (9 chunks); 653360 used
2026-11-27 14:11:28.039 UTC [1724] LOG:  level: 3; CachedPlanSource: 4096 total in 3 blocks; 2000 free (3 chunks); 2096 used: prepare q1 as select 1
2026-11-27 14:11:28.043 UTC [1724] LOG:  level: 3; 2 more child contexts containing 16384 total in 2 blocks; 0 free (0 chunks); 16384 used
2026-11-27 14:11:28.043 UTC [1724] LOG:  Grand total: 1168512 bytes in 18 blocks; 397216 free (28 chunks); 771296 used`

func FuzzReadOracle(f *testing.F) {
	f.Add("Sat Jun 11 17:33:26 2005\nErrors in file /x/a_ckpt_1.trc:\nORA-04030: out of process memory when trying to allocate  bytes (,)\nInstance terminated by CKPT, pid = 1\n")
	f.Add("ORA-27300: OS system dependent operation:fork failed with status: 12\nORA-27301: OS failure message: Not enough space\n")
	f.Fuzz(func(t *testing.T, s string) {
		if _, err := (Options{}).ReadOracle(strings.NewReader(s)); err != nil {
			t.Fatal(err)
		}
		Detect([]byte(s))
	})
}
