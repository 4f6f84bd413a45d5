package oomlog

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

const realHog = "memcg-v1-hog-kernel-6.18.44-fc-v769"

func parseFixture(t *testing.T, name string, o Options) []Event {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	events, err := o.Parse(f)
	if err != nil {
		t.Fatalf("parse %s: %v", name, err)
	}
	return events
}

func one(t *testing.T, events []Event) Event {
	t.Helper()
	if len(events) != 1 {
		t.Fatalf("want 1 event, got %d: %+v", len(events), events)
	}
	return events[0]
}

// The real capture of kernel 6.18 (cgroup v1 memory limit of 64 MiB) in the
// three forms dmesg prints it: the same event whatever the stamp.
func TestRealMemcgHogAllStampForms(t *testing.T) {
	wantVictim := &Victim{PID: 15970, Name: "oomlog.test", UID: Int(0), TotalVMBytes: U64(1262128 << 10),
		AnonRSSBytes: U64(65280 << 10), FileRSSBytes: U64(2940 << 10), ShmemRSSBytes: U64(0), PgtablesBytes: U64(212 << 10),
		OOMScoreAdj: Int(0), Message: "Memory cgroup out of memory"}
	wantTask := Task{PID: 15970, UID: 0, TGID: 15970, TotalVMBytes: 315532 * 4096, RSSBytes: 17055 * 4096,
		RSSAnonBytes: U64(16320 * 4096), RSSFileBytes: U64(735 * 4096), RSSShmemBytes: U64(0), PgtablesBytes: U64(217088),
		SwapBytes: U64(0), OOMScoreAdj: Int(0), Name: "oomlog.test"}
	wall := time.Date(2026, 11, 22, 21, 43, 16, 485165000, time.UTC)
	for suffix, want := range map[string]Stamp{
		"dmesg.txt":     {Raw: "[  937.485165]", Clock: ClockMonotonic, Monotonic: 937485165 * time.Microsecond, HasMonotonic: true},
		"dmesg-T.txt":   {Raw: "[Sun Nov 22 21:43:16 2026]", Clock: ClockWall, Wall: wall.Truncate(time.Second)},
		"dmesg-iso.txt": {Raw: "2026-11-22T21:43:16,485165+00:00", Clock: ClockWall, Wall: wall, ZoneKnown: true},
	} {
		e := one(t, parseFixture(t, realHog+"-"+suffix, Options{}))
		if !e.Time.Wall.Equal(want.Wall) || e.Time.Raw != want.Raw || e.Time.Clock != want.Clock ||
			e.Time.Monotonic != want.Monotonic || e.Time.ZoneKnown != want.ZoneKnown {
			t.Errorf("%s: time = %+v, want %+v", suffix, e.Time, want)
		}
		if !reflect.DeepEqual(e.Victim, wantVictim) {
			t.Errorf("%s: victim = %+v\nwant %+v", suffix, e.Victim, wantVictim)
		}
		if len(e.Tasks) != 1 || !reflect.DeepEqual(e.Tasks[0], wantTask) {
			t.Errorf("%s: tasks = %+v, want [%+v]", suffix, e.Tasks, wantTask)
		}
		checkRealHog(t, suffix, e)
	}
}

func checkRealHog(t *testing.T, suffix string, e Event) {
	t.Helper()
	cg := "/process_api/590960fb8467697c6b15cd1717c18f69/dbmem-oomtest-15964-279252"
	if e.Constraint != ConstraintMemcg || e.ConstraintInferred || e.OOMMemcg != cg || e.TaskMemcg != cg ||
		e.Cpuset != "/" || e.MemsAllowed != "0" {
		t.Errorf("%s: constraint %q inferred %v memcg %q/%q cpuset %q mems %q", suffix, e.Constraint,
			e.ConstraintInferred, e.OOMMemcg, e.TaskMemcg, e.Cpuset, e.MemsAllowed)
	}
	wantMemcg := MemcgUsage{UsageBytes: 64 << 20, LimitBytes: 64 << 20,
		Swap: &SwapUsage{Kind: "memory+swap", UsageBytes: 64 << 20, LimitBytes: 64 << 20}}
	if e.Memcg == nil || !reflect.DeepEqual(*e.Memcg, wantMemcg) {
		t.Errorf("%s: memcg = %+v", suffix, e.Memcg)
	}
	wantTrigger := Trigger{Name: "oomlog.test", PID: Int(15970), UID: Int(0), GFPMask: "0xcc0(GFP_KERNEL)", Order: Int(0), OOMScoreAdj: Int(0)}
	if e.Trigger == nil || !reflect.DeepEqual(*e.Trigger, wantTrigger) {
		t.Errorf("%s: trigger = %+v", suffix, e.Trigger)
	}
	if want := []string{"uid", "tgid", "total_vm", "rss", "rss_anon", "rss_file", "rss_shmem", "pgtables_bytes", "swapents", "oom_score_adj"}; !reflect.DeepEqual(e.TaskColumns, want) {
		t.Errorf("%s: columns = %q", suffix, e.TaskColumns)
	}
	if e.Incomplete || len(e.Lines) != 79 {
		t.Errorf("%s: incomplete %v (%s), %d lines", suffix, e.Incomplete, e.IncompleteReason, len(e.Lines))
	}
}

// The real kernel report of a PostgreSQL 15 backend killed in a 128 MiB
// cgroup (recorded by dblog's TestRootLivePostgresBackendOOMKill).
func TestRealPostgresBackendKill(t *testing.T) {
	for _, suffix := range []string{"dmesg.txt", "dmesg-iso.txt"} {
		e := one(t, parseFixture(t, "pg-backend-memcg-v1-kernel-6.18.44-fc-v769-"+suffix, Options{}))
		v := e.Victim
		if v == nil || v.PID != 4180 || v.Name != "postgres" || vi(v.UID) != 101 || vu(v.ShmemRSSBytes) != 3536<<10 ||
			vu(v.AnonRSSBytes) != 133504<<10 || vu(v.FileRSSBytes) != 62432<<10 || vu(v.PgtablesBytes) != 616<<10 {
			t.Errorf("%s: victim = %+v", suffix, v)
		}
		if e.Trigger == nil || vi(e.Trigger.PID) != 4180 || e.Memcg.LimitBytes != 128<<20 || e.Incomplete {
			t.Errorf("%s: trigger %+v memcg %+v incomplete %q", suffix, e.Trigger, e.Memcg, e.IncompleteReason)
		}
		row, ok := e.VictimTask()
		if !ok || row.UID != 101 || vu(row.RSSShmemBytes) != 884*4096 || int64(row.RSSBytes) != vu(row.RSSAnonBytes)+vu(row.RSSFileBytes)+vu(row.RSSShmemBytes) {
			t.Errorf("%s: row = %+v", suffix, row)
		}
		if f, _ := e.Facts(); f.ShmemDominates || vu(f.FreedBytes) != (133504+616)<<10 {
			t.Errorf("%s: facts = %+v", suffix, f)
		}
	}
}
