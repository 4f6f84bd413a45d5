package oomlog

import (
	"reflect"
	"testing"
	"time"
)

// Hand-written fixtures for formats kernel 6.18 no longer prints; each file
// says which kernel's printk formats it was built from.

func TestHandwrittenRHEL6(t *testing.T) {
	e := one(t, parseFixture(t, "handwritten-kernel-2.6.32-rhel6-messages.txt", Options{Year: 2026}))
	want := &Victim{PID: 4144, Name: "mysqld", UID: Int(497), TotalVMBytes: U64(41772036 << 10),
		AnonRSSBytes: U64(31443592 << 10), FileRSSBytes: U64(4512 << 10)}
	if !reflect.DeepEqual(e.Victim, want) {
		t.Errorf("victim = %+v", e.Victim)
	}
	if e.Selected == nil || !reflect.DeepEqual(*e.Selected, Selected{PID: 4144, Name: "mysqld", Score: Int(963)}) {
		t.Errorf("selected = %+v", e.Selected)
	}
	// "Pid: 4144, comm: mysqld" (2.6/3.x) names the trigger's pid.
	if e.Trigger == nil || e.Trigger.GFPMask != "0x200da" || vi(e.Trigger.OOMScoreAdj) != 0 || vi(e.Trigger.PID) != 4144 ||
		e.KernelRelease != "2.6.32-573.el6.x86_64" || e.Cpuset != "/" {
		t.Errorf("trigger = %+v", e.Trigger)
	}
	if e.Constraint != ConstraintGlobal || !e.ConstraintInferred {
		t.Errorf("constraint %q inferred %v", e.Constraint, e.ConstraintInferred)
	}
	if len(e.Tasks) != 4 || vi(e.Tasks[0].OOMScoreAdj) != -1000 || e.Tasks[3].RSSBytes != 7862020*4096 {
		t.Errorf("tasks = %+v", e.Tasks)
	}
	if wall := time.Date(2026, 11, 22, 21, 11, 42, 0, time.UTC); !e.Time.Wall.Equal(wall) || e.Time.ZoneKnown {
		t.Errorf("time = %+v", e.Time)
	}
}

func TestHandwrittenMemcgV1Kernel310(t *testing.T) {
	cet := time.FixedZone("CET", 3600)
	e := one(t, parseFixture(t, "handwritten-kernel-3.10-memcg-v1-kern.log.txt", Options{Year: 2026, Location: cet}))
	if e.Constraint != ConstraintMemcg || e.OOMMemcg != "/docker/abc123" || e.TaskMemcg != "/docker/abc123" {
		t.Errorf("constraint %q memcg %q/%q", e.Constraint, e.OOMMemcg, e.TaskMemcg)
	}
	if e.Memcg == nil || e.Memcg.LimitBytes != 512<<20 || e.Memcg.Failcnt != 123 || e.Memcg.Swap == nil || !e.Memcg.Swap.LimitUnlimited {
		t.Errorf("memcg = %+v", e.Memcg)
	}
	if e.Trigger == nil || vi(e.Trigger.PID) != 2702 || e.Trigger.GFPMask != "0xd0" {
		t.Errorf("trigger = %+v", e.Trigger)
	}
	// nr_ptes pages become page table bytes.
	if len(e.Tasks) != 3 || vu(e.Tasks[2].PgtablesBytes) != 1032*4096 || vi(e.Tasks[0].OOMScoreAdj) != -900 {
		t.Errorf("tasks = %+v", e.Tasks)
	}
	if e.Victim == nil || e.Victim.ShmemRSSBytes != nil || vu(e.Victim.AnonRSSBytes) != 519084<<10 || vi(e.Selected.Score) != 995 {
		t.Errorf("victim = %+v selected %+v", e.Victim, e.Selected)
	}
	// kern.log carries both clocks: the wall time in the host's zone and
	// the kernel's seconds since boot.
	wall := time.Date(2026, 11, 22, 21, 29, 1, 0, cet)
	if !e.Time.Wall.Equal(wall) || !e.Time.HasMonotonic || e.Time.Monotonic != 5123456789*time.Microsecond {
		t.Errorf("time = %+v", e.Time)
	}
}

func TestHandwrittenGlobalKernel49(t *testing.T) {
	e := one(t, parseFixture(t, "handwritten-kernel-4.9-global-dmesg-T.txt", Options{}))
	if e.Trigger == nil || vi(e.Trigger.Order) != 0 || e.Trigger.GFPMask != "0x24201ca(GFP_HIGHUSER_MOVABLE|__GFP_COLD)" {
		t.Errorf("trigger = %+v", e.Trigger)
	}
	if len(e.Tasks) != 6 || vu(e.Tasks[4].PgtablesBytes) != (2299+10)*4096 || vu(e.Tasks[1].SwapBytes) != 552*4096 {
		t.Errorf("tasks = %+v", e.Tasks)
	}
	if e.Reaped == nil || vu(e.Reaped.ShmemRSSBytes) != 212<<10 || e.Reaped.AnonRSSBytes != 0 {
		t.Errorf("reaped = %+v", e.Reaped)
	}
	f, _ := e.Facts()
	if vu(f.FreedBytes) != 4484992<<10 || f.ShmemDominates || vu(f.ReapedBytes) != (4484992+2364)<<10 {
		t.Errorf("facts = %+v", f)
	}
	if e.Time.Wall != time.Date(2020, 4, 5, 18, 24, 23, 0, time.UTC) || len(e.Lines) != 16 {
		t.Errorf("time %+v, %d lines", e.Time, len(e.Lines))
	}
}

// A checkpointer that touched 4 GB of shared_buffers: killing it frees
// almost nothing.
func TestHandwrittenShmemHeavyVictimKernel61(t *testing.T) {
	e := one(t, parseFixture(t, "handwritten-kernel-6.1-global-journal-short-iso-precise.txt", Options{}))
	f, ok := e.Facts()
	if !ok || !f.ShmemDominates || *f.ShmemShare < 0.99 || vu(f.FreedBytes) != (3012+8264)<<10 {
		t.Errorf("facts = %+v", f)
	}
	if e.Constraint != ConstraintGlobal || e.ConstraintInferred || e.TaskMemcg != "/system.slice/system-postgresql.slice/postgresql@15-main.service" {
		t.Errorf("constraint %q (inferred %v) task_memcg %q", e.Constraint, e.ConstraintInferred, e.TaskMemcg)
	}
	if vi(e.Victim.UID) != 113 || vu(e.Victim.PgtablesBytes) != 8264<<10 || e.Victim.OOMScoreAdj == nil {
		t.Errorf("victim = %+v", e.Victim)
	}
	tot := e.TotalsByName()["postgres"]
	if tot.Count != 4 || tot.PgtablesBytes != 376832+8462336+4325376+9871360 {
		t.Errorf("postgres totals = %+v", tot)
	}
	// +01:00 is read: 21:29:01 at +01:00 is 20:29:01 UTC.
	if want := time.Date(2026, 11, 22, 20, 29, 1, 123456000, time.UTC); !e.Time.Wall.Equal(want) || !e.Time.ZoneKnown {
		t.Errorf("time = %+v", e.Time)
	}
	if e.Incomplete || len(e.Lines) != 18 {
		t.Errorf("incomplete %v %q, %d lines (the systemd line is not the kernel's)", e.Incomplete, e.IncompleteReason, len(e.Lines))
	}
}
