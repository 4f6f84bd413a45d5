package unitlog

import (
	"regexp"
	"strings"

	"github.com/dbmem/dbmem/internal/units"
)

var (
	// "eviction manager: must evict pod(s) to reclaim memory" (klog) or
	// "Eviction manager: must evict pod(s) to reclaim" resourceName="memory".
	reclaimRe  = regexp.MustCompile(`(?i)eviction manager: (attempting to reclaim|must evict pod\(s\) to reclaim)"?\s*(?:resourceName="?)?([\w.-]+)?`)
	evictedRe  = regexp.MustCompile(`(?i)eviction manager: pod (\S+?)(?:\([0-9a-f-]+\))? evicted successfully`)
	evictedV2  = regexp.MustCompile(`(?i)eviction manager: pods evicted, waiting for pod to be cleaned up"?\s*pods=\["?([^"\]]+)`)
	lowOnRe    = regexp.MustCompile(`The node was low on resource: ([\w.-]+?)\.(?: Threshold quantity: (\S+?), available: (\S+?)\.)?(?: Container (\S+) was using (\S+?), which exceeds its request of (\S+?)\.)?`)
	oomKilleRe = regexp.MustCompile(`(?i)(?:^|[\s"{,])reason"?\s*[:=]\s*"?OOMKilled\b`)
)

// kubeletLine reads the eviction manager's lines and the evicted or
// OOMKilled status of a pod or container.
func (p *parser) kubeletLine(l line) bool {
	msg := l.msg
	switch {
	case reclaimRe.MatchString(msg):
		m := reclaimRe.FindStringSubmatch(msg)
		if m[2] != "" {
			p.reclaim = m[2]
		}
		if strings.HasPrefix(strings.ToLower(m[1]), "must") {
			p.addKiller(l, KillerEvent{Killer: "kubelet", Action: "evict", Reason: "eviction-" + units.Or(p.reclaim, "unknown")})
			p.evicting = len(p.out.Killers)
		}
	case evictedRe.MatchString(msg), evictedV2.MatchString(msg):
		p.evicted(l)
	case lowOnRe.MatchString(msg):
		m := lowOnRe.FindStringSubmatch(msg)
		e := KillerEvent{Killer: "kubelet", Action: "evict", Reason: "eviction-" + m[1], Value: m[3], Threshold: m[2]}
		if m[4] != "" {
			e.Victim, e.Value, e.Threshold = m[4], m[5], m[6]
		}
		p.addKiller(l, e)
	case oomKilleRe.MatchString(msg):
		p.addKiller(l, KillerEvent{Killer: "kubernetes", Action: "oom-killed", Reason: "container-memory-limit",
			Signal: "SIGKILL (exit code 137)"})
	default:
		return false
	}
	return true
}

// evicted names the pod of the eviction "must evict" opened, or records
// one of its own.
func (p *parser) evicted(l line) {
	victim := ""
	if m := evictedRe.FindStringSubmatch(l.msg); m != nil {
		victim = m[1]
	} else if m := evictedV2.FindStringSubmatch(l.msg); m != nil {
		victim = m[1]
	}
	if p.evicting > 0 && p.evicting <= len(p.out.Killers) {
		e := &p.out.Killers[p.evicting-1]
		e.Victim, e.Stamp = victim, l.stamp
		e.Lines = append(e.Lines, l.raw)
		p.evicting = 0
		return
	}
	p.addKiller(l, KillerEvent{Killer: "kubelet", Action: "evict", Victim: victim, Reason: "eviction-" + units.Or(p.reclaim, "unknown")})
}

var (
	panicOOMRe  = regexp.MustCompile(`Kernel panic - not syncing: (?i:out of memory)[:.]? ?(system-wide|compulsory)? ?panic_on_oom is (?:enabled|selected)`)
	panicNoneRe = regexp.MustCompile(`Kernel panic - not syncing: (?:Out of memory and no killable processes|System is deadlocked on memory)`)
)

// panicLine reads the kernel's panics on OOM.
func (p *parser) panicLine(l line) bool {
	e := KillerEvent{Killer: "kernel panic", Action: "panic"}
	switch m := panicOOMRe.FindStringSubmatch(l.msg); {
	case m != nil:
		e.Reason, e.Value = "panic-on-oom", m[1]
		switch m[1] {
		case "compulsory":
			e.Threshold = "vm.panic_on_oom=2"
		case "system-wide":
			e.Threshold = "vm.panic_on_oom=1 or 2"
		default:
			e.Threshold = "vm.panic_on_oom"
		}
	case panicNoneRe.MatchString(l.msg):
		e.Reason = "no-killable-processes"
	default:
		return false
	}
	p.addKiller(l, e)
	return true
}
