package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/pgcluster"
	"github.com/dbmem/dbmem/internal/throwaway"
)

// evil is a shared object whose constructor appends its uid and
// environment to a marker file: loaded by any process, it proves that
// process ran code an instance's configuration named.
const evil = `#include <stdio.h>
#include <unistd.h>
extern char **environ;
__attribute__((constructor)) static void evil(void) {
	FILE *f = fopen(MARKER, "a");
	if (!f) return;
	fprintf(f, "uid=%d\n", (int)getuid());
	for (char **e = environ; *e; e++) fprintf(f, "%s\n", *e);
	fclose(f);
}
`

// lure is what nobody prepares: evil.so, and the marker it writes.
type lure struct {
	dir, so, marker string
}

// buildEvil compiles evil.so into a directory every account may read; its
// marker lives in a sticky directory every account may write.
func buildEvil(t *testing.T) lure {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Fatal("gcc is needed to build the library of the attack (apt-get install gcc)")
	}
	nobody := &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}
	dir, err := throwaway.Dir("", "dbmem-lure-", nobody)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, os.ModeSticky|0o777)
	l := lure{dir: dir, so: filepath.Join(dir, "evil.so"), marker: filepath.Join(dir, "marker")}
	src := filepath.Join(dir, "evil.c")
	if err := os.WriteFile(src, []byte(evil), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("gcc", "-shared", "-fPIC", fmt.Sprintf("-DMARKER=%q", l.marker), "-o", l.so, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	return l
}

// ran fails the test when evil.so's constructor ran, with who ran it.
func (l lure) ran(t *testing.T, after string) {
	t.Helper()
	if b, err := os.ReadFile(l.marker); err == nil {
		first, _, _ := strings.Cut(string(b), "\n")
		t.Errorf("%s: evil.so's constructor ran (%s; root's DBMEM_ROOT_SECRET reached it: %v)", after, first,
			strings.Contains(string(b), "DBMEM_ROOT_SECRET"))
		os.Remove(l.marker)
	}
}

// startFake is the attack: nobody copies sleep to DIR/postgres and runs it
// from DIR/data, whose postgresql.conf preloads evil.so and asks for 9GB
// of shared_buffers, on a port of its own.
func startFake(t *testing.T, l lure) (dataDir string, port int) {
	t.Helper()
	nobody := &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}
	dir, err := throwaway.Dir("", "dbmem-fake-", nobody)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	if port, err = throwaway.FreePort(); err != nil {
		t.Fatal(err)
	}
	dataDir = filepath.Join(dir, "data")
	conf := fmt.Sprintf("shared_preload_libraries = '%s'\nshared_buffers = 9GB\nport = %d\n", l.so, port)
	sleep, _ := os.ReadFile("/bin/sleep")
	write := func(p string, b []byte, mode os.FileMode) {
		if err := os.WriteFile(p, b, mode); err != nil {
			t.Fatal(err)
		}
		os.Chown(p, 65534, 65534)
	}
	os.Mkdir(dataDir, 0o700)
	os.Chown(dataDir, 65534, 65534)
	write(filepath.Join(dir, "postgres"), sleep, 0o755)
	write(filepath.Join(dataDir, "PG_VERSION"), []byte(strconv.Itoa(installedMajor(t))+"\n"), 0o600)
	write(filepath.Join(dataDir, "postgresql.conf"), []byte(conf), 0o600)
	cmd := exec.Command("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", filepath.Join(dir, "postgres"), "3600")
	cmd.Dir, cmd.Env = dataDir, []string{}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for end := time.Now().Add(2 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", cmd.Process.Pid)); exe == filepath.Join(dir, "postgres") {
			return dataDir, port
		}
		if time.Now().After(end) {
			t.Fatal("setpriv did not start the fake postgres within 2 minutes")
		}
	}
}

