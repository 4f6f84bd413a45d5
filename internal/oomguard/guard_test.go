package oomguard

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/treetest"
)

// hostTree is a host root holding the unit files Debian, PGDG and MySQL
// ship (../sdunit/testdata/root), plus files.
func hostTree(t *testing.T, files map[string]string) linux.FS {
	t.Helper()
	root := t.TempDir()
	src := filepath.Join("..", "sdunit", "testdata", "root")
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		files[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	files["proc/sys/vm/panic_on_oom"] = "0\n"
	files["proc/sys/vm/oom_kill_allocating_task"] = "0\n"
	treetest.Write(t, root, files)
	return linux.FS{Proc: filepath.Join(root, "proc"), Sys: filepath.Join(root, "sys"), Root: root}
}

func noRun(context.Context, string, ...string) ([]byte, error) {
	return nil, errors.New("systemctl must not run where systemd is not PID 1")
}

// Debian's postgresql@.service sets OOMScoreAdjust=-900 and nothing else:
// OOMPolicy is systemd's default, stop; a drop-in's OOMPolicy wins.
func TestDebianTemplateAndDropIn(t *testing.T) {
	fs := hostTree(t, map[string]string{
		"etc/systemd/system/postgresql@16-main.service.d/oom.conf": "[Service]\nOOMPolicy=continue\nMemoryHigh=6G\n",
		"etc/systemd/system.conf":                                  "[Manager]\n#DefaultOOMPolicy=stop\n",
	})
	g := Read(context.Background(), Options{FS: fs, Run: noRun, Targets: []Target{
		{Subject: "pg15", Unit: "postgresql@15-main.service"}, {Subject: "pg16", Unit: "postgresql@16-main.service"}}})
	if g.SystemdPID1 || len(g.Units) != 2 {
		t.Fatalf("guard %+v", g)
	}
	a, b := g.Units[0], g.Units[1]
	if a.Source != "unit files" || a.Values["OOMScoreAdjust"] != (Value{"-900", "/lib/systemd/system/postgresql@.service"}) ||
		a.Values["OOMPolicy"] != (Value{"stop", FromDefault}) || a.Values["Restart"].Value != "no" || a.Slice != "system.slice" {
		t.Errorf("15-main: %+v", a)
	}
	if b.Values["OOMPolicy"] != (Value{"continue", "/etc/systemd/system/postgresql@16-main.service.d/oom.conf"}) || b.Values["MemoryHigh"].Value != "6G" {
		t.Errorf("16-main: %+v", b.Values)
	}
}

// PGDG's postgresql-18.service, MySQL's mysqld.service and Debian's
// mariadb.service; DefaultOOMPolicy= in a system.conf drop-in; a root
// slice drop-in as Fedora ships for oomd.
func TestPackagedUnitsAndDefaults(t *testing.T) {
	fs := hostTree(t, map[string]string{
		"etc/systemd/system.conf.d/oom.conf":                                "[Manager]\nDefaultOOMPolicy=kill\n",
		"usr/lib/systemd/system/-.slice.d/10-oomd-root-slice-defaults.conf": "[Slice]\nManagedOOMSwap=kill\n",
		"etc/systemd/oomd.conf":                                             "[OOM]\nDefaultMemoryPressureDurationSec=20s\n",
	})
	g := Read(context.Background(), Options{FS: fs, Run: noRun, Targets: []Target{
		{Subject: "pgdg", Unit: "postgresql-18.service"}, {Subject: "mysql", Unit: "mysqld.service"},
		{Subject: "maria", Unit: "mariadb.service"}}})
	p, m, d := g.Units[0], g.Units[1], g.Units[2]
	if p.Values["OOMScoreAdjust"].Value != "-1000" || p.Values["Restart"].Value != "on-failure" || p.Values["OOMPolicy"] != (Value{"kill", "/etc/systemd/system.conf.d/oom.conf"}) {
		t.Errorf("pgdg %+v", p.Values)
	}
	if m.Unit != "mysqld.service" || m.Values["Restart"].Value != "on-failure" || m.Values["OOMScoreAdjust"].From != FromDefault {
		t.Errorf("mysqld %+v", m)
	}
	if d.Values["LimitMEMLOCK"].Value != "524288" || d.Values["Restart"].Value != "on-abnormal" {
		t.Errorf("mariadb %+v", d.Values)
	}
	if p.SliceValues["ManagedOOMSwap"].Value != "kill" || !strings.HasSuffix(p.SliceValues["ManagedOOMSwap"].From, "10-oomd-root-slice-defaults.conf") {
		t.Errorf("root slice %+v", p.SliceValues)
	}
	if g.Oomd.Running || g.Oomd.DefaultMemoryPressureDurationSec.Value != "20s" || g.Oomd.SwapUsedLimit.From != FromDefault {
		t.Errorf("oomd %+v", g.Oomd)
	}
	if g.PanicOnOOM == nil || *g.PanicOnOOM != 0 {
		t.Errorf("panic_on_oom %v", g.PanicOnOOM)
	}
}

// Where systemd is PID 1, `systemctl show` answers (recorded output).
func TestSystemctlShow(t *testing.T) {
	fs := hostTree(t, map[string]string{"proc/1/comm": "systemd\n"})
	var calls []string
	run := func(_ context.Context, name string, args ...string) ([]byte, error) {
		calls = append(calls, name+" "+strings.Join(args, " "))
		b, err := os.ReadFile(filepath.Join("testdata", "systemctl-show-"+args[1]+".txt"))
		return b, err
	}
	o := Options{FS: fs, Run: run, Targets: []Target{{Subject: "pg", Unit: "postgresql@16-main.service"}}}
	u := readUnitAsPID1(context.Background(), o)
	if u.Source != "systemctl show" || u.Values["OOMPolicy"].Value != "stop" || u.Values["MemoryMax"].Value != "infinity" ||
		u.Slice != "system-postgresql.slice" || u.SliceValues["ManagedOOMMemoryPressure"].Value != "kill" || len(calls) != 2 {
		t.Fatalf("show: %+v after %v", u, calls)
	}
}

func readUnitAsPID1(ctx context.Context, o Options) UnitAudit {
	g := &Guard{SystemdPID1: true}
	return readUnit(ctx, o, g, o.Targets[0])
}

func TestEarlyoomArgs(t *testing.T) {
	fs := hostTree(t, map[string]string{"etc/default/earlyoom": `EARLYOOM_ARGS="-r 60 -s 15,5 -m 10,5 -p -n --avoid '(^|/)(init|systemd.*|Xorg|sshd)$' --prefer=^(java|chrome)$"` + "\n"})
	e := readEarlyoom(fs, map[string]int{})
	if e.Running || e.MemPercent != "10,5" || e.SwapPercent != "15,5" || e.Avoid != "(^|/)(init|systemd.*|Xorg|sshd)$" || e.Prefer != "^(java|chrome)$" {
		t.Fatalf("earlyoom %+v", e)
	}
}
