package lab

import (
	"fmt"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/units"
)

// EmulationDiffers says how the emulated protection differs from the real
// setting; every output of an emulated run shows it.
var EmulationDiffers = []string{
	"This is an emulation: the host's vm.overcommit_memory was not changed. The lab gave the cluster's postmaster an address-space limit " +
		"(RLIMIT_AS, inherited by every backend) sized with the strict overcommit formula, so the query meets the same failure: an allocation refused, \"ERROR: out of memory\".",
	"The real setting is one limit for the whole host: CommitLimit = (RAM - huge pages) x vm.overcommit_ratio / 100 + swap, shared by every process. " +
		"The emulation gives each backend its own limit: two runaway queries at once would each get the whole budget (the memory cgroup would then still kill), and nothing outside the cluster is affected.",
	"With the real setting, when a runaway query reaches CommitLimit, every other program on the host is refused memory at that moment too " +
		"(Redis forking for a background save, a JVM or Erlang VM growing, a new connection): whoever asks first fails, not necessarily the query. " +
		"That is why dbmem plan does not advise it on a shared host.",
	"RLIMIT_AS counts address space; the kernel commits writable private memory. Shared memory counts once in Committed_AS but in every backend's VmSize " +
		"(the limit adds a new backend's VmSize back), and reservations that commit nothing count only against the emulation: its budget is a little tighter.",
}

// planEmulation sizes the address-space limit: strict overcommit's
// formula applied to a machine the size of the cgroup (no swap, no huge
// pages, the default 20% reserve for the page cache) gives CommitLimit;
// what the cluster has committed before the query is taken off; the rest
// is the budget of a query, added to a new backend's VmSize.
func planEmulation(limit, clusterCommit, backendVmSize uint64) (*Protection, error) {
	ratio, formula, ok := advise.OvercommitRatio(limit, 0, 0, advise.DefaultReserve)
	if !ok {
		return nil, fmt.Errorf("no overcommit ratio for a %s machine: %s", units.Bytes(limit), formula)
	}
	cl := advise.CommitLimit(limit, 0, 0, ratio)
	if clusterCommit+64<<20 >= cl {
		return nil, fmt.Errorf("the cluster alone commits %s, the formula's CommitLimit for a %s machine is %s: "+
			"no budget is left for a query; raise --limit or lower --shared-buffers", units.Bytes(clusterCommit), units.Bytes(limit), units.Bytes(cl))
	}
	p := &Protection{Method: "emulated: RLIMIT_AS on the postmaster, sized with the strict overcommit formula", Reserve: advise.DefaultReserve,
		Ratio: ratio, Formula: formula, MachineBytes: limit, CommitLimitBytes: cl, ClusterCommitBytes: clusterCommit,
		BudgetBytes: cl - clusterCommit, BackendVmSizeBytes: backendVmSize, Differs: EmulationDiffers}
	p.AddressSpaceLimitBytes = backendVmSize + p.BudgetBytes
	return p, nil
}
