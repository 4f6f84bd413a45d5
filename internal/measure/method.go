package measure

import (
	"fmt"
	"strings"
)

// Method is what a user asks for (dbmem report --method): how Pss_Anon is
// measured and, for the fast path, what to use where it is not possible.
// The zero value is not a method; each taker says what "" means.
type Method string

const (
	// Auto is the fast path, smaps_rollup where it is not possible:
	// always exact, cheap where dbmem runs as root.
	Auto Method = "auto"
	// Fast is the fast path, status where it is not possible: never
	// walks the page tables of shared memory, exact where dbmem runs as
	// root, an over-estimate (RssAnon) elsewhere.
	Fast Method = "fast"
	// Smaps reads smaps_rollup for every process: exact, all of its
	// fields (Pss, Pss_Shmem, hugetlb), as slow as the page tables are large.
	Smaps Method = "smaps"
	// Status reads status only: RssAnon stands in for Pss_Anon.
	Status Method = "status"
)

// Methods lists every method, the default first.
var Methods = []Method{Auto, Fast, Smaps, Status}

// Parse parses "auto", "fast", "smaps" or "status".
func Parse(s string) (Method, error) {
	for _, m := range Methods {
		if s == string(m) {
			return m, nil
		}
	}
	names := make([]string, len(Methods))
	for i, m := range Methods {
		names[i] = string(m)
	}
	return "", fmt.Errorf("unknown method %q: want %s", s, strings.Join(names, ", "))
}

// Rollup says whether the method reads smaps_rollup for every process.
func (m Method) Rollup() bool { return m == Smaps }

// FastPath says whether the method takes the exact fast path
// (/proc/kpagecount) where it can.
func (m Method) FastPath() bool { return m == Auto || m == Fast }
