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
	})
}

func FuzzParseMySQL(f *testing.F) {
	seeds(f, "mariadb-*")
	f.Fuzz(func(t *testing.T, s string) {
		ParseMySQL(strings.NewReader(s))
	})
}

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
