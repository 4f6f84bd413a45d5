package report_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/mysql"
	"github.com/dbmem/dbmem/internal/report"
	"github.com/dbmem/dbmem/internal/sysv"
)

// The MySQL, SysV and container sections on the recorded PostgreSQL host,
// with the measured MariaDB case added: large_pages=ON, the pool in 4 KiB
// pages, inside a pod whose hugetlb limit has no reservation limit.
func TestTextOtherSections(t *testing.T) {
	s := fixtureSnapshot(t, "pg15-hugepages-on")
	set := mysql.Defaults(mysql.MariaDB)
	set["innodb_buffer_pool_size"] = mysql.Setting{Value: "1073741824", Source: mysql.FromServer}
	set["large_pages"] = mysql.Setting{Value: "ON", Source: mysql.FromServer}
	lim := uint64(512 << 20)
	c, _ := linux.ParseContainer("/kubepods/burstable/pod1234abcd/" + strings.Repeat("ab", 32))
	in := &mysql.Instance{PID: 4242, Flavor: mysql.MariaDB, Version: "10.11.19-MariaDB", Major: 10, Minor: 11, Port: 3306,
		DataDir: "/var/lib/mysql", Connected: true, Connection: "connected as root via /run/mysqld/mysqld.sock", Settings: set,
		Cgroup: &linux.CgroupInfo{PID: 4242, Container: &c, Hugetlb: []linux.CgroupHugetlb{{Version: 2, Path: "/kubepods/x",
			PageSizeBytes: 2 << 20, LimitBytes: &lim, LimitPath: "/kubepods/x", RsvdAccounting: true}}}}
	pool := mysql.MappingInfo{Start: 0x7f8e3c000000, SizeBytes: 1 << 30, PageSizeBytes: 4096, DontDump: true}
	in.Memory = mysql.Memory{Threads: 15, BufferPool: &mysql.BufferPool{Mappings: []mysql.MappingInfo{pool}, SizeBytes: 1 << 30, PageSizeBytes: 4096},
		HugeMappings: []mysql.MappingInfo{{Start: 0x7f8e80400000, SizeBytes: 124 << 20, Path: "/anon_hugepage (deleted)", PageSizeBytes: 2 << 20, Hugetlb: true}}}
	s.MySQL = []*mysql.Instance{in}
	s.SysV = &sysv.Snapshot{Kernel: sysv.Kernel{ShmMaxBytes: 1 << 63, ShmAllPages: 1 << 63, ShmMni: 4096, PageSizeBytes: 4096, HugePageSizeBytes: new(uint64(2 << 20))},
		Segments: []sysv.SegmentInfo{{Segment: sysv.Segment{ID: 4, Key: 745552, SizeBytes: 56, Attached: 1, UID: 101}, Huge: sysv.HugeNo, PageSizeBytes: 4096,
			Attachments: []sysv.Attachment{{PID: 18855}}}}}
	var b bytes.Buffer
	if err := report.Text(&b, s, report.Options{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"MARIADB 10.11.19-MariaDB  /var/lib/mysql  port 3306  pid 4242",
		"Buffer pool  1 GiB mapped at 0x7f8e3c000000 (anonymous) in 4 KiB pages",
		"large_pages=ON but the buffer pool is NOT in huge pages",
		"Huge pages   1 mappings in 2 MiB pages: 124 MiB",
		"Huge plan    large_pages=ON needs 631 pages of 2 MiB",
		"SYSV SHARED MEMORY  1 segments, 56 B; kernel.shmmax unlimited",
		"0x000b6050",
		"CONTAINERS AND CGROUPS",
		"kubernetes pod 1234abcd (burstable), container abababababab",
		"SIGBUS (Bus error)",
		"mysql.large_pages_not_used",
		"container.hugetlb_sigbus",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(out)
	}
}

// TestMySQLUnknownPort: a server whose port was not read (its option files
// unreadable, no connection) is "port unknown", never port 0 or a default.
func TestMySQLUnknownPort(t *testing.T) {
	s := fixtureSnapshot(t, "pg15-hugepages-on")
	s.MySQL = []*mysql.Instance{{PID: 4242, Flavor: mysql.MariaDB, DataDir: "/var/lib/mysql", Connection: "not connected: no socket found",
		Settings: mysql.Settings{}}}
	var b bytes.Buffer
	if err := report.Text(&b, s, report.Options{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "MARIADB (version unknown)  /var/lib/mysql  port unknown  pid 4242") {
		t.Errorf("the server's title line does not say its port is unknown:\n%s", out)
	}
	if strings.Contains(out, "port 0") || strings.Contains(out, ":0 ") {
		t.Errorf("an unknown port is shown as 0:\n%s", out)
	}
}
