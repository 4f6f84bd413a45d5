package advise

import (
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/cohost"
	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/mysql"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/snapshot"
	"github.com/dbmem/dbmem/internal/sysv"
)

// sysvSeg is a segment of uid attached by pids, in pages of page bytes
// (0: unknown).
func sysvSeg(id int, uid uint32, size, page uint64, pids ...int) sysv.SegmentInfo {
	s := sysv.SegmentInfo{Segment: sysv.Segment{ID: id, UID: uid, SizeBytes: size, Attached: uint64(len(pids)), CreatorPID: pids[0]},
		Huge: sysv.HugeNo, PageSizeBytes: page}
	if page > basePage {
		s.Huge = sysv.HugeYes
	}
	for _, p := range pids {
		s.Attachments = append(s.Attachments, sysv.Attachment{PID: p})
	}
	return s
}

// sysvHost is a host with the segments; vm.hugetlb_shm_group is 0.
func sysvHost(segs ...sysv.SegmentInfo) *snapshot.Snapshot {
	s := hostSnap(64 * GiB)
	s.Host.Sysctls["vm.hugetlb_shm_group"] = "0"
	s.SysV = &sysv.Snapshot{Kernel: sysv.Kernel{ShmMaxBytes: 1 << 60, ShmAllPages: 1 << 40, ShmMni: 4096, PageSizeBytes: basePage,
		HugePageSizeBytes: new(2 * MiB)}, Segments: segs, Processes: map[int]sysv.Process{}}
	return s
}

// An Oracle SGA in 4 KiB pages is an Oracle instance's finding, named so.
func TestSysVOwnerIsOracle(t *testing.T) {
	s := sysvHost(sysvSeg(8, 54321, 4*GiB, basePage, 4100, 4101))
	s.Software = []cohost.Software{{Kind: cohost.Oracle, Name: "oracle (SID ORCL)", PIDs: []int{4100, 4101}}}
	f := mustFind(t, Check(s, Options{}), "sysv.4k_segment")
	if f.Severity != finding.Notice || f.Subject != "oracle (SID ORCL), SysV segments of uid 54321" {
		t.Errorf("finding = %+v", f)
	}
	if v := fromSysV(s.SysV, nil, s.Software, 2*MiB); len(v) != 1 || v[0].Engine.Name != finding.EngineOracle || v[0].NeedPages != 2048 {
		t.Errorf("owners = %+v", v)
	}
}

// The rights of an owner of SHM_HUGETLB segments are judged once, as the
// owner's; the segments of a PostgreSQL or MySQL server are its own.
func TestSysVOwnerRights(t *testing.T) {
	s := sysvHost(sysvSeg(9, 1000, 512*MiB, 2*MiB, 50))
	s.SysV.Processes[50] = sysv.Process{PID: 50, Creds: linux.Creds{EUID: 1000, FSGID: 1000},
		Memlock: &linux.Limit{Name: linux.LimitMemlock, Soft: 64 * KiB, Hard: 64 * KiB}}
	f := mustFind(t, Check(s, Options{}), "sysv.no-right")
	if f.Severity != finding.Warning || f.Subject != "SysV segments of uid 1000" || len(f.Settings) != 2 {
		t.Errorf("finding = %+v", f)
	}
	my := mariadb("ON")
	my.Process.PID = 50
	s.MySQL = []*mysql.Instance{my}
	for id := range ids(Check(s, Options{})) {
		if strings.HasPrefix(id, "sysv.") {
			t.Errorf("%s for the segments of a MySQL server", id)
		}
	}
}

// PostgreSQL's shared memory in a SysV segment (shared_memory_type=sysv)
// is judged as the instance's (hugepages.off), not a second time.
func TestSysVSegmentOfPostgres(t *testing.T) {
	s := sysvHost(sysvSeg(10, 26, 4*GiB, basePage, 100))
	s.Postgres = []*postgres.Instance{pgInstance(4*GiB, basePage, postgres.Settings{"huge_pages": pgSet("off")})}
	got := ids(Check(s, Options{}))
	_, twice := got["sysv.4k_segment"]
	if _, once := got["hugepages.off"]; twice || !once {
		t.Errorf("findings %v", got)
	}
}

// An owner whose big segment fell back to 4 KiB pages while its small
// ones got huge pages needs a bigger pool: the check common to every engine.
func TestSysVOwnerPoolTooSmall(t *testing.T) {
	s := sysvHost(sysvSeg(11, 1000, 8*MiB, 2*MiB, 50), sysvSeg(12, 1000, 4*GiB, basePage, 50))
	s.Host.HugePools[0].Total, s.Host.HugePools[0].Free = 100, 96
	s.Host.Sysctls["vm.hugetlb_shm_group"] = "1000"
	s.SysV.Processes[50] = sysv.Process{PID: 50, Creds: linux.Creds{EUID: 1000, FSGID: 1000}}
	f := mustFind(t, Check(s, Options{}), "hugepages.pool_too_small")
	if f.Subject != "SysV segments of uid 1000" || !strings.Contains(f.Title, "needs 2048") {
		t.Errorf("finding = %+v", f)
	}
}
