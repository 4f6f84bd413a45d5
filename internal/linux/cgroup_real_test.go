package linux_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/kerneltest"
	"github.com/dbmem/dbmem/internal/linux"
)

// testCgroup is a cgroup directory a test made; its parents made by the
// test are listed too, so cleanup removes them leaf first.
type testCgroup struct {
	dir, parent string
	made        []string
}

// makeCgroup creates rel (which may have several elements) under base.
// Cleanup moves any process left back to base and removes the directories.
func makeCgroup(t *testing.T, base, rel string) *testCgroup {
	t.Helper()
	cg := &testCgroup{dir: filepath.Join(base, rel), parent: base}
	p := base
	for _, el := range strings.Split(rel, "/") {
		p = filepath.Join(p, el)
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatalf("create cgroup %s: %v", p, err)
		}
		cg.made = append(cg.made, p)
	}
	t.Cleanup(func() { cg.remove(t) })
	return cg
}

func (cg *testCgroup) remove(t *testing.T) {
	b, _ := os.ReadFile(filepath.Join(cg.dir, "cgroup.procs"))
	for _, pid := range strings.Fields(string(b)) {
		os.WriteFile(filepath.Join(cg.parent, "cgroup.procs"), []byte(pid), 0)
	}
	for i := len(cg.made) - 1; i >= 0; i-- {
		var err error
		// A cgroup whose processes just left stays busy a moment (longer
		// on a loaded host).
		for end := time.Now().Add(2 * time.Minute); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
			if err = syscall.Rmdir(cg.made[i]); err == nil || errors.Is(err, syscall.ENOENT) {
				break
			}
		}
		if err != nil && !errors.Is(err, syscall.ENOENT) {
			t.Errorf("remove test cgroup %s: %v", cg.made[i], err)
		}
	}
}

func (cg *testCgroup) write(t *testing.T, rel, file, value string) {
	t.Helper()
	p := filepath.Join(cg.parent, rel, file)
	if err := os.WriteFile(p, []byte(value), 0); err != nil {
		t.Fatalf("write %q to %s: %v", value, p, err)
	}
}

func (cg *testCgroup) add(t *testing.T, pid int) {
	cg.write(t, strings.TrimPrefix(cg.dir, cg.parent), "cgroup.procs", strconv.Itoa(pid))
}

// ownV1Memory is this test's v1 memory cgroup directory, or skips.
func ownV1Memory(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		t.Skip(err)
	}
	for _, l := range linux.ParseProcCgroup(strings.NewReader(string(b))) {
		if slices.Contains(l.Controllers, "memory") {
			return filepath.Join("/sys/fs/cgroup/memory", l.Path)
		}
	}
	t.Skip("no cgroup v1 memory controller (pure cgroup v2 host)")
	return ""
}

// A pod-like v1 memory hierarchy made by the test below its own cgroup:
// kubepods/burstable/pod<uid>/<container id>, the limit set on the pod.
func TestRealCgroupV1PodMemory(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("creating cgroups needs root")
	}
	base := ownV1Memory(t)
	uid := fmt.Sprintf("%08x-7b3d-4e5f-9a0b-1c2d3e4f5a6b", os.Getpid())
	id := strings.Repeat(fmt.Sprintf("%08x", os.Getpid()), 8)
	pod := "kubepods/burstable/pod" + uid
	cg := makeCgroup(t, base, pod+"/"+id)
	cg.write(t, pod, "memory.limit_in_bytes", strconv.Itoa(256<<20))
	sleep := exec.Command("sleep", "60")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sleep.Process.Kill(); sleep.Wait() })
	cg.add(t, sleep.Process.Pid)

	info, gaps, err := linux.ReadCgroupInfo(linux.DefaultFS(), sleep.Process.Pid, []uint64{2 << 20})
	if err != nil || len(gaps) > 0 {
		t.Fatalf("read: %v %v", err, gaps)
	}
	c := info.Container
	if c == nil || !c.Kubernetes || c.QOS != "burstable" || c.PodUID != uid || c.ID != id {
		t.Errorf("container = %+v", c)
	}
	m := info.Memory
	rel := strings.TrimPrefix(base, "/sys/fs/cgroup/memory")
	if m == nil || m.Version != 1 || m.LimitBytes == nil || *m.LimitBytes != 256<<20 || m.LimitPath != rel+"/"+pod || m.Path != rel+"/"+pod+"/"+id {
		t.Errorf("memory = %+v (limit %v)", m, m.LimitBytes)
	}
}

// unifiedHugetlb enables the hugetlb controller for the children of the
// unified hierarchy's root (restored at cleanup) and returns the root.
func unifiedHugetlb(t *testing.T) string {
	t.Helper()
	for _, root := range []string{"/sys/fs/cgroup/unified", "/sys/fs/cgroup"} {
		b, err := os.ReadFile(filepath.Join(root, "cgroup.controllers"))
		if err != nil || !slices.Contains(strings.Fields(string(b)), "hugetlb") {
			continue
		}
		sub := filepath.Join(root, "cgroup.subtree_control")
		cur, _ := os.ReadFile(sub)
		if !slices.Contains(strings.Fields(string(cur)), "hugetlb") {
			if err := os.WriteFile(sub, []byte("+hugetlb"), 0); err != nil {
				t.Skipf("enable hugetlb in %s: %v", sub, err)
			}
			t.Cleanup(func() { os.WriteFile(sub, []byte("-hugetlb"), 0) })
		}
		return root
	}
	t.Skip("no cgroup v2 hierarchy with the hugetlb controller")
	return ""
}

