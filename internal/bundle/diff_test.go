package bundle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/report"
	"github.com/dbmem/dbmem/internal/snapshot"
)

// diff is one field that differs, with the PID of the process it belongs
// to (0 if none).
type diff struct {
	path string
	pid  int
	text string
}

// diffDocs compares the snapshots of two report documents, timing aside.
// Paths in the replay's messages (gaps) are under dir: they are mapped back.
func diffDocs(t *testing.T, a, b *snapshot.Snapshot, dir string) []diff {
	t.Helper()
	var out []diff
	walkDiff("", 0, docMap(t, a, "")["snapshot"], docMap(t, b, dir)["snapshot"], &out)
	return out
}

// unexplained drops the differences a busy host explains: a file read
// more than once during the live snapshot (counters of processes, meminfo,
// cgroups) changed between the reads, and a tree holds one content per
// file. A process that started during the capture was seen by the later
// readers only; a replay shows it to all. Permission denials cannot be
// replayed either (root reads every file of a tree).
func unexplained(ds []diff, m Manifest) []string {
	var out []string
	started := map[int]bool{}
	for _, pid := range m.Started {
		started[pid] = true
	}
	for _, d := range ds {
		if !started[d.pid] && !explainedBy(d, m.Changed) {
			out = append(out, d.text)
		}
	}
	return out
}

// withoutMeminfoGaps returns live and replay without the gaps that compare
// /proc/meminfo with the sysfs pools and that only one of them has, when
// meminfo changed during the capture: the live readers compared sysfs with
// the meminfo read next to it, the replay with the one content the tree
// keeps, read at another moment (the pool changes when another test grows
// it).
func withoutMeminfoGaps(live, replay *snapshot.Snapshot, m Manifest) (*snapshot.Snapshot, *snapshot.Snapshot) {
	if !hasPrefix(m.Changed, "proc/meminfo") {
		return live, replay
	}
	return dropPoolGaps(live, replay.Gaps), dropPoolGaps(replay, live.Gaps)
}

// dropPoolGaps returns s without its meminfo/sysfs pool gaps not in other.
func dropPoolGaps(s *snapshot.Snapshot, other []linux.Gap) *snapshot.Snapshot {
	out := *s
	out.Gaps = nil
	for _, g := range s.Gaps {
		if slices.Contains(other, g) || !strings.HasPrefix(g.What, "huge page pool") || !strings.Contains(g.Why, "/proc/meminfo") {
			out.Gaps = append(out.Gaps, g)
		}
	}
	return &out
}

func explainedBy(d diff, changed []string) bool {
	switch {
	case strings.HasPrefix(d.path, ".sysv.Degraded.Denied"):
		return true
	case strings.HasPrefix(d.path, ".host.meminfo."):
		return hasPrefix(changed, "proc/meminfo")
	case strings.Contains(d.path, "cgroup"):
		return hasPrefix(changed, "sys/fs/cgroup/")
	case d.pid != 0:
		return hasPrefix(changed, fmt.Sprintf("proc/%d/", d.pid))
	}
	return false
}

func hasPrefix(list []string, p string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

func docMap(t *testing.T, s *snapshot.Snapshot, dir string) map[string]any {
	var buf bytes.Buffer
	if err := report.JSON(&buf, s); err != nil {
		t.Fatal(err)
	}
	doc := buf.String()
	if dir != "" {
		doc = strings.NewReplacer(dir+"/proc", "/proc", dir+"/sys", "/sys", dir+"/root", "").Replace(doc)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatal(err)
	}
	snap := m["snapshot"].(map[string]any)
	delete(snap, "taken_at")
	delete(snap, "elapsed_ns")
	return m
}

func walkDiff(path string, pid int, a, b any, out *[]diff) {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		if p, ok := am["pid"].(float64); ok {
			pid = int(p)
		} else if p, ok := am["postmaster_pid"].(float64); ok {
			pid = int(p)
		}
		for k := range am {
			walkDiff(path+"."+k, keyPID(k, pid), am[k], bm[k], out)
		}
		for k := range bm {
			if _, ok := am[k]; !ok {
				*out = append(*out, diff{path + "." + k, keyPID(k, pid), path + "." + k + ": only in the replay"})
			}
		}
		return
	}
	as, aok := a.([]any)
	bs, bok := b.([]any)
	if ka, kb, ok := byPID(as), byPID(bs), aok && bok; ok && ka != nil && kb != nil {
		for pid, x := range ka {
			walkDiff(fmt.Sprintf("%s[pid %d]", path, pid), pid, x, kb[pid], out)
		}
		for pid := range kb {
			if _, ok := ka[pid]; !ok {
				*out = append(*out, diff{path, pid, fmt.Sprintf("%s[pid %d]: only in the replay", path, pid)})
			}
		}
		return
	}
	if aok && bok && len(as) == len(bs) {
		for i := range as {
			walkDiff(fmt.Sprintf("%s[%d]", path, i), pid, as[i], bs[i], out)
		}
		return
	}
	if aok && bok {
		*out = append(*out, diff{path, pid, fmt.Sprintf("%s: %d items live, %d in the replay", path, len(as), len(bs))})
		return
	}
	if !reflect.DeepEqual(a, b) {
		*out = append(*out, diff{path, pid, fmt.Sprintf("%s: live %v, replay %v", path, short(a), short(b))})
	}
}

// keyPID is the PID a map key names (maps keyed by PID, as the processes
// attaching SysV segments), else pid.
func keyPID(k string, pid int) int {
	if n, err := strconv.Atoi(k); err == nil && n > 0 {
		return n
	}
	return pid
}

// byPID keys a list of objects by their "pid", or returns nil.
func byPID(l []any) map[int]any {
	if len(l) == 0 {
		return nil
	}
	out := map[int]any{}
	for _, x := range l {
		m, ok := x.(map[string]any)
		p, ok2 := m["pid"].(float64)
		if !ok2 {
			p, ok2 = m["postmaster_pid"].(float64)
		}
		if !ok || !ok2 {
			return nil
		}
		out[int(p)] = x
	}
	return out
}

func short(v any) string {
	s := fmt.Sprint(v)
	if len(s) > 120 {
		return s[:120] + "..."
	}
	return s
}

// sameFindings compares the findings' IDs, subjects and severities (their
// evidence quotes numbers, which a busy host moves).
func sameFindings(a, b map[string]any, skip map[string]bool) bool {
	key := func(m map[string]any) []string {
		var out []string
		fs, _ := m["findings"].([]any)
		for _, f := range fs {
			f := f.(map[string]any)
			if !skip[fmt.Sprint(f["subject"])] && f["id"] != "oom.ranking" {
				out = append(out, fmt.Sprint(f["id"], f["subject"], f["severity"]))
			}
		}
		return out
	}
	return reflect.DeepEqual(key(a), key(b))
}

// startedSubjects names the instances whose postmaster started during the
// capture (the live snapshot missed them).
func startedSubjects(s *snapshot.Snapshot, started []int) map[string]bool {
	out := map[string]bool{}
	for _, in := range s.Postgres {
		for _, pid := range started {
			if in.PostmasterPID == pid {
				out[advise.PostgresSubject(in)] = true
			}
		}
	}
	return out
}
