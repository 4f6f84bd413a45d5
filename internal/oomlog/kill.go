package oomlog

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/units"
)

var (
	// "Out of memory: Kill process 14643 (postgres) score 750 or sacrifice child"
	// (3.x-5.0), "... score %li and children." (2.6.2x), "kill process %d (%s)
	// score %lu or a child" (2.6.3x).
	selectRe = regexp.MustCompile(`(?i:kill) process (\d+) \((.*)\) score (-?\d+)`)
	// "Killed process 123 (x) ...", RHEL 6 "Killed process 123, UID 0, (x) ..."
	// and RHEL 7 "Killed process 123 (x), UID 27, total-vm:...".
	killedRe = regexp.MustCompile(`Killed process (\d+)(?:, UID (\d+),)? \(`)
	// "total-vm:1234kB", "UID:113", "UID 113", "oom_score_adj:-900".
	fieldRe = regexp.MustCompile(`([A-Za-z_-]+)[: ](-?\d+)(kB)?`)
	// ") total-vm:" (or RHEL 7's "), UID 27, total-vm:") ends the process
	// name; names may hold parentheses.
	nameEndRe = regexp.MustCompile(`\)(?:, UID \d+,)? (?:total-vm|vsz|anon-rss)[: ]`)
	// "oom_reaper: reaped process %d (%s), now anon-rss:%lukB, file-rss:%lukB, shmem-rss:%lukB"
	reapedRe = regexp.MustCompile(`oom_reaper: reaped process (\d+) \((.*)\), now anon-rss:(\d+)kB, file-rss:(\d+)kB(?:, shmem-rss:(\d+)kB)?`)
	// "%s: OOM victim %d (%s) is already exiting. Skip killing the task"
	exitingRe = regexp.MustCompile(`^(.*?):? ?OOM victim (\d+) \((.*)\) is already exiting`)
)

// parseSelect reads an old kernel's "Kill process N (x) score S" line.
func parseSelect(body string) (*Selected, bool) {
	m := match(body, "ill process ", selectRe)
	if m == nil || strings.Contains(body, "sharing same memory") {
		return nil, false
	}
	s := &Selected{Name: m[2], Score: units.AtoiPtr(m[3])}
	s.PID, _ = strconv.Atoi(m[1])
	return s, true
}

// selectMessage is what a "Kill process" line starts with, e.g. "Out of memory".
func selectMessage(body string) string {
	i := selectRe.FindStringIndex(body)
	if i == nil {
		return ""
	}
	return strings.TrimSuffix(strings.TrimSpace(body[:i[0]]), ":")
}

// parseKilled reads a kill line. cut is true when the line was truncated
// after the name: its memory fields are partly or wholly missing.
func parseKilled(body string) (v *Victim, cut bool, ok bool) {
	if !strings.Contains(body, "Killed process ") {
		return nil, false, false
	}
	loc := killedRe.FindStringSubmatchIndex(body)
	if loc == nil {
		return nil, false, false
	}
	v = &Victim{Message: strings.TrimSuffix(strings.TrimSpace(body[:loc[0]]), ":")}
	v.PID, _ = strconv.Atoi(body[loc[2]:loc[3]])
	if loc[4] >= 0 {
		v.UID = units.AtoiPtr(body[loc[4]:loc[5]])
	}
	rest := body[loc[1]:]
	end := nameEndRe.FindStringIndex(rest)
	if end == nil {
		// "Killed process 123 (x)." on 2.6.2x, or a line cut short.
		i := strings.LastIndex(rest, ")")
		if i < 0 {
			v.Name = strings.TrimSpace(rest)
			return v, true, true
		}
		v.Name = rest[:i]
		return v, strings.Contains(rest[i:], "total-vm") || strings.Contains(rest[i:], "vsz"), true
	}
	v.Name = rest[:end[0]]
	return v, !applyKillFields(v, rest[end[0]+1:]), true
}

// applyKillFields reads "total-vm:..kB, anon-rss:..kB, ..." and reports
// whether the fields every kernel prints (total-vm, anon-rss, file-rss) were
// all there.
func applyKillFields(v *Victim, s string) bool {
	seen := 0
	for _, m := range fieldRe.FindAllStringSubmatch(s, -1) {
		n, err := strconv.ParseInt(m[2], 10, 64)
		if err != nil {
			continue
		}
		u := U64(0)
		if n > 0 {
			u = U64(kib(uint64(n)))
		}
		switch m[1] {
		case "total-vm", "vsz":
			v.TotalVMBytes, seen = u, seen|1
		case "anon-rss":
			v.AnonRSSBytes, seen = u, seen|2
		case "file-rss":
			v.FileRSSBytes, seen = u, seen|4
		case "shmem-rss":
			v.ShmemRSSBytes = u
		case "pgtables":
			v.PgtablesBytes = u
		case "UID":
			v.UID = Int(int(n))
		case "oom_score_adj":
			v.OOMScoreAdj = Int(int(n))
		}
	}
	return seen == 7
}

// parseReaped reads the oom_reaper line.
func parseReaped(body string) (*Reaped, bool) {
	m := match(body, "oom_reaper: ", reapedRe)
	if m == nil {
		return nil, false
	}
	r := &Reaped{Name: m[2]}
	r.PID, _ = strconv.Atoi(m[1])
	r.AnonRSSBytes = kibString(m[3])
	r.FileRSSBytes = kibString(m[4])
	if m[5] != "" {
		r.ShmemRSSBytes = U64(kibString(m[5]))
	}
	return r, true
}

// parseExiting reads "OOM victim N (x) is already exiting": the kernel
// chose a process that was dying anyway and killed nothing.
func parseExiting(body string) (*Victim, bool) {
	m := match(body, "is already exiting", exitingRe)
	if m == nil {
		return nil, false
	}
	v := &Victim{Name: m[3], Message: m[1], AlreadyExiting: true}
	v.PID, _ = strconv.Atoi(m[2])
	return v, true
}

func kibString(s string) uint64 {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0
	}
	return kib(n)
}

// messageConstraint infers the constraint from a kill line's message.
func messageConstraint(msg string) Constraint {
	switch {
	case strings.HasPrefix(msg, "Memory cgroup out of memory"):
		return ConstraintMemcg
	case strings.Contains(msg, "MPOL_BIND"):
		return ConstraintMempolicy
	case strings.Contains(msg, "in cpuset"):
		return ConstraintCpuset
	case strings.HasSuffix(strings.ToLower(msg), "out of memory"):
		return ConstraintGlobal
	}
	return ConstraintUnknown
}
