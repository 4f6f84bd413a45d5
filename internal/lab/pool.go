package lab

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/hostchange"
	"github.com/dbmem/dbmem/internal/linux"
)

// growPool adds the cluster's huge page need to the default-size pool: the
// pool `dbmem plan` computes, `postgres -C shared_memory_size_in_huge_pages`.
// The change is journaled before it is made. When the kernel cannot find
// enough contiguous memory it compacts memory once and retries, then gives
// up and puts the old value back.
func (r *run) growPool() error {
	if r.grown {
		return nil
	}
	path := poolSetting.Path(r.fs)
	before, err := hostchange.ReadInt(path)
	if err != nil {
		return err
	}
	want := before + r.pages
	if err := r.jr.Add(hostchange.Entry{Kernel: &hostchange.Kernel{Setting: poolSetting, Before: strconv.Itoa(before), Set: strconv.Itoa(want)}}); err != nil {
		return err
	}
	r.grown = true
	r.res.Pool = &PoolChange{Needed: r.pages, Source: r.pageSource, Before: before, Set: want}
	got, err := hostchange.GrowPool(path, want)
	if err == nil && got == want {
		return nil
	}
	if err == nil {
		err = fmt.Errorf("asked the kernel for %d huge pages (%d + %d), it allocated %d: memory is too fragmented or too small; "+
			"lower --shared-buffers or run the lab after a reboot", want, before, r.pages, got)
	}
	return errors.Join(err, r.giveBack(path, before))
}

// giveBack puts the pool back after a failed growth: the kernel then holds
// neither the old value nor the one the lab asked for.
func (r *run) giveBack(path string, before int) error {
	if err := hostchange.Restore(path, strconv.Itoa(before)); err != nil {
		return fmt.Errorf("putting vm.nr_hugepages back to %d: %w (journal kept at %s)", before, err, r.jr.Path())
	}
	r.grown, r.res.Pool = false, nil
	return r.jr.DropKernel(poolSetting)
}

// checkPoolFree makes sure, before a huge_pages=on start, that the pool
// still has the cluster's pages: a server started elsewhere with
// huge_pages=try (PostgreSQL's default) takes free huge pages without
// asking anyone. Pages taken so are added back, at most the cluster's
// need in all, journaled first and restored with the rest; the result's
// notes say who took them.
func (r *run) checkPoolFree() error {
	free, err := r.poolFree()
	if err != nil || free >= r.pages {
		return err
	}
	short, users := r.pages-free, hugetlbUsers(r.fs)
	if r.res.Pool != nil && r.res.Pool.TopUp+short <= r.pages {
		if err := r.topUp(short); err != nil {
			return err
		}
		r.res.Notes = append(r.res.Notes, fmt.Sprintf("another program took %d huge pages the lab had added (%s): the lab added %d more for its run, "+
			"taken back with the rest", short, users, short))
		if free, err = r.poolFree(); err != nil || free >= r.pages {
			return err
		}
	}
	return fmt.Errorf("the huge page pool has %d pages free, the cluster needs %d: another program took pages the lab added (%s); "+
		"run the lab when no other server starts with huge pages", free, r.pages, users)
}

// poolFree is the default pool's free pages not reserved; it needs only
// those two meminfo lines.
func (r *run) poolFree() (int, error) {
	m, err := linux.ReadMeminfo(r.fs)
	if err != nil {
		return 0, err
	}
	if m.HugePagesFree == nil || m.HugePagesRsvd == nil {
		return 0, fmt.Errorf("%s has no HugePages_Free or HugePages_Rsvd line: the lab cannot tell whether its pool is still free", r.fs.ProcPath("meminfo"))
	}
	return int(*m.HugePagesFree) - int(*m.HugePagesRsvd), nil
}

// topUp grows the pool by n more pages: the journal's pool change is
// updated first, then to what the kernel allocated.
func (r *run) topUp(n int) error {
	c := newestKernel(r.jr, poolSetting)
	if c == nil {
		return fmt.Errorf("no journaled change of %s to top up", poolSetting)
	}
	set, err := strconv.Atoi(c.Set)
	if err != nil {
		return err
	}
	c.Set = strconv.Itoa(set + n)
	if err := r.jr.Save(); err != nil {
		return err
	}
	got, err := hostchange.GrowPool(poolSetting.Path(r.fs), set+n)
	if err != nil {
		return err
	}
	c.Set = strconv.Itoa(got)
	r.res.Pool.Set, r.res.Pool.TopUp = got, r.res.Pool.TopUp+got-set
	return r.jr.Save()
}

// poolSetting is the default-size huge page pool the lab grows.
var poolSetting = hostchange.Sysctl("vm.nr_hugepages")

// hugetlbUsers names the processes that map huge pages (faulted in, or a
// PostgreSQL-style anonymous huge page mapping).
func hugetlbUsers(fs linux.FS) string {
	pids, _ := linux.ListPIDs(fs)
	var out []string
	for _, pid := range pids {
		st, err := linux.ReadStatus(fs, pid)
		if err != nil {
			continue
		}
		if st.HugetlbPageBytes != nil && *st.HugetlbPageBytes > 0 || mapsHugePages(fs, pid) {
			out = append(out, fmt.Sprintf("PID %d %s", pid, st.Name))
		}
	}
	if len(out) == 0 {
		return "no process shows a huge page mapping now"
	}
	return "mapped by " + strings.Join(out, ", ")
}

func mapsHugePages(fs linux.FS, pid int) bool {
	ms, err := linux.ReadMaps(fs, pid)
	for _, m := range ms {
		if err == nil && strings.Contains(m.Path, "anon_hugepage") {
			return true
		}
	}
	return false
}
