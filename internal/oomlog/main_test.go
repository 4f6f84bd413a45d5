package oomlog

import (
	"flag"
	"os"
	"testing"
)

// record rewrites the fixtures under testdata from live captures
// (go test -run Live -record, as root).
var record = flag.Bool("record", false, "record live kernel reports into testdata")

// hogEnv makes the test binary a memory hog instead of running tests: the
// live tests start it inside a memory cgroup.
const hogEnv = "DBMEM_OOMLOG_HOG"

func TestMain(m *testing.M) {
	if os.Getenv(hogEnv) == "1" {
		hog()
	}
	os.Exit(m.Run())
}

// hog waits for one byte on stdin, then allocates and touches memory until
// it is killed; it gives up at 4 GiB so that a missing limit cannot hurt.
func hog() {
	var b [1]byte
	os.Stdin.Read(b[:])
	var keep [][]byte
	for i := 0; i < 4096; i++ {
		chunk := make([]byte, 1<<20)
		for j := 0; j < len(chunk); j += 4096 {
			chunk[j] = 1
		}
		keep = append(keep, chunk)
	}
	_ = keep
	os.Exit(3)
}
