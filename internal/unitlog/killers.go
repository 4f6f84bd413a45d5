package unitlog

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/units"
)

// KillerEvent is a process, cgroup or pod killed (or a machine panicked)
// by something other than the kernel's OOM killer choosing a victim.
type KillerEvent struct {
	Stamp Stamp
	Host  string
	// Killer: "systemd-oomd", "earlyoom", "kubelet", "kubernetes",
	// "kernel panic".
	Killer string
	// Action: "kill", "mark" (oomd marks a cgroup, then kills it),
	// "evict", "oom-killed" (a container's status), "panic".
	Action string
	// Victim is a cgroup (oomd), a process name (earlyoom), a pod or a
	// container (kubelet); "" when the log does not say.
	Victim    string
	VictimPID *int
	UID       *int
	// Reason: memory-pressure, swap, low-memory, eviction-<resource>,
	// container-memory-limit, panic-on-oom, no-killable-processes.
	Reason string
	// Value is what was measured, Threshold the limit it crossed, as
	// printed ("51.07%" > "50.00%"; "mem 2.10%, swap 14.96%" at or below
	// "mem 10.00%, swap 15.00%"); Duration how long (oomd's "for > 20s").
	Value, Threshold, Duration string
	// Monitored is the cgroup whose pressure oomd watched.
	Monitored string
	Signal    string
	RSSBytes  *uint64
	// Score is earlyoom's badness or oom_score.
	Score *int
	// Outcome is what followed: "exited after 0.1 seconds", "kill failed:
	// Timer expired".
	Outcome string
	Lines   []string
}

var (
	oomdKillRe  = regexp.MustCompile(`^(Killed|Marked) (\S+) (?:for killing )?due to (.*)$`)
	oomdPressRe = regexp.MustCompile(`^memory pressure for (\S+) being ([\d.]+%) > ([\d.]+%) for > (\S+)`)
	oomdSwapRe  = regexp.MustCompile(`swap used \((\d+)\) / total \((\d+)\) being more than ([\d.]+ ?%)`)
	oomdWatchRe = regexp.MustCompile(`^Memory pressure for (\S+) is ([\d.]+%) > ([\d.]+%) for > (\S+)`)
	oomdTryRe   = regexp.MustCompile(`^oomd attempting to kill (\d+) with (\w+)`)
)

// oomdLine reads systemd-oomd's kills, marks and the pressure lines
// before them.
func (p *parser) oomdLine(l line) bool {
	if m := oomdWatchRe.FindStringSubmatch(l.msg); m != nil {
		p.pressure = m[1:]
		return true
	}
	if m := oomdTryRe.FindStringSubmatch(l.msg); m != nil {
		p.pendingSignal = "SIG" + m[2]
		return true
	}
	m := oomdKillRe.FindStringSubmatch(l.msg)
	if m == nil {
		return false
	}
	e := KillerEvent{Killer: "systemd-oomd", Action: strings.ToLower(strings.TrimSuffix(m[1], "ed")), Victim: m[2], Signal: p.pendingSignal}
	if m[1] == "Killed" {
		e.Action = "kill"
	}
	p.pendingSignal = ""
	oomdReason(&e, m[3], p.pressure)
	p.addKiller(l, e)
	return true
}

// oomdReason fills the reason, value and threshold of an oomd kill.
func oomdReason(e *KillerEvent, why string, watched []string) {
	switch {
	case strings.HasPrefix(why, "memory pressure"):
		e.Reason = "memory-pressure"
		if m := oomdPressRe.FindStringSubmatch(why); m != nil {
			e.Monitored, e.Value, e.Threshold, e.Duration = m[1], m[2], m[3], m[4]
		} else if len(watched) == 4 {
			// journalctl cut the line ("... be>"): the pressure line before says it.
			e.Monitored, e.Value, e.Threshold, e.Duration = watched[0], watched[1], watched[2], watched[3]
		}
	case strings.Contains(why, "swap used"):
		e.Reason = "swap"
		if m := oomdSwapRe.FindStringSubmatch(why); m != nil {
			used, _ := strconv.ParseFloat(m[1], 64)
			total, _ := strconv.ParseFloat(m[2], 64)
			if total > 0 {
				e.Value = fmt.Sprintf("%.2f%%", used/total*100)
			}
			e.Threshold = strings.ReplaceAll(m[3], " ", "")
		}
	default:
		e.Reason = "other"
	}
}

