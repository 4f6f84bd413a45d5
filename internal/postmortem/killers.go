package postmortem

import (
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/oomlog"
	"github.com/dbmem/dbmem/internal/unitlog"
	"github.com/dbmem/dbmem/internal/units"
)

// Killer is a kill by something other than the kernel's OOM killer
// choosing a victim (systemd-oomd, earlyoom, kubelet, Kubernetes), or a
// kernel panic instead of a kill: its victim, reason and threshold.
type Killer struct {
	Killer string `json:"killer"`
	Action string `json:"action"`
	Source string `json:"source"`
	Host   string `json:"host,omitempty"`
	// Time is null for a stamp with no date (or no year); TimeRaw as printed.
	Time    *time.Time `json:"time"`
	TimeRaw string     `json:"time_raw"`
	// Victim is a cgroup, process, pod or container ("" when not in the log).
	Victim    string  `json:"victim"`
	VictimPID *int    `json:"victim_pid"`
	UID       *int    `json:"uid"`
	RSSBytes  *uint64 `json:"rss_bytes"`
	Score     *int    `json:"score"`
	// Reason, and Value against Threshold, as the killer printed them
	// (Duration: how long oomd saw the pressure; Monitored: the cgroup it
	// watched).
	Reason    string `json:"reason"`
	Value     string `json:"value,omitempty"`
	Threshold string `json:"threshold,omitempty"`
	Duration  string `json:"duration,omitempty"`
	Monitored string `json:"monitored,omitempty"`
	Signal    string `json:"signal,omitempty"`
	Outcome   string `json:"outcome,omitempty"`
	// Database is true when the victim looks like a database (its process
	// name or its cgroup's unit).
	Database bool     `json:"database"`
	Why      string   `json:"why"`
	Lines    []string `json:"lines"`
}

func killers(ks []unitlog.KillerEvent, l Log) []Killer {
	out := make([]Killer, 0, len(ks))
	for _, k := range ks {
		x := Killer{Killer: k.Killer, Action: k.Action, Source: l.Source, Host: k.Host, Time: wallOf(k.Stamp), TimeRaw: k.Stamp.Raw,
			Victim: k.Victim, VictimPID: k.VictimPID, UID: k.UID, RSSBytes: k.RSSBytes, Score: k.Score, Reason: k.Reason,
			Value: k.Value, Threshold: k.Threshold, Duration: k.Duration, Monitored: k.Monitored, Signal: k.Signal,
			Outcome: k.Outcome, Lines: k.Lines}
		x.Database = databaseVictim(k.Victim)
		x.Why = killerWhy(x)
		out = append(out, x)
	}
	return out
}

// databaseVictim: a process name or a cgroup whose unit is a database's.
func databaseVictim(v string) bool {
	base := strings.TrimSuffix(path.Base(v), ".service")
	for _, n := range []string{"postgres", "postgresql", "mysql", "mysqld", "mariadb", "mariadbd", "oracle"} {
		if base == n || strings.HasPrefix(base, n+"@") || strings.HasPrefix(base, n+"-") || strings.HasPrefix(base, n+"_") {
			return true
		}
	}
	return isDatabase(v, "")
}