func installedMajor(t *testing.T) int {
	t.Helper()
	bin, err := pgcluster.FindBin("")
	if err != nil {
		t.Fatal(err)
	}
	m, err := pgcluster.MajorVersion(bin)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// planJSON runs dbmem plan --json with args, in an environment that holds
// a secret of root's, and decodes the plan.
func planJSON(t *testing.T, args ...string) (advise.PlanResult, string) {
	t.Helper()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=/root", "DBMEM_ROOT_SECRET=root-secret-marker"}
	code, out, errs := runAs(t, nil, env, append([]string{"plan", "--json", "--no-connect"}, args...)...)
	var r advise.PlanResult
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil {
		t.Fatalf("dbmem plan %v: exit %d\n%s\n%s", args, code, out, errs)
	}
	return r, out
}

// leftOut reports whether the plan left out the instance of dataDir,
// saying how to trust it.
func leftOut(r advise.PlanResult, dataDir string) bool {
	for _, l := range r.LeftOut {
		if strings.Contains(l.Subject, dataDir) && strings.Contains(l.Why, "--server-account nobody") {
			return strings.Contains(strings.Join(r.Notes, "\n"), l.Subject+" left out of the host-wide plan")
		}
	}
	return false
}

// planned reports whether the plan sized its pool for the instance of
// dataDir (9GB of shared_buffers: at least 4608 pages of 2 MiB).
func planned(r advise.PlanResult, dataDir string) bool {
	for _, w := range r.WorstCases {
		if strings.Contains(w.Subject, dataDir) {
			return len(r.LeftOut) == 0 && (r.HugePages == nil || r.HugePages.NeedPages*r.HugePages.PageSizeBytes >= 9<<30)
		}
	}
	return false
}

// TestInstanceConfigurationRunsNoCode reproduces the attack as nobody: a
// fake postgres whose configuration preloads evil.so and asks for 9GB of
// shared_buffers. Root's plan, and plan --from a capture of the host,
// never run the library (nor give it root's environment), and leave the
// fake out of the huge page pool with a note; --server-account nobody
// brings it back, still without running the library.
func TestInstanceConfigurationRunsNoCode(t *testing.T) {
	binaries(t)
	l := buildEvil(t)
	data, port := startFake(t, l)
	p := "--pg-port=" + strconv.Itoa(port)
	r, _ := planJSON(t, p)
	l.ran(t, "plan")
	if !leftOut(r, data) || r.HugePages != nil {
		t.Errorf("plan: the fake is not left out with a note (left out %+v, pool %+v, notes %q)", r.LeftOut, r.HugePages, r.Notes)
	}
	if r, _ = planJSON(t, p, "--server-account", "nobody"); !planned(r, data) {
		t.Errorf("plan --server-account nobody: the fake is not planned (left out %+v, pool %+v)", r.LeftOut, r.HugePages)
	}
	l.ran(t, "plan --server-account nobody")
	bundle := filepath.Join(t.TempDir(), "host.tar.gz")
	if code, out, errs := runAs(t, nil, nil, "capture", "--fast", "--no-connect", "-o", bundle); code != 0 {
		t.Fatalf("capture: exit %d\n%s\n%s", code, out, errs)
	}
	r, _ = planJSON(t, p, "--from", bundle)
	l.ran(t, "plan --from")
	if !leftOut(r, data) {
		t.Errorf("plan --from: the fake is not left out with a note (left out %+v, notes %q)", r.LeftOut, r.Notes)
	}
	if r, _ = planJSON(t, p, "--from", bundle, "--server-account", "nobody"); !planned(r, data) {
		t.Errorf("plan --from --server-account nobody: the fake is not planned (left out %+v, pool %+v)", r.LeftOut, r.HugePages)
	}
	l.ran(t, "plan --from --server-account nobody")
}

// initdbAsNobody makes a real, stopped cluster that nobody owns, whose
// postgresql.conf preloads evil.so.
func initdbAsNobody(t *testing.T, l lure) string {
	t.Helper()
	nobody := &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}
	dir, err := throwaway.Dir("", "dbmem-nobodys-", nobody)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	bin, err := pgcluster.FindBin("")
	if err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	cmd := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-A", "trust", "--no-sync", "-U", "postgres")
	cmd.Env, cmd.Dir = pgcluster.Env(), dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: nobody}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("initdb as nobody: %v\n%s", err, out)
	}
	f, err := os.OpenFile(filepath.Join(data, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "shared_preload_libraries = '%s'\nshared_buffers = 64MB\n", l.so)
	f.Close()
	return data
}

// TestStoppedDataDirRunsNoCode: plan --data-dir of a real cluster nobody
// made, preloading evil.so. Nobody is not trusted: nothing is run, the
// need is estimated from its files and it is left out of the pool. With
// --server-account nobody, postgres -C runs as nobody, exact, but with
// every library setting emptied: the library never loads.
func TestStoppedDataDirRunsNoCode(t *testing.T) {
	binaries(t)
	l := buildEvil(t)
	data := initdbAsNobody(t, l)
	r, _ := planJSON(t, "--data-dir", data)
	l.ran(t, "plan --data-dir")
	if !leftOut(r, data) || !strings.Contains(strings.Join(r.Notes, "\n"), "nothing was run for it (its data directory "+data+" is owned by nobody") || r.LeftOut[0].Need.Exact {
		t.Errorf("plan --data-dir of nobody's cluster: left out %+v, notes %q", r.LeftOut, r.Notes)
	}
	r, _ = planJSON(t, "--data-dir", data, "--server-account", "nobody")
	l.ran(t, "plan --data-dir --server-account nobody")
	hp := r.HugePages
	if len(r.LeftOut) > 0 || hp == nil || !hp.Exact || !strings.Contains(hp.Formula, "postgres -D "+data+" -C shared_memory_size_in_huge_pages") ||
		!strings.Contains(strings.Join(r.Notes, "\n"), "shared_preload_libraries = '"+l.so+"' were not loaded") {
		t.Errorf("plan --data-dir --server-account nobody: pool %+v, left out %+v, notes %q", hp, r.LeftOut, r.Notes)
	}
}
