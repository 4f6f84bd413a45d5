package snapshot

import (
	"context"
	"fmt"

	"github.com/dbmem/dbmem/internal/cohost"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/mysql"
	"github.com/dbmem/dbmem/internal/sysv"
)

// readOthers reads what is not PostgreSQL: MySQL/MariaDB servers, SysV
// shared memory, and the cgroups and container of every database.
func (s *Snapshot) readOthers(ctx context.Context, o Options) error {
	// The software beside the databases, before the SysV scan: a process
	// that started after that scan and whose files this read records would
	// show as attached in a replay (report --from) and not live.
	sw, swGaps := cohost.Read(o.FS)
	s.Software = sw
	s.Gaps = append(s.Gaps, swGaps...)
	sizes := s.Host.PoolPageSizes()
	my, gaps, err := mysql.Discover(ctx, o.FS, mysql.Options{
		Live: o.MySQLLive, Method: o.Method, PageSizes: sizes,
	})
	if err != nil {
		return err
	}
	s.MySQL = my
	s.Gaps = append(s.Gaps, gaps...)
	for _, in := range my {
		for _, g := range in.Gaps {
			s.Gaps = append(s.Gaps, linux.Gap{What: fmt.Sprintf("%s %d: %s", in.Flavor, in.PID, g.What), Why: g.Why})
		}
	}
	s.readSysV(o.FS)
	s.Environment = linux.ReadEnvironment(o.FS)
	for _, in := range s.Postgres {
		if cg, g, err := linux.ReadCgroupInfo(o.FS, in.PostmasterPID, sizes); err == nil {
			s.Cgroups = append(s.Cgroups, cg)
			s.Gaps = append(s.Gaps, g...)
		}
	}
	return nil
}

// readSysV reads the SysV segments when the kernel (or the capture) has
// /proc/sysvipc/shm; a failure is a gap.
func (s *Snapshot) readSysV(fs linux.FS) {
	if !fs.Exists(fs.ProcPath("sysvipc", "shm")) {
		return
	}
	v, err := sysv.Read(fs)
	if err != nil {
		s.Gaps = append(s.Gaps, linux.Gap{What: "SysV shared memory", Why: err.Error(), Kind: linux.KindOf(err)})
		return
	}
	s.SysV = &v
	for _, p := range v.Degraded.Problems {
		s.Gaps = append(s.Gaps, linux.Gap{What: fmt.Sprintf("SysV: /proc/%d/%s", p.PID, p.File), Why: p.Err})
	}
}

// CgroupOf returns the cgroup read for a process (a postmaster or a MySQL
// server), or false.
func (s *Snapshot) CgroupOf(pid int) (linux.CgroupInfo, bool) {
	for _, c := range s.Cgroups {
		if c.PID == pid {
			return c, true
		}
	}
	for _, in := range s.MySQL {
		if in.PID == pid && in.Cgroup != nil {
			return *in.Cgroup, true
		}
	}
	return linux.CgroupInfo{}, false
}
