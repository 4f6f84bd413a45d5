package lab

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/units"
)

// StrictInput is what planStrict decides from: the host's memory and
// overcommit settings, Committed_AS sampled with the lab's cluster under
// load, and the processes outside the lab.
type StrictInput struct {
	MemTotalBytes, HugetlbBytes, SwapBytes, MemAvailableBytes uint64
	// CommittedMaxBytes is the highest Committed_AS sampled.
	CommittedMaxBytes   uint64
	Mode, Ratio, KBytes string
	Others              []OtherProcess
	// HeadroomBytes is the stated headroom for everything else; BudgetBytes
	// what the runaway query may take (the emulation's budget).
	HeadroomBytes, BudgetBytes uint64
}

// OtherProcess is a process outside the lab with its private memory
// (RssAnon + VmSwap).
type OtherProcess struct {
	PID          int    `json:"pid"`
	Name         string `json:"name"`
	PrivateBytes uint64 `json:"private_bytes"`
}

// StrictPlan is strict overcommit for real: the ratio, the proof of safety
// and, when it cannot be proved, why not.
type StrictPlan struct {
	ModeBefore        string `json:"mode_before"`
	RatioBefore       string `json:"ratio_before"`
	Ratio             int    `json:"ratio"`
	CommitLimitBytes  uint64 `json:"commit_limit_bytes"`
	CommittedMaxBytes uint64 `json:"committed_max_bytes"`
	HeadroomBytes     uint64 `json:"headroom_bytes"`
	BudgetBytes       uint64 `json:"budget_bytes"`
	// Proof are the conditions checked; Refusals those that failed (the
	// plan is safe when there are none).
	Proof    []string `json:"proof"`
	Refusals []string `json:"refusals,omitempty"`
}

// Safe reports whether the plan may be applied.
func (p StrictPlan) Safe() bool { return len(p.Refusals) == 0 }

// fragile names programs that strict overcommit on a shared host breaks:
// Redis forks for background saves (it asks for vm.overcommit_memory=1),
// JVMs and the Erlang VM reserve and grow large heaps, other databases and
// container runtimes allocate on their own schedule.
var fragile = map[string]string{
	"redis-server": "Redis forks for background saves and needs vm.overcommit_memory=1",
	"beam.smp":     "the Erlang VM (RabbitMQ) grows its heaps on its own schedule",
	"java":         "a JVM commits its heap as it grows",
	"mongod":       "MongoDB", "mysqld": "MySQL", "mariadbd": "MariaDB", "postgres": "a PostgreSQL that is not the lab's",
	"dockerd": "a container runtime", "containerd": "a container runtime", "kubelet": "a Kubernetes node (it forces mode 1)",
}

// largeOther is the private memory above which a process outside the lab
// makes the host not dedicated.
const largeOther = 64 << 20

// planStrict decides whether vm.overcommit_memory=2 may be set for the
// protected run, and with which ratio. The runaway query eats every byte
// of commit left before it fails, headroom included: at that moment every
// other program on the host is refused memory too. So the lab sets it only
// on a host where nothing else runs that could ask for memory then, with
// CommitLimit above the highest Committed_AS seen plus the headroom plus
// the query's budget, and for the query's duration only.
func planStrict(in StrictInput) StrictPlan {
	p := StrictPlan{ModeBefore: in.Mode, RatioBefore: in.Ratio, CommittedMaxBytes: in.CommittedMaxBytes,
		HeadroomBytes: in.HeadroomBytes, BudgetBytes: in.BudgetBytes}
	p.refuseSettings(in)
	p.refuseOthers(in.Others)
	largest := largestOther(in.Others)
	if largest.PrivateBytes > p.HeadroomBytes {
		p.HeadroomBytes = largest.PrivateBytes
		p.Proof = append(p.Proof, fmt.Sprintf("headroom raised to %s: a fork of the largest process outside the lab (PID %d %s) must fit",
			units.Bytes(largest.PrivateBytes), largest.PID, largest.Name))
	}
	p.sizeRatio(in)
	return p
}

