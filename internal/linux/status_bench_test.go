package linux

import (
	"os"
	"testing"
)

// BenchmarkParseStatus parses a PostgreSQL backend's status (recorded on
// 6.18): the watch and the exporter do this for every process of the
// host on every tick.
func BenchmarkParseStatus(b *testing.B) {
	data, err := os.ReadFile("testdata/status-6.18-postgres.txt")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parseStatusBytes(data); err != nil {
			b.Fatal(err)
		}
	}
}
