package archetype

import (
	"cmp"
	"fmt"
	"sort"
	"strings"
)

// shmRow is one line of /proc/sysvipc/shm.
type shmRow struct {
	key                 uint32
	id                  int
	sizeBytes, rssBytes uint64
	cpid, nattch        int
	uid, gid            int
}

// pgRole is one process of an instance: its title, the shared memory it
// touched and its private memory.
type pgRole struct {
	title         string
	touched, anon uint64
}

// pgRoles are the postmaster, the auxiliary processes and the backends.
func pgRoles(pg PGSpec) []pgRole {
	roles := []pgRole{
		{"", pg.SegmentKB / 50, 8192},
		{"checkpointer", pg.SegmentKB * 9 / 10, 2048},
		{"background writer", pg.SegmentKB * 3 / 10, 1024},
		{"walwriter", 16384, 1024},
		{"autovacuum launcher", 2048, 1536},
		{"logical replication launcher", 1024, 1280},
	}
	anon := pg.BackendAnonKB
	anon = cmp.Or(anon, 6144)
	for i := 0; i < pg.Backends; i++ {
		roles = append(roles, pgRole{fmt.Sprintf("app app 10.0.0.%d(%d) idle", 10+i%200, 40000+i), pg.BackendShmemKB, anon})
	}
	return roles
}

func (s Spec) pgProcs(pg PGSpec, shm *[]shmRow) []proc {
	key, shmID := uint32(5432001+pg.Port*1000), 32768+pg.PID%1000
	var out []proc
	for i, r := range pgRoles(pg) {
		p := s.pgProc(pg, i, r)
		p.maps = append(p.maps, mapping{sizeKB: s.basePageKB(), perms: "rw-s", path: fmt.Sprintf("/SYSV%08x (deleted)", key),
			inode: uint64(shmID), pageKB: s.basePageKB(), rssKB: 4, flags: "rd wr sh mr mw me ms sd"})
		out = append(out, p)
	}
	*shm = append(*shm, shmRow{key: key, id: shmID, sizeBytes: 56, rssBytes: 4096, cpid: pg.PID, nattch: len(out), uid: pg.UID, gid: pg.GID})
	return out
}

// pgProc is the i-th process of the instance with its main segment mapped.
func (s Spec) pgProc(pg PGSpec, i int, r pgRole) proc {
	p := proc{pid: pg.PID + i, ppid: pg.PID, comm: "postgres", uid: pg.UID, gid: pg.GID,
		anonKB: r.anon, fileKB: 9000, adj: pg.OOMScoreAdj, cgroup: pg.Cgroup}
	if i == 0 {
		p.ppid, p.args, p.smaps = 1, s.pgArgs(pg), true
		if pg.PPID != nil {
			p.ppid = *pg.PPID
		}
	} else {
		prefix := "postgres: "
		if pg.ClusterName != "" {
			prefix += pg.ClusterName + ": "
		}
		p.args = []string{prefix + r.title + " "}
		if pg.ChildOOMAdj != nil {
			p.adj = *pg.ChildOOMAdj
		}
	}
	page := pg.PageKB
	if page == 0 {
		page = s.basePageKB()
	}
	touched := min(r.touched, pg.SegmentKB)
	seg := mapping{sizeKB: pg.SegmentKB, perms: "rw-s", path: "/dev/zero (deleted)", inode: 4096 + uint64(pg.PID%1000),
		pageKB: page, rssKB: touched, flags: "rd wr sh mr mw me ms sd"}
	if page != s.basePageKB() {
		seg.path, seg.rssKB, seg.sharedHugeKB, seg.flags = "/anon_hugepage (deleted)", 0, touched/page*page, "rd wr sh mr mw me ms de ht"
		p.hugetlbKB = seg.sharedHugeKB
	} else {
		p.shmemKB = touched
	}
	p.maps = []mapping{seg}
	return p
}

