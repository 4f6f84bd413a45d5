package mysql

import (
	"github.com/dbmem/dbmem/internal/units"

	"os"
	"testing"

	"github.com/dbmem/dbmem/internal/kerneltest"
	"github.com/dbmem/dbmem/internal/mysql/mysqltest"
)

// TestPlanFromSettingsSuffices: the pool planned from the settings alone
// (a server with large_pages=OFF, or a what-if: buffer pool, log buffer,
// key cache, Aria page cache, 10% margin) lets MariaDB put its buffer pool
// in huge pages, start after start; the server holds no more than the
// plan. Counting the buffer pool and the log buffer alone (572 pages for
// 1 GiB) was below the 627-643 pages MariaDB 10.11.19 takes.
func TestPlanFromSettingsSuffices(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	settings := map[string]string{"innodb_buffer_pool_size": "1G", "large_pages": "ON"}
	in := &Instance{Flavor: MariaDB, Settings: Defaults(MariaDB)}
	in.setVersion("10.11.19-MariaDB")
	for k, v := range settings {
		in.Settings.set(k, v, FromConfigFile, "")
	}
	plan := PlanHugePages(in, 2<<20, 4096)
	if plan.Pages != 712 {
		t.Fatalf("plan %d pages (%+v), want 512 + 8 + 64 + 64 + 64", plan.Pages, plan.Lines)
	}
	// The lock even when the pool has enough free pages: they may be
	// another test's, grown for its own server under the lock.
	kerneltest.Lock(t)
	base := inUseHugePages(t)
	if free := freeHugePages(t); free < plan.Pages {
		kerneltest.AddHugePages(t, int(plan.Pages-free))
	}
	for start := 1; start <= 2; start++ {
		free := freeHugePages(t)
		if free < plan.Pages {
			t.Skipf("only %d huge pages free (another process took some)", free)
		}
		s := mysqltest.Start(t, settings)
		got := discoverTest(t, s, false)
		bp := checkPoolMapping(t, got)
		var held uint64
		for _, m := range got.Memory.HugeMappings {
			held += units.CeilDiv(m.SizeBytes, 2<<20)
		}
		t.Logf("start %d: %d free huge pages, plan %d, the server holds %d, buffer pool in %d-byte pages", start, free, plan.Pages, held, bp.PageSizeBytes)
		if !bp.Hugetlb || held > plan.Pages {
			t.Errorf("start %d with the %d planned pages: buffer pool in huge pages %v, server holds %d", start, plan.Pages, bp.Hugetlb, held)
		}
		s.Stop(t)
		waitHugePagesBack(t, base)
	}
}
