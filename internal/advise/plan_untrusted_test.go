package advise

import (
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/linux"
)

// TestPlanLeavesOutUntrusted: beside seed 001's instance, a fake with
// 9 GiB of shared_buffers that nobody runs. Its need is in no setting,
// the pages it holds now are kept as in use by others, and the plan names
// it, with the flag that trusts it.
func TestPlanLeavesOutUntrusted(t *testing.T) {
	in := seed001()
	in.Host.Now = &HostNow{Sysctls: linux.Sysctls{}, Pools: []linux.HugePool{{PageSizeBytes: 2 * MiB, Node: -1, Total: 20, Free: 10,
		Reserved: new(uint64(0))}}}
	fake := in.Instances[0]
	fake.Subject, fake.Unit, fake.Changes = "postgresql 15 :5499 (/tmp/x/data)", "postgresql.service", nil
	fake.Need = HugePageNeed{PageSizeBytes: 2 * MiB, Pages: 4722, SharedBytes: 9441 * MiB, Source: "estimate"}
	fake.HeldPages = 10
	fake.Untrusted = "run by nobody, not a trusted server account (trusted: postgres, root) (--server-account nobody trusts it)"
	trusted := Plan(in)
	in.Instances = append(in.Instances, fake)
	r := Plan(in)
	hp := r.HugePages
	if hp == nil || hp.NeedPages != 547 || hp.OtherPages != 10 || hp.PoolPages != trusted.HugePages.PoolPages {
		t.Fatalf("pool %+v (without the fake: %+v)", hp, trusted.HugePages)
	}
	if len(r.LeftOut) != 1 || r.LeftOut[0].Subject != fake.Subject || r.LeftOut[0].Need.Pages != 4722 ||
		!strings.Contains(strings.Join(r.Notes, "\n"), fake.Subject+" left out of the host-wide plan (huge page pool, overcommit, THP): run by nobody") {
		t.Errorf("left out %+v, notes %q", r.LeftOut, r.Notes)
	}
	for _, s := range r.Settings {
		if s.Unit == fake.Unit {
			t.Errorf("a setting for the untrusted instance's unit: %+v", s)
		}
	}
	if len(r.WorstCases) != 1 {
		t.Errorf("%d worst cases, want the trusted instance's only", len(r.WorstCases))
	}
}
