package watch

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestKeysChangeTheView(t *testing.T) {
	v := view{interval: 2 * time.Second, keys: true}
	for _, k := range []byte{'s', 's', '+', 'p', 'h'} {
		if v.press(k) {
			t.Fatalf("key %q quit", k)
		}
	}
	if sortKeys[v.sort] != "conns" || v.interval != 5*time.Second || !v.paused || !v.help {
		t.Errorf("after s s + p h: %+v", v)
	}
	if s := v.status(); !strings.HasPrefix(s, "PAUSED") || !strings.Contains(s, "sort (conns)") || !strings.Contains(s, "interval (5s)") {
		t.Errorf("status %q", s)
	}
	for _, k := range []byte{'-', '-', '-', '-', '-'} {
		v.press(k)
	}
	if v.interval != 500*time.Millisecond {
		t.Errorf("five - from 5s: %s, want the shortest, 500ms", v.interval)
	}
	for _, k := range []byte{'q', 'Q', 0x03} {
		if !v.press(k) {
			t.Errorf("key %q does not quit", k)
		}
	}
	if v.press('x') || v.press(0x1b) {
		t.Error("an unknown key quit")
	}
}

func TestSortInstances(t *testing.T) {
	u := func(v uint64) *uint64 { return &v }
	in := []Instance{{Port: knownPort(5433), PrivateBytes: u(10), DataDir: "/b"}, {Port: nil, PrivateBytes: u(40), DataDir: "/e"},
		{Port: knownPort(5432), PrivateBytes: u(30), DataDir: "/c"}, {Port: knownPort(5434), PrivateBytes: u(20), DataDir: "/a"},
		{Port: knownPort(5435), DataDir: "/d"}}
	ports := func(is []Instance) []int {
		var p []int
		for _, i := range is {
			if i.Port == nil {
				p = append(p, -1) // not known: sorted last by port
				continue
			}
			p = append(p, *i.Port)
		}
		return p
	}
	for by, want := range map[string][]int{"": {5433, -1, 5432, 5434, 5435}, "port": {5432, 5433, 5434, 5435, -1},
		"private": {-1, 5432, 5434, 5433, 5435}, "data dir": {5434, 5433, 5432, 5435, -1}} {
		if got := ports(sortInstances(in, by)); !slices.Equal(got, want) {
			t.Errorf("sort by %q: %v, want %v", by, got, want)
		}
	}
	if *in[0].Port != 5433 {
		t.Error("sortInstances changed its input")
	}
}
