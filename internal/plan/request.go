package plan

import (
	"context"
	"errors"
	"fmt"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/servertrust"
	"github.com/dbmem/dbmem/internal/snapshot"
)

// Request is what `dbmem plan` was asked.
type Request struct {
	// Snapshot is this host; nil plans the WhatIf host.
	Snapshot *snapshot.Snapshot
	WhatIf   WhatIf
	// DataDir plans for a stopped server's data (or configuration)
	// directory on this host instead of the running instances.
	DataDir string
	// Port keeps only the running PostgreSQL instance on this port (and
	// no MySQL/MariaDB server unless MySQLPort is set too).
	Port int
	// MySQLPort keeps only the MySQL/MariaDB server on this port (and no
	// PostgreSQL instance unless Port is set too).
	MySQLPort int
	// Changes are PostgreSQL settings to plan for, in postgresql.conf
	// syntax ("shared_buffers": "16GB").
	Changes map[string]string
	// MySQLChanges are MySQL/MariaDB variables to plan for
	// ("innodb_buffer_pool_size": "8589934592").
	MySQLChanges map[string]string
	// Unit names the systemd unit (default: guessed from the data directory).
	Unit          string
	NodesPerQuery int
	Options       advise.PlanOptions
	// Bin is the PostgreSQL binary directory to ask ("" finds one).
	Bin string
	// Trust says which accounts' instances shape the host-wide plan and
	// may have PostgreSQL run as them (--server-account).
	Trust servertrust.Policy
	// Budget says how to budget PostgreSQL's private memory.
	Budget BudgetOptions
	// FS is the host a running instance is measured on (zero: this host).
	FS linux.FS
	// anon, when set, is the host's processes' anonymous memory read once
	// for every instance (ReportBudgets); nil reads it for each.
	anon *hostAnon
	// Given are values a partial snapshot lacks, given by flags.
	Given Given
}

// Given are meminfo sizes a partial capture lacks (nil: not given).
type Given struct {
	RAMBytes, SwapBytes *uint64
}

// WhatIf describes a host that is not this one.
type WhatIf struct {
	RAMBytes  uint64
	SwapBytes uint64
	NUMANodes int
	// PGMajor is the PostgreSQL major version (0: the installed binaries').
	PGMajor int
	// CPUs is its CPU count (0: unknown).
	CPUs int
	// MySQL plans a MySQL/MariaDB server too (with Request.MySQLChanges);
	// alone when no PostgreSQL setting or version was given.
	MySQL *MySQLWhatIf
}

// postgres reports whether a what-if host runs PostgreSQL: unless only a
// MySQL/MariaDB server was described.
func (r Request) postgres() bool {
	return r.WhatIf.MySQL == nil || len(r.Changes) > 0 || r.WhatIf.PGMajor != 0
}

// ErrUsage marks a request that cannot be planned as asked.
var ErrUsage = errors.New("plan request")

// Build gathers the plan input. It may run PostgreSQL binaries (postgres
// -C, initdb for a throwaway cluster).
func Build(ctx context.Context, r Request) (advise.PlanInput, error) {
	a := &asker{bin: r.Bin}
	defer a.close()
	var in advise.PlanInput
	var err error
	switch {
	case r.Snapshot == nil:
		if err := buffersFit(r, r.WhatIf.RAMBytes); err != nil {
			return in, err
		}
		in, err = whatIf(ctx, a, r)
	case r.DataDir != "":
		in, err = stopped(ctx, a, r)
	default:
		in, err = running(ctx, a, r)
	}
	if err == nil {
		err = startable(in, r) // fits.go
	}
	in.Options = r.Options
	if InContainer(r.Snapshot) {
		in.Options.Kubernetes = true
	}
	if s := r.Snapshot; s != nil {
		in.Software, in.InContainer = s.Software, s.Environment.InContainer
	}
	return in, err
}

// InContainer reports whether dbmem or one of the databases it read runs
// in a container (a pod): only then are Kubernetes resources part of the
// plan by default. A what-if host (no snapshot) is not one.
func InContainer(s *snapshot.Snapshot) bool {
	if s == nil {
		return false
	}
	if s.Environment.InContainer {
		return true
	}
	for _, c := range s.Cgroups {
		if c.Container != nil {
			return true
		}
	}
	for _, in := range s.MySQL {
		if in.Cgroup != nil && in.Cgroup.Container != nil {
			return true
		}
	}
	return false
}

// Run builds the input and computes the plan.
func Run(ctx context.Context, r Request) (advise.PlanResult, error) {
	in, err := Build(ctx, r)
	if err != nil {
		return advise.PlanResult{}, err
	}
	return Result(in, r.Snapshot), nil
}

// pageSize is the huge page size planned for.
func (r Request) pageSize(hostDefault uint64) uint64 {
	switch {
	case r.Options.PageSizeBytes != 0:
		return r.Options.PageSizeBytes
	case hostDefault != 0:
		return hostDefault
	}
	return 2 << 20
}

func usage(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUsage, fmt.Sprintf(format, args...))
}