// hugetool runs the helper that maps bytes of huge pages once told to.
type hugetool struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    *bufio.Reader
	stderr strings.Builder
}

func startHugetool(t *testing.T, bytes int) *hugetool {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "hugetool")
	if out, err := exec.Command("go", "build", "-o", bin, "./internal/hugetool").CombinedOutput(); err != nil {
		t.Fatalf("build hugetool: %v\n%s", err, out)
	}
	h := &hugetool{cmd: exec.Command(bin, "-bytes", strconv.Itoa(bytes))}
	h.stdin, _ = h.cmd.StdinPipe()
	stdout, _ := h.cmd.StdoutPipe()
	h.out = bufio.NewReader(stdout)
	h.cmd.Stderr = &h.stderr
	if err := h.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.stdin.Close(); h.cmd.Process.Kill(); h.cmd.Wait() })
	return h
}

// run lets the helper map and touch, and returns its output and exit error.
func (h *hugetool) run() (string, error) {
	io.WriteString(h.stdin, "go\n")
	var lines []string
	for {
		l, err := h.out.ReadString('\n')
		if l != "" {
			lines = append(lines, strings.TrimSpace(l))
		}
		if err != nil || strings.HasPrefix(l, "touched") {
			break
		}
	}
	h.stdin.Close()
	return strings.Join(lines, "; "), h.cmd.Wait()
}

// The SIGBUS of the operator issues, for real: a hugetlb fault limit of
// 2 pages and no reservation limit; a process maps 4 huge pages (the
// global pool has them, so mmap succeeds) and is killed by SIGBUS when it
// touches the third. With the reservation limit set, mmap fails instead.
func TestRealCgroupV2HugetlbSIGBUS(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("creating cgroups needs root")
	}
	kerneltest.AddHugePages(t, 4)
	root := unifiedHugetlb(t)
	id := strings.Repeat(fmt.Sprintf("%08x", os.Getpid()), 8)
	name := "docker-" + id + ".scope"
	cg := makeCgroup(t, root, name)
	cg.write(t, name, "hugetlb.2MB.max", strconv.Itoa(4<<20))

	h := startHugetool(t, 8<<20)
	cg.add(t, h.cmd.Process.Pid)
	hl := readHugetlb2MB(t, h.cmd.Process.Pid)
	if hl.Version != 2 || hl.LimitBytes == nil || *hl.LimitBytes != 4<<20 || hl.LimitPath != "/"+name || !hl.RsvdAccounting || !hl.FaultLimitOnly() {
		t.Errorf("hugetlb = %+v", hl)
	}
	// The Go runtime turns the SIGBUS into "fatal error: fault" and exit
	// status 2, naming the signal on stderr.
	out, err := h.run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || !strings.Contains(h.stderr.String(), "SIGBUS") || strings.Contains(out, "touched") {
		t.Errorf("want SIGBUS past the fault limit, got %v (output %q, stderr %.300s)", err, out, h.stderr.String())
	}
	for _, l := range strings.Split(h.stderr.String(), "\n") {
		if strings.Contains(l, "SIGBUS") {
			t.Logf("fault limit only: %q, %v: %s", out, err, l)
		}
	}

	cg.write(t, name, "hugetlb.2MB.rsvd.max", strconv.Itoa(4<<20))
	h2 := startHugetool(t, 8<<20)
	cg.add(t, h2.cmd.Process.Pid)
	if hl := readHugetlb2MB(t, h2.cmd.Process.Pid); hl.FaultLimitOnly() || hl.RsvdLimitBytes == nil || *hl.RsvdLimitBytes != 4<<20 {
		t.Errorf("with the reservation limit: %+v", hl)
	}
	out, err = h2.run()
	if !errors.As(err, &ee) || ee.ExitCode() != 3 || !strings.Contains(out, "cannot allocate memory") {
		t.Errorf("want mmap to fail with ENOMEM under the reservation limit, got %v (output %q)", err, out)
	}
	t.Logf("with reservation limit: %q, %v", out, err)
}

func readHugetlb2MB(t *testing.T, pid int) linux.CgroupHugetlb {
	t.Helper()
	info, _, err := linux.ReadCgroupInfo(linux.DefaultFS(), pid, []uint64{2 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if info.Container == nil || info.Container.Runtime != "docker" {
		t.Errorf("container = %+v", info.Container)
	}
	h, ok := info.HugetlbFor(2 << 20)
	if !ok {
		t.Fatalf("no hugetlb controller seen for pid %d: %+v", pid, info)
	}
	return h
}