func (p *parser) addKiller(l line, e KillerEvent) {
	e.Stamp, e.Host, e.Lines = l.stamp, l.host, []string{l.raw}
	p.out.Killers = append(p.out.Killers, e)
}

var (
	availRe  = regexp.MustCompile(`^mem avail:\s*\d+ of\s*\d+ MiB \(\s*([\d.]+) ?%\), swap free:\s*\d+ of\s*\d+ MiB \(\s*([\d.]+) ?%\)`)
	limitsRe = regexp.MustCompile(`(?i)^low memory! at or below (SIG\w+) limits:? \(?mem:?\s*([\d.]+) ?%, swap:?\s*([\d.]+) ?%`)
	sendRe   = regexp.MustCompile(`^sending (SIG\w+) to process (\d+)(?: uid (\d+))? "(.*)": (?:badness|oom_score) (-?\d+), VmRSS (\d+) MiB`)
	kill12Re = regexp.MustCompile(`^killing process (\d+) "(.*)" with signal (\d+): badness (-?\d+), VmRSS (\d+) MiB`)
	kill11Re = regexp.MustCompile(`^Killing process '(.*)' with signal (\d+), pid: (\d+), badness: (-?\d+), VmRSS: (\d+) MiB`)
	outcome  = regexp.MustCompile(`^(process (?:\d+ )?exited after [\d.]+ seconds|process \d+ did not exit|kill failed: .*)$`)
)

// earlyoomLine reads earlyoom's readings, limits, signals and outcomes.
func (p *parser) earlyoomLine(l line) bool {
	msg := l.msg
	switch m := availRe.FindStringSubmatch(msg); {
	case m != nil:
		p.avail = fmt.Sprintf("mem %s%%, swap %s%%", m[1], m[2])
	case limitsRe.MatchString(msg):
		m := limitsRe.FindStringSubmatch(msg)
		p.limits = fmt.Sprintf("mem %s%%, swap %s%%", m[2], m[3])
	case strings.HasPrefix(msg, "escalating to SIGKILL"):
		if e := p.last("earlyoom"); e != nil {
			e.Signal += ", then SIGKILL"
			e.Lines = append(e.Lines, l.raw)
		}
	case outcome.MatchString(msg):
		if e := p.last("earlyoom"); e != nil && e.Outcome == "" {
			e.Outcome = msg
			e.Lines = append(e.Lines, l.raw)
		}
	default:
		return p.earlyoomKill(l)
	}
	return true
}

func (p *parser) earlyoomKill(l line) bool {
	e := KillerEvent{Killer: "earlyoom", Action: "kill", Reason: "low-memory", Value: p.avail, Threshold: p.limits}
	switch {
	case sendRe.MatchString(l.msg):
		m := sendRe.FindStringSubmatch(l.msg)
		e.Signal, e.VictimPID, e.UID, e.Victim, e.Score, e.RSSBytes = m[1], units.AtoiPtr(m[2]), units.AtoiPtr(m[3]), m[4], units.AtoiPtr(m[5]), mib(m[6])
	case kill12Re.MatchString(l.msg):
		m := kill12Re.FindStringSubmatch(l.msg)
		e.VictimPID, e.Victim, e.Signal, e.Score, e.RSSBytes = units.AtoiPtr(m[1]), m[2], signalName(m[3]), units.AtoiPtr(m[4]), mib(m[5])
	case kill11Re.MatchString(l.msg):
		m := kill11Re.FindStringSubmatch(l.msg)
		e.Victim, e.Signal, e.VictimPID, e.Score, e.RSSBytes = m[1], signalName(m[2]), units.AtoiPtr(m[3]), units.AtoiPtr(m[4]), mib(m[5])
	default:
		return false
	}
	p.addKiller(l, e)
	return true
}

// last returns the last event of a killer, nil when none.
func (p *parser) last(killer string) *KillerEvent {
	for i := len(p.out.Killers) - 1; i >= 0; i-- {
		if p.out.Killers[i].Killer == killer {
			return &p.out.Killers[i]
		}
	}
	return nil
}

func mib(s string) *uint64 {
	n, err := strconv.ParseUint(s, 10, 40)
	if err != nil {
		return nil
	}
	b := n << 20
	return &b
}

func signalName(n string) string {
	switch n {
	case "15":
		return "SIGTERM"
	case "9":
		return "SIGKILL"
	}
	return "signal " + n
}
