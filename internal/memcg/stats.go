package memcg

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Stats is what the group's files say now. A figure the kernel does not
// give is nil.
type Stats struct {
	UsageBytes uint64 `json:"usage_bytes"`
	// PeakBytes is the highest usage since the group was made or the peak
	// was reset (v1 memory.max_usage_in_bytes, v2 memory.peak, 5.19+).
	PeakBytes *uint64 `json:"peak_bytes,omitempty"`
	// OOMKills counts the OOM killer's kills in the group (v1
	// memory.oom_control oom_kill, 4.13+; v2 memory.events oom_kill).
	OOMKills *uint64 `json:"oom_kills,omitempty"`
	// LimitHits counts how often usage hit the limit (v1 memory.failcnt,
	// v2 memory.events max).
	LimitHits *uint64 `json:"limit_hits,omitempty"`
}

// Read reads the group's usage and counters.
func (g *Group) Read() Stats {
	if g.V2 {
		ev := keyValues(filepath.Join(g.Dir, "memory.events"))
		s := Stats{PeakBytes: number(filepath.Join(g.Dir, "memory.peak")), OOMKills: ev["oom_kill"], LimitHits: ev["max"]}
		if u := number(filepath.Join(g.Dir, "memory.current")); u != nil {
			s.UsageBytes = *u
		}
		return s
	}
	s := Stats{PeakBytes: number(filepath.Join(g.Dir, "memory.max_usage_in_bytes")),
		OOMKills: keyValues(filepath.Join(g.Dir, "memory.oom_control"))["oom_kill"], LimitHits: number(filepath.Join(g.Dir, "memory.failcnt"))}
	if u := number(filepath.Join(g.Dir, "memory.usage_in_bytes")); u != nil {
		s.UsageBytes = *u
	}
	return s
}

// ResetPeak starts a new peak where the kernel allows it (v1: write 0 to
// memory.max_usage_in_bytes and memory.failcnt; v2's memory.peak is reset
// per open file from 6.12 on, which a later read does not see, so v2
// keeps the peak since the group was made).
func (g *Group) ResetPeak() {
	if !g.V2 {
		write(g.Dir, "memory.max_usage_in_bytes", "0")
		write(g.Dir, "memory.failcnt", "0")
	}
}

func number(p string) *uint64 {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	v, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return nil
	}
	return &v
}

// keyValues reads "key value" lines; a file that cannot be read has none.
func keyValues(p string) map[string]*uint64 {
	f, err := os.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	out := map[string]*uint64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), " ")
		if n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64); ok && err == nil {
			out[k] = &n
		}
	}
	return out
}
