package linux

import (
	"strings"
	"testing"
)

// Cgroup paths as runtimes write them (docker 24 with the systemd and the
// cgroupfs drivers, containerd and CRI-O under Kubernetes with both
// drivers, Podman, LXD).
func TestParseContainer(t *testing.T) {
	id := strings.Repeat("3f4e5a6b", 8)
	uid := "8a1f6c2e-7b3d-4e5f-9a0b-1c2d3e4f5a6b"
	uidSd := strings.ReplaceAll(uid, "-", "_")
	cases := []struct {
		path string
		want Container
		ok   bool
	}{
		{"/system.slice/docker-" + id + ".scope", Container{Runtime: "docker", ID: id}, true},
		{"/docker/" + id, Container{Runtime: "docker", ID: id}, true},
		{"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" + uidSd + ".slice/cri-containerd-" + id + ".scope",
			Container{Runtime: "containerd", ID: id, Kubernetes: true, PodUID: uid, QOS: "burstable"}, true},
		{"/kubepods.slice/kubepods-pod" + uidSd + ".slice/crio-" + id + ".scope",
			Container{Runtime: "cri-o", ID: id, Kubernetes: true, PodUID: uid, QOS: "guaranteed"}, true},
		{"/kubepods/besteffort/pod" + uid + "/" + id,
			Container{Runtime: "container", ID: id, Kubernetes: true, PodUID: uid, QOS: "besteffort"}, true},
		{"/machine.slice/libpod-" + id + ".scope", Container{Runtime: "podman", ID: id}, true},
		{"/lxc.payload.web1", Container{Runtime: "lxc", ID: "web1"}, true},
		{"/system.slice/mariadb.service", Container{}, false},
		{"/process_api/b9f0d6a38a56ae7e88883a6708d0ea5e", Container{}, false},
		{"/", Container{}, false},
		{"/user.slice/pod123", Container{}, false},
	}
	for _, c := range cases {
		got, ok := ParseContainer(c.path)
		c.want.CgroupPath = c.path
		if ok != c.ok || ok && got != c.want {
			t.Errorf("%s:\n got %+v %v\nwant %+v %v", c.path, got, ok, c.want, c.ok)
		}
	}
}

func TestContainerString(t *testing.T) {
	c, _ := ParseContainer("/kubepods/burstable/pod1234abcd/" + strings.Repeat("ab", 32))
	if got := c.String(); got != "kubernetes pod 1234abcd (burstable), container abababababab" {
		t.Errorf("String() = %q", got)
	}
}

func TestHugetlbSizeName(t *testing.T) {
	for size, want := range map[uint64]string{2 << 20: "2MB", 1 << 30: "1GB", 64 << 10: "64KB", 32 << 20: "32MB"} {
		if got := HugetlbSizeName(size); got != want {
			t.Errorf("%d: %q, want %q", size, got, want)
		}
	}
}

func FuzzParseContainer(f *testing.F) {
	f.Add("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1_2.slice/cri-containerd-" + strings.Repeat("a", 64) + ".scope")
	f.Add("/docker/" + strings.Repeat("0", 64))
	f.Fuzz(func(t *testing.T, p string) {
		c, ok := ParseContainer(p)
		if ok && !c.Kubernetes && c.Runtime == "" {
			t.Errorf("%q: ok without a runtime or pod", p)
		}
		_ = c.String()
	})
}

func TestParseMountinfo(t *testing.T) {
	vm := "26 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard\n21 26 0:20 / /proc rw,relatime - proc proc rw\n"
	if typ, ro := parseMountinfo(vm); typ != "ext4" || ro {
		t.Errorf("VM: %q %v", typ, ro)
	}
	docker := "812 700 0:52 / / rw,relatime master:1 - overlay overlay rw,lowerdir=/x\n" +
		"820 813 0:56 /sys /proc/sys ro,nosuid,nodev,noexec,relatime - proc proc rw\nbad line\n"
	if typ, ro := parseMountinfo(docker); typ != "overlay" || !ro {
		t.Errorf("docker: %q %v", typ, ro)
	}
}

func TestReadEnvironmentLive(t *testing.T) {
	e := ReadEnvironment(DefaultFS())
	if e.RootFSType == "" {
		t.Errorf("no root filesystem type: %+v", e)
	}
	t.Logf("this machine: %s (%+v)", e, e)
}

func TestSystemdUnit(t *testing.T) {
	v1 := ParseProcCgroup(strings.NewReader("9:name=systemd:/system.slice/mariadb.service\n4:memory:/system.slice/mariadb.service\n0::/\n"))
	v2 := ParseProcCgroup(strings.NewReader("0::/system.slice/postgresql@15-main.service\n"))
	none := ParseProcCgroup(strings.NewReader("9:name=systemd:/\n4:memory:/process_api/x\n0::/\n"))
	if SystemdUnit(v1) != "mariadb.service" || SystemdUnit(v2) != "postgresql@15-main.service" || SystemdUnit(none) != "" {
		t.Errorf("units %q %q %q", SystemdUnit(v1), SystemdUnit(v2), SystemdUnit(none))
	}
}
