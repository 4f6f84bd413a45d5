package advise

import (
	"github.com/dbmem/dbmem/internal/finding"
	"strings"
	"testing"
)

// TestPlanNamesEachInstance: with two instances under the same guessed
// unit, every instance setting carries its instance, host-wide ones none,
// the huge page sum names both terms, and an instance no unit runs gets
// no systemd setting but the words to restart it.
func TestPlanNamesEachInstance(t *testing.T) {
	in := seed001()
	a, b := in.Instances[0], in.Instances[0]
	a.Subject, a.Unit, a.Changes = "postgresql 15 :5432 (/srv/a)", "postgresql.service", nil
	b.Subject, b.Unit, b.Changes, b.NoUnit, b.DataDir = "postgresql 15 :5433 (/srv/b dir)", "", nil, "its cgroup is /", "/srv/b dir"
	b.Need.Pages = 72
	in.Instances = []PlannedInstance{a, b}
	r := Plan(in)
	if f := r.HugePages.Formula; !strings.Contains(f, "547 for postgresql 15 :5432 (/srv/a) (postgres -C)") || !strings.Contains(f, "72 for postgresql 15 :5433 (/srv/b dir)") {
		t.Errorf("huge page sum does not name both instances: %s", f)
	}
	per := map[string]int{}
	for _, s := range r.Settings {
		host := s.Target == finding.TargetSysctl || s.Target == finding.TargetSysfs
		if host != (s.Instance == "") {
			t.Errorf("%s %s: instance %q", s.Target, s.Name, s.Instance)
		}
		per[s.Instance]++
		if s.Instance == b.Subject && s.Target == finding.TargetSystemd {
			t.Errorf("a systemd setting for an instance no unit runs: %+v", s)
		}
	}
	if per[a.Subject] == 0 || per[b.Subject] == 0 {
		t.Errorf("settings per instance: %v", per)
	}
	notes := strings.Join(r.Notes, "\n")
	if !strings.Contains(notes, `pg_ctl -D '/srv/b dir' restart`) || !strings.Contains(notes, "no systemd drop-in is planned") {
		t.Errorf("no words for the instance without a unit:\n%s", notes)
	}
}