// killerWhy says in a sentence what happened, from what was printed.
func killerWhy(k Killer) string {
	victim := units.Or(k.Victim, "(not named in the log)")
	if k.VictimPID != nil {
		victim += fmt.Sprintf(" (pid %d)", *k.VictimPID)
	}
	switch k.Reason {
	case "memory-pressure":
		return fmt.Sprintf("systemd-oomd %s %s: memory pressure on %s was %s, over its limit %s for more than %s (ManagedOOMMemoryPressure=kill)",
			verb(k.Action), victim, units.Or(k.Monitored, "(not named in the log)"), units.Or(k.Value, "(not named in the log)"), units.Or(k.Threshold, "(not named in the log)"), units.Or(k.Duration, "(not named in the log)"))
	case "swap":
		return fmt.Sprintf("systemd-oomd %s %s: swap used was %s of the total, over its limit %s (ManagedOOMSwap=kill): it kills the cgroup using the most swap",
			verb(k.Action), victim, units.Or(k.Value, "(not named in the log)"), units.Or(k.Threshold, "(not named in the log)"))
	case "low-memory":
		s := fmt.Sprintf("earlyoom sent %s to %s", units.Or(k.Signal, "(not named in the log)"), victim)
		if k.RSSBytes != nil {
			s += " holding " + units.Bytes(*k.RSSBytes)
		}
		return s + fmt.Sprintf(": available memory and free swap (%s) were at or below its limits (%s); it acts before the kernel would",
			units.Or(k.Value, "(not named in the log)"), units.Or(k.Threshold, "(not named in the log)"))
	case "panic-on-oom":
		return fmt.Sprintf("the kernel panicked instead of killing a process: %s (%s panic_on_oom); the whole machine went down and restarted only if kernel.panic is set",
			units.Or(k.Threshold, "(not named in the log)"), units.Or(k.Value, "(not named in the log)"))
	case "no-killable-processes":
		return "the kernel found no process it could kill (all at oom_score_adj -1000, or unkillable) and panicked: the whole machine went down"
	case "container-memory-limit":
		return "a container hit its memory limit and was killed by the kernel (OOMKilled, exit code 137): its pod's limit, not the node, ran out"
	}
	if strings.HasPrefix(k.Reason, "eviction-") {
		res := strings.TrimPrefix(k.Reason, "eviction-")
		s := fmt.Sprintf("kubelet evicted %s: the node was low on %s", victim, res)
		if k.Value != "" {
			s += fmt.Sprintf(" (using %s, over its request or threshold %s)", k.Value, units.Or(k.Threshold, "(not named in the log)"))
		}
		if res != "memory" {
			s += "; not a memory eviction"
		}
		return s
	}
	return k.Killer + " " + verb(k.Action) + " " + victim
}

func verb(action string) string {
	switch action {
	case "mark":
		return "marked for killing"
	case "kill":
		return "killed"
	}
	return action
}

// tie links each service incident to the kernel kill or the oomd kill it
// follows: by the kill line's task_memcg naming the unit, with the times
// within tieWindow when both can be compared; by time alone (a guess)
// when the kill names no cgroup.
func tie(ss []Service, events []Explained, kills []kill, ks []Killer) {
	for i := range ss {
		s := &ss[i]
		switch s.KilledBy {
		case "kernel OOM killer":
			tieKernel(s, events, kills)
		case "systemd-oomd":
			for j, k := range ks {
				if k.Killer == "systemd-oomd" && path.Base(k.Victim) == s.Unit {
					n := j + 1
					s.TiedKiller = &n
					break
				}
			}
		}
	}
}

// tieWindow is how far the unit's message may be from the kill.
const tieWindow = 2 * time.Minute

func tieKernel(s *Service, events []Explained, kills []kill) {
	best, by := -1, ""
	for j, x := range events {
		if x.Victim == nil || j >= len(kills) {
			continue
		}
		d, comparable := between(unitlog.ParseStamp(kills[j].Time.Raw, unitlog.Options{}), s.order)
		if !kills[j].Time.Wall.IsZero() && s.Time != nil {
			d, comparable = s.Time.Sub(kills[j].Time.Wall), true
		}
		near := !comparable || (d > -5*time.Second && d <= tieWindow)
		switch {
		case cgroupUnit(x.Scope.TaskCgroup) == s.Unit && near:
			best, by = j, "cgroup"
		case x.Scope.TaskCgroup == "" && comparable && near && by == "":
			best, by = j, "time"
		}
	}
	if best >= 0 {
		n := best + 1
		s.TiedEvent, s.TiedBy = &n, by
	}
}

// cgroupUnit is the unit a cgroup path ends in ("/system.slice/mariadb.service").
func cgroupUnit(cg string) string {
	for p := cg; p != "/" && p != "." && p != ""; p = path.Dir(p) {
		if b := path.Base(p); strings.HasSuffix(b, ".service") || strings.HasSuffix(b, ".scope") {
			return b
		}
	}
	return ""
}

var _ = oomlog.Int