func (p *StrictPlan) refuseSettings(in StrictInput) {
	switch {
	case in.Mode == "2":
		p.Refusals = append(p.Refusals, "vm.overcommit_memory is already 2 on this host: the lab does not change a host that chose strict overcommit")
	case in.Mode != "0" && in.Mode != "1":
		p.Refusals = append(p.Refusals, fmt.Sprintf("vm.overcommit_memory is %q, not 0 or 1", in.Mode))
	}
	if in.KBytes != "0" && in.KBytes != "" {
		p.Refusals = append(p.Refusals, "vm.overcommit_kbytes is "+in.KBytes+": the lab sizes CommitLimit with vm.overcommit_ratio only")
	}
}

// refuseOthers refuses on a shared host: programs known to break, or any
// process outside the lab with more than 64 MiB of private memory. The
// reason names each program once, with its PIDs.
func (p *StrictPlan) refuseOthers(others []OtherProcess) {
	pids, why := map[string][]string{}, map[string]string{}
	for _, o := range others {
		w, known := fragile[o.Name]
		if !known && o.PrivateBytes < largeOther {
			continue
		}
		if !known {
			w = units.Bytes(o.PrivateBytes) + " private memory"
		}
		if _, seen := why[o.Name]; !seen || !known {
			why[o.Name] = w
		}
		pids[o.Name] = append(pids[o.Name], strconv.Itoa(o.PID))
	}
	if len(pids) == 0 {
		p.Proof = append(p.Proof, "nothing else on this host holds more than 64 MiB of private memory, and no database, cache, broker, JVM, Erlang VM or container runtime runs")
		return
	}
	var found []string
	for name, ps := range pids {
		if len(ps) > 3 {
			ps = append(ps[:3], fmt.Sprintf("%d more", len(ps)-3))
		}
		found = append(found, fmt.Sprintf("%s (PID %s: %s)", name, strings.Join(ps, ", "), why[name]))
	}
	sort.Strings(found)
	p.Refusals = append(p.Refusals, "strict overcommit is host-wide and the runaway query eats every byte of commit left before it fails: "+
		"at that moment these programs would be refused memory too: "+strings.Join(found, "; "))
}

func largestOther(others []OtherProcess) OtherProcess {
	var l OtherProcess
	for _, o := range others {
		if o.PrivateBytes > l.PrivateBytes {
			l = o
		}
	}
	return l
}

// sizeRatio picks the smallest ratio whose CommitLimit holds the highest
// Committed_AS seen, the headroom and the query's budget, and checks that
// the memory is there for the query to reach it.
func (p *StrictPlan) sizeRatio(in StrictInput) {
	want := in.CommittedMaxBytes + p.HeadroomBytes + p.BudgetBytes
	ram := in.MemTotalBytes - min(in.HugetlbBytes, in.MemTotalBytes)
	if ram == 0 {
		p.Refusals = append(p.Refusals, "MemTotal unknown")
		return
	}
	ratio := int((units.Sub(want, in.SwapBytes)*100 + ram - 1) / ram)
	p.Ratio = max(ratio, 1)
	p.CommitLimitBytes = advise.CommitLimit(in.MemTotalBytes, in.SwapBytes, in.HugetlbBytes, p.Ratio)
	p.Proof = append(p.Proof, fmt.Sprintf("CommitLimit = (%s - %s huge pages) x %d%% + %s swap = %s >= Committed_AS peak %s + headroom %s + the query's budget %s",
		units.Bytes(in.MemTotalBytes), units.Bytes(in.HugetlbBytes), p.Ratio, units.Bytes(in.SwapBytes), units.Bytes(p.CommitLimitBytes),
		units.Bytes(in.CommittedMaxBytes), units.Bytes(p.HeadroomBytes), units.Bytes(p.BudgetBytes)))
	if p.Ratio > 100 {
		p.Refusals = append(p.Refusals, fmt.Sprintf("it would take vm.overcommit_ratio %d: the host has too little RAM for the headroom and the query", p.Ratio))
	}
	if need := p.HeadroomBytes + p.BudgetBytes + units.GiB; in.MemAvailableBytes < need {
		p.Refusals = append(p.Refusals, fmt.Sprintf("MemAvailable %s < %s: the query must be able to reach CommitLimit in memory before the cgroup's OOM killer acts",
			units.Bytes(in.MemAvailableBytes), units.Bytes(need)))
	}
}
