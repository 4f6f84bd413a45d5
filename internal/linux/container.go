package linux

import (
	"slices"

	"github.com/dbmem/dbmem/internal/units"

	"path"
	"regexp"
	"strings"
)

// Container is what the cgroup path of a process says about where it runs.
// Runtimes name the cgroup after the container: docker-<id>.scope or
// /docker/<id> (Docker), cri-containerd-<id>.scope (containerd under CRI),
// crio-<id>.scope (CRI-O), libpod-<id>.scope (Podman), and Kubernetes puts
// pods under kubepods.slice/... or /kubepods/<qos>/pod<uid>/.
type Container struct {
	// Runtime is "docker", "containerd", "cri-o", "podman", "lxc" or ""
	// when only a Kubernetes pod was recognised.
	Runtime string `json:"runtime,omitempty"`
	ID      string `json:"id,omitempty"` // container id as in the path
	// Kubernetes is true inside a pod; PodUID and QOS ("guaranteed",
	// "burstable", "besteffort") come from the pod's cgroup.
	Kubernetes bool   `json:"kubernetes,omitempty"`
	PodUID     string `json:"pod_uid,omitempty"`
	QOS        string `json:"qos,omitempty"`
	// CgroupPath is the path the match was made on.
	CgroupPath string `json:"cgroup_path"`
}

// ShortID is the first 12 characters of the id, as docker ps prints it.
func (c Container) ShortID() string {
	if len(c.ID) > 12 {
		return c.ID[:12]
	}
	return c.ID
}

// String names the container for reports: "kubernetes pod 1234-... (burstable),
// containerd 3f4e5a6b7c8d".
func (c Container) String() string {
	var parts []string
	if c.Kubernetes {
		p := "kubernetes pod " + units.Or(c.PodUID, "?")
		if c.QOS != "" {
			p += " (" + c.QOS + ")"
		}
		parts = append(parts, p)
	}
	if c.Runtime != "" {
		parts = append(parts, strings.TrimSpace(c.Runtime+" "+c.ShortID()))
	}
	return strings.Join(parts, ", ")
}

var (
	// scopeRe matches systemd scopes of container runtimes.
	scopeRe = regexp.MustCompile(`^(docker|cri-containerd|crio|libpod|containerd)-([0-9a-f]{12,64})\.scope$`)
	hexIDRe = regexp.MustCompile(`^[0-9a-f]{64}$`)
	// podRe matches "pod<uid>" (cgroupfs driver) and
	// "kubepods-burstable-pod<uid>.slice" (systemd driver, dashes for underscores).
	podRe = regexp.MustCompile(`^(?:kubepods(?:-[a-z]+)?-)?pod([0-9a-f_-]{8,})(?:\.slice)?$`)
)

var runtimeNames = map[string]string{
	"docker": "docker", "cri-containerd": "containerd", "containerd": "containerd",
	"crio": "cri-o", "libpod": "podman",
}

// ParseContainer recognises a container or pod in one cgroup path. It is
// pure and never fails: ok is false for paths of ordinary services.
func ParseContainer(cgroupPath string) (Container, bool) {
	c := Container{CgroupPath: cgroupPath}
	parts := strings.Split(strings.Trim(path.Clean("/"+cgroupPath), "/"), "/")
	for i, p := range parts {
		c.element(p, parts[:i])
	}
	return c, c.Kubernetes || c.Runtime != ""
}

// element applies one path element; parents are the elements before it.
func (c *Container) element(p string, parents []string) {
	switch {
	case c.Kubernetes && podRe.MatchString(p):
		c.PodUID = strings.ReplaceAll(podRe.FindStringSubmatch(p)[1], "_", "-")
		c.qosFrom(p)
	case p == "kubepods" || p == "kubepods.slice" || strings.HasPrefix(p, "kubepods-"):
		c.Kubernetes = true
		c.QOS = "guaranteed" // pods of the other classes sit one level below
		c.qosFrom(p)
	case c.Kubernetes && (p == "burstable" || p == "besteffort"):
		c.QOS = p
	case scopeRe.MatchString(p):
		m := scopeRe.FindStringSubmatch(p)
		c.Runtime, c.ID = runtimeNames[m[1]], m[2]
	case hexIDRe.MatchString(p):
		c.Runtime, c.ID = runtimeFromParent(parents), p
	case strings.HasPrefix(p, "lxc.payload."):
		c.Runtime, c.ID = "lxc", strings.TrimPrefix(p, "lxc.payload.")
	}
}

func (c *Container) qosFrom(p string) {
	for _, q := range []string{"burstable", "besteffort"} {
		if strings.Contains(p, q) {
			c.QOS = q
		}
	}
}

// runtimeFromParent names the runtime of a bare 64-hex cgroup by its parent
// ("/docker/<id>", "/lxc/<id>"); "container" when the parent says nothing.
func runtimeFromParent(parents []string) string {
	if len(parents) > 0 {
		switch parents[len(parents)-1] {
		case "docker":
			return "docker"
		case "lxc":
			return "lxc"
		case "machine.slice", "libpod_parent":
			return "podman"
		}
	}
	return "container"
}

// ContainerOf looks for a container in every line of /proc/PID/cgroup
// (the memory controller's path first on v1, where paths can differ).
func ContainerOf(lines []CgroupLine) (Container, bool) {
	var best Container
	found := false
	for _, l := range lines {
		c, ok := ParseContainer(l.Path)
		if !ok {
			continue
		}
		if !found || slices.Contains(l.Controllers, "memory") || (c.Kubernetes && !best.Kubernetes) {
			best, found = c, true
		}
	}
	return best, found
}
