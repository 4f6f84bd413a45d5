package cli

import (
	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/plan"
	"github.com/dbmem/dbmem/internal/snapshot"
)

// judge is dbmem's one verdict: check, report, watch (every tick), the
// exporter and postmortem judge a snapshot here, with every process of the
// host for the OOM ranking and the trust policy of the flags. Only check's
// own flags (--nodes, --shared-host, --min-severity) tune o; a finding's
// id, severity, evidence and advice are otherwise the same whichever
// command shows it.
func (e *env) judge(snap *snapshot.Snapshot, procs []linux.Process, o advise.Options) advise.Result {
	o.Processes, o.Trust = procs, e.trust()
	return advise.Judge(snap, o)
}

// judgeHost reads every process of the host (as check does) and judges the
// snapshot; the processes' gaps come back for the caller to show.
func (e *env) judgeHost(snap *snapshot.Snapshot, o advise.Options) (advise.Result, []linux.Gap, error) {
	procs, gaps, err := plan.HostProcesses(e.fs())
	if err != nil {
		return advise.Result{}, nil, err
	}
	return e.judge(snap, procs, o), gaps, nil
}

// checker is the verdict as watch's and the exporter's Checker.
func (e *env) checker() func(*snapshot.Snapshot, []linux.Process) []finding.Finding {
	return func(s *snapshot.Snapshot, procs []linux.Process) []finding.Finding {
		return e.judge(s, procs, advise.Options{}).Findings
	}
}
