package budget

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

func checkArchetype(t *testing.T, r Result, want archExpect) {
	t.Helper()
	gib := float64(r.LimitBytes) / (1 << 30)
	if gib < want.Limit.MinGiB || gib > want.Limit.MaxGiB || r.LimitSource != want.Limit.Source {
		t.Errorf("limit %.2f GiB (%s), want %.2f-%.2f GiB (%s): %s", gib, r.LimitSource, want.Limit.MinGiB, want.Limit.MaxGiB, want.Limit.Source, r.LimitFormula)
	}
	if want.Fits != nil && r.Fits != *want.Fits {
		t.Errorf("fits %v, want %v", r.Fits, *want.Fits)
	}
	if r.Concurrency < want.Concurrency.Min || r.Concurrency > want.Concurrency.Max {
		t.Errorf("concurrency %d (%s), want %d-%d", r.Concurrency, r.ConcurrencySource, want.Concurrency.Min, want.Concurrency.Max)
	}
	checkSettings(t, r, want)
	checkRoles(t, r, want)
	checkLines(t, r, want)
	checkPeers(t, r, want)
	var b strings.Builder
	Text(&b, r, 0)
	for _, s := range want.Says {
		if !strings.Contains(b.String(), s) {
			t.Errorf("the text does not say %q", s)
		}
	}
}

func checkSettings(t *testing.T, r Result, want archExpect) {
	t.Helper()
	for _, w := range want.Settings {
		s, ok := r.Setting(w.Name)
		switch {
		case !ok:
			t.Errorf("%s not set (%s)", w.Name, w.Why)
		case w.Value != "" && s.Value != w.Value:
			t.Errorf("%s = %s, want %s (%s): %s", w.Name, s.Value, w.Value, w.Why, s.Formula)
		case w.Min != "" && pgSize(t, s.Value) < pgSize(t, w.Min), w.Max != "" && pgSize(t, s.Value) > pgSize(t, w.Max):
			t.Errorf("%s = %s, want %s-%s (%s): %s", w.Name, s.Value, w.Min, w.Max, w.Why, s.Formula)
		case w.MaxInt > 0 && !intWithin(s.Value, w.MinInt, w.MaxInt):
			t.Errorf("%s = %s, want %d-%d (%s): %s", w.Name, s.Value, w.MinInt, w.MaxInt, w.Why, s.Formula)
		case w.Restart && !s.Restart:
			t.Errorf("%s: a restart not said", w.Name)
		}
	}
}

func intWithin(v string, lo, hi int) bool {
	n, err := strconv.Atoi(v)
	return err == nil && n >= lo && n <= hi
}

func checkRoles(t *testing.T, r Result, want archExpect) {
	t.Helper()
	for _, w := range want.Roles {
		var got *Role
		for i := range r.Roles {
			if r.Roles[i].Name == w.Name {
				got = &r.Roles[i]
			}
		}
		switch {
		case got == nil:
			t.Errorf("role %s missing", w.Name)
		case w.None && got.Proposed != "":
			t.Errorf("role %s gets %s (%s), want none (%s)", w.Name, got.Proposed, got.Formula, w.Why)
		case !w.None && (got.Proposed == "" || pgSize(t, got.Proposed) < pgSize(t, w.ProposedMin) || pgSize(t, got.Proposed) > pgSize(t, w.ProposedMax)):
			t.Errorf("role %s gets %q (%s), want %s-%s (%s)", w.Name, got.Proposed, got.Formula, w.ProposedMin, w.ProposedMax, w.Why)
		}
	}
}

func checkLines(t *testing.T, r Result, want archExpect) {
	t.Helper()
	for _, w := range want.Lines {
		found := false
		for _, l := range r.Lines {
			if l.Name == w.Name {
				found = true
				if mib := float64(l.Bytes) / (1 << 20); mib < w.MinMiB || mib > w.MaxMiB {
					t.Errorf("line %s %.0f MiB, want %.0f-%.0f (%s): %s", w.Name, mib, w.MinMiB, w.MaxMiB, w.Why, l.Formula)
				}
			}
		}
		if !found {
			t.Errorf("no line %s", w.Name)
		}
	}
}

func checkPeers(t *testing.T, r Result, want archExpect) {
	t.Helper()
	for _, w := range want.Peers {
		for _, p := range r.Peers {
			if p.Tool == w.Tool {
				if got := peerString(p, w.Setting); got != w.Value {
					t.Errorf("%s %s = %q, want %s (%s)", w.Tool, w.Setting, got, w.Value, w.Why)
				}
			}
		}
	}
	for tool, fits := range want.PeerFits {
		for _, p := range r.Peers {
			if p.Tool == tool && p.Fits != fits {
				t.Errorf("%s fits %v, want %v (%s)", tool, p.Fits, fits, mibText(p.TotalBytes))
			}
		}
	}
}

func mibText(b uint64) string { return strconv.FormatUint(b>>20, 10) + " MiB" }

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test -update, then review the diff):\n%s", path, got)
	}
}