func (s Spec) pgArgs(pg PGSpec) []string {
	bin := orDefault(pg.Bin, fmt.Sprintf("/usr/lib/postgresql/%d/bin/postgres", pg.Major))
	args := []string{bin, "-D", pg.DataDir}
	if pg.ConfDir != "" {
		args = append(args, "-c", "config_file="+pg.ConfDir+"/postgresql.conf")
	}
	return args
}

func (s Spec) pgFiles(t Tree, pg PGSpec) {
	root := "root" + pg.DataDir + "/"
	t[root+"PG_VERSION"] = fmt.Sprintf("%d\n", pg.Major)
	t[root+"postmaster.pid"] = fmt.Sprintf("%d\n%s\n1795380000\n%d\n/var/run/postgresql\n*\n%8d%8d\nready   \n",
		pg.PID, pg.DataDir, pg.Port, 5432001+pg.Port*1000, 32768+pg.PID%1000)
	conf := root + "postgresql.conf"
	if pg.ConfDir != "" {
		conf = "root" + pg.ConfDir + "/postgresql.conf"
	}
	keys := make([]string, 0, len(pg.Conf))
	for k := range pg.Conf {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("# postgresql.conf of the archetype (see ../spec.yaml)\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "%s = '%s'\n", k, pg.Conf[k])
	}
	t[conf] = b.String()
}

func (s Spec) mysqlProc(m MySQLSpec, shm *[]shmRow) proc {
	comm := map[string]string{"mariadb": "mariadbd", "mysql": "mysqld"}[m.Flavor]
	if m.Flavor == "mariadb" && !versionAtLeast(m.Version, 10, 5) {
		comm = "mysqld"
	}
	p := proc{pid: m.PID, ppid: 1, comm: comm, args: []string{"/usr/sbin/" + comm}, uid: m.UID, gid: m.GID,
		anonKB: m.OtherAnonKB, fileKB: 30000, threads: m.Threads, adj: m.OOMScoreAdj, cgroup: m.Cgroup, smaps: true, memlock: m.MemlockKB}
	pool := mapping{sizeKB: m.BufferPoolKB, perms: "rw-p", pageKB: s.basePageKB(), rssKB: m.PoolTouchedKB, anonKB: m.PoolTouchedKB, flags: "rd wr mr mw me ac dd"}
	switch {
	case m.PoolHugeKB > 0 && m.SysVKey != 0:
		id := 65536 + m.PID%1000
		pool = mapping{sizeKB: roundUp(m.BufferPoolKB, m.PoolHugeKB), perms: "rw-s", path: fmt.Sprintf("/SYSV%08x (deleted)", m.SysVKey),
			inode: uint64(id), pageKB: m.PoolHugeKB, sharedHugeKB: roundUp(m.PoolTouchedKB, m.PoolHugeKB), flags: "rd wr sh mr mw me ms de ht"}
		*shm = append(*shm, shmRow{key: m.SysVKey, id: id, sizeBytes: pool.sizeKB * 1024, rssBytes: pool.sharedHugeKB * 1024, cpid: m.PID, nattch: 1, uid: m.UID, gid: m.GID})
		p.hugetlbKB = pool.sharedHugeKB
	case m.PoolHugeKB > 0:
		pool = mapping{sizeKB: roundUp(m.BufferPoolKB, m.PoolHugeKB), perms: "rw-p", path: "/anon_hugepage (deleted)", inode: 300144,
			pageKB: m.PoolHugeKB, privHKB: roundUp(m.PoolTouchedKB, m.PoolHugeKB), flags: "rd wr mr mw me de ht"}
		p.hugetlbKB = pool.privHKB
	default:
		p.anonKB += m.PoolTouchedKB
	}
	p.maps = []mapping{pool}
	return p
}

func (s Spec) mysqlFiles(t Tree, m MySQLSpec) {
	t["root"+m.ConfPath] = m.Conf
	if m.UpgradeInfo {
		t["root"+m.DataDir+"/mysql_upgrade_info"] = m.Version
	}
}

func versionAtLeast(v string, major, minor int) bool {
	var a, b int
	fmt.Sscanf(v, "%d.%d", &a, &b)
	return a > major || a == major && b >= minor
}

func (s Spec) oracleProcs(o OracleSpec, shm *[]shmRow) []proc {
	names := []string{"pmon", "psp0", "vktm", "dbw0", "lgwr", "ckpt", "smon", "reco", "mmon"}
	var out []proc
	segs := make([]mapping, len(o.Segments))
	for i, g := range o.Segments {
		m := mapping{sizeKB: g.SizeKB, perms: "rw-s", path: fmt.Sprintf("/SYSV%08x (deleted)", g.Key), inode: uint64(g.ID),
			pageKB: s.basePageKB(), rssKB: g.SizeKB, flags: "rd wr sh mr mw me ms sd"}
		if o.Huge {
			m.pageKB, m.rssKB, m.sharedHugeKB, m.flags = s.defaultHugeKB(), 0, roundUp(g.SizeKB, s.defaultHugeKB()), "rd wr sh mr mw me ms de ht"
		}
		segs[i] = m
		rss := uint64(0)
		if o.Huge {
			rss = m.sharedHugeKB * 1024
		} else {
			rss = g.SizeKB * 1024
		}
		*shm = append(*shm, shmRow{key: g.Key, id: g.ID, sizeBytes: g.SizeKB * 1024, rssBytes: rss, cpid: o.FirstPID,
			nattch: len(names) + o.Servers, uid: o.UID, gid: o.GID})
	}
	for i := 0; i < len(names)+o.Servers; i++ {
		title, comm := "ora_"+names[min(i, len(names)-1)]+"_"+o.SID, ""
		if i >= len(names) {
			title = "oracle" + o.SID + " (LOCAL=NO)"
			comm = truncComm("oracle_" + fmt.Sprint(o.FirstPID+i) + "_" + strings.ToLower(o.SID))
		} else {
			comm = truncComm(title)
		}
		p := proc{pid: o.FirstPID + i, ppid: 1, comm: comm, args: []string{title}, uid: o.UID, gid: o.GID,
			anonKB: o.PGAKB, fileKB: 60000, memlock: o.MemlockKB, smaps: i == 0, maps: segs,
			cgroup: "0::/system.slice/oracle-" + strings.ToLower(o.SID) + ".service"}
		if !o.Huge {
			p.shmemKB = o.Segments[0].SizeKB / 10
		} else {
			for _, m := range segs {
				p.hugetlbKB += m.sharedHugeKB / 10
			}
		}
		out = append(out, p)
	}
	return out
}

// truncComm is the kernel's comm: at most 15 characters.
func truncComm(s string) string {
	if len(s) > 15 {
		return s[:15]
	}
	return s
}

func otherProc(o ProcSpec) proc {
	return proc{pid: o.PID, ppid: max(o.PPID, 1), comm: o.Comm, args: o.Cmdline, uid: o.UID, gid: o.GID,
		anonKB: o.RssAnonKB, fileKB: o.RssFileKB, swapKB: o.SwapKB, vmSizeKB: o.VmSizeKB, threads: o.Threads,
		adj: o.OOMScoreAdj, cgroup: o.Cgroup}
}

func sysvShm(rows []shmRow) string {
	var b strings.Builder
	b.WriteString("       key      shmid perms                  size  cpid  lpid nattch   uid   gid  cuid  cgid      atime      dtime      ctime                   rss                  swap\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "%10d %10d %5o %21d %5d %5d %6d %5d %5d %5d %5d %10d %10d %10d %21d %21d\n",
			r.key, r.id, 0o600, r.sizeBytes, r.cpid, r.cpid, r.nattch, r.uid, r.gid, r.uid, r.gid, 1795380000, 0, 1795380000, r.rssBytes, 0)
	}
	return b.String()
}
