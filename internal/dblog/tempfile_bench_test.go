package dblog

import (
	"fmt"
	"strings"
	"testing"
)

// benchLog is n bytes of temporary file lines in a format: the worst case
// the budget reads (postgres.TempLogMaxBytes, 4 MiB, every line a spill).
func benchLog(format string, n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		pid, size := 1000+i%500, 8192*(i%1000+1)
		switch format {
		case "csv":
			fmt.Fprintf(&b, "2026-03-01 10:00:%02d.001 UTC,\"app\",\"db\",%d,\"[local]\",65e1a,1,\"SELECT\",2026-03-01 09:59:00 UTC,3/7,0,LOG,00000,\"temporary file: path \"\"base/pgsql_tmp/pgsql_tmp%d.0\"\", size %d\",,,,,,\"SELECT 1\",,,\"psql\",\"client backend\",,0\n", i%60, pid, pid, size)
		case "json":
			fmt.Fprintf(&b, "{\"timestamp\":\"2026-03-01 10:00:%02d.001 UTC\",\"user\":\"app\",\"pid\":%d,\"error_severity\":\"LOG\",\"message\":\"temporary file: path \\\"base/pgsql_tmp/pgsql_tmp%d.0\\\", size %d\"}\n", i%60, pid, pid, size)
		default:
			fmt.Fprintf(&b, "2026-03-01 10:00:%02d.001 UTC [%d] app@db LOG:  temporary file: path \"base/pgsql_tmp/pgsql_tmp%d.0\", size %d\n", i%60, pid, pid, size)
		}
	}
	return b.String()
}

// BenchmarkParseTempFilesTypical: 4 MiB of a stderr log where one line in
// a hundred is a temporary file (a server that spills now and then).
func BenchmarkParseTempFilesTypical(b *testing.B) {
	var sb strings.Builder
	for i := 0; sb.Len() < 4<<20; i++ {
		if i%100 == 0 {
			fmt.Fprintf(&sb, "2026-03-01 10:00:%02d.001 UTC [%d] app@db LOG:  temporary file: path \"base/pgsql_tmp/pgsql_tmp%d.0\", size %d\n", i%60, 1000+i%500, 1000+i%500, 8192*(i%1000+1))
			continue
		}
		fmt.Fprintf(&sb, "2026-03-01 10:00:%02d.001 UTC [%d] app@db LOG:  duration: 0.%03d ms  statement: SELECT * FROM orders WHERE id = %d\n", i%60, 1000+i%500, i%1000, i)
	}
	log := sb.String()
	m := NewPrefixMatcher("%m [%p] %q%u@%d ", []string{"app", "report"})
	b.SetBytes(int64(len(log)))
	for i := 0; i < b.N; i++ {
		if got, _ := (Options{}).ParseTempFiles(strings.NewReader(log), m); len(got.Files) != 1 {
			b.Fatal(got.Files)
		}
	}
}

func BenchmarkParseTempFiles4MiB(b *testing.B) {
	for _, format := range []string{"stderr", "csv", "json"} {
		log := benchLog(format, 4<<20)
		m := NewPrefixMatcher("%m [%p] %q%u@%d ", []string{"app", "report"})
		b.Run(format, func(b *testing.B) {
			b.SetBytes(int64(len(log)))
			for i := 0; i < b.N; i++ {
				got, _ := Options{}.ParseTempFiles(strings.NewReader(log), m)
				if len(got.Files) != 1 || got.Files[0].User != "app" {
					b.Fatalf("%s: %+v", format, got.Files)
				}
			}
		})
	}
}
