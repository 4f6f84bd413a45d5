package linux

import (
	"strings"
	"testing"
)

// Recorded from /proc/zoneinfo of kernel 6.18.44-fc-v769 (2 CPUs), cut to
// the lines around the pagesets and one zone's counters.
const zoneinfo = `Node 0, zone   Normal
  pages free     5246339
        nr_free_pages 5246339
  pagesets
    cpu: 0
              count: 4384
              high:  20797
              batch: 63
  vm stats threshold: 40
    cpu: 1
              count: 16858
              high:  216629
              batch: 63
  vm stats threshold: 40
  node_unreclaimable:  0
Node 0, zone  Movable
  pages free     0
  pagesets
`

func TestParsePCPPages(t *testing.T) {
	if n, err := parsePCPPages(strings.NewReader(zoneinfo)); err != nil || n != 4384+16858 {
		t.Errorf("got %d, %v; want %d", n, err, 4384+16858)
	}
	if _, err := parsePCPPages(strings.NewReader("    cpu: 0\n              count: x\n")); err == nil {
		t.Error("a count that is not a number was accepted")
	}
}

func FuzzParsePCPPages(f *testing.F) {
	f.Add(zoneinfo)
	f.Fuzz(func(t *testing.T, s string) { parsePCPPages(strings.NewReader(s)) })
}
