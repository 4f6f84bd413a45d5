package render

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/units"
)

// Kube is what the "kubernetes" format writes: one container per planned
// instance in one pod, the node's settings apart, and a CloudNativePG
// Cluster for each PostgreSQL instance.
type Kube struct {
	Generated  string
	PodName    string // default "database"
	Containers []KubeContainer
	Node       KubeNode
	// NodeSettings are the plan's sysctl, sysfs and kernel-cmdline settings:
	// they belong to the node, never to the pod.
	NodeSettings []finding.Setting
}

// KubeContainer is one database's container.
type KubeContainer struct {
	Name, Image string
	// ImageNote says why the tag is what it is (the planned version, or
	// unknown).
	ImageNote string
	// Engine is finding.EnginePostgres, EngineMySQL or EngineMariaDB; Major
	// the PostgreSQL major version (for CloudNativePG's image).
	Engine string
	Major  int
	// Settings are the engine's planned settings, passed as arguments.
	Settings []finding.Setting
	// HugePageSize is "2Mi" or "1Gi"; HugePagesBytes the request (pages x
	// size), 0 without huge pages.
	HugePageSize   string
	HugePagesBytes uint64
	HugeFormula    string
	MemoryBytes    uint64
	MemoryFormula  string
}

// KubeNode is the node the pod must fit on.
type KubeNode struct {
	MemTotalBytes, HugePoolBytes uint64
	// ReservedBytes is kube-reserved + system-reserved, EvictionBytes the
	// hard eviction threshold: allocatable memory is MemTotal - huge pages
	// - both.
	ReservedBytes, EvictionBytes uint64
	Assumption                   string
}

// AllocatableBytes is the node's allocatable memory (huge pages excluded).
func (n KubeNode) AllocatableBytes() uint64 {
	used := n.HugePoolBytes + n.ReservedBytes + n.EvictionBytes
	if used >= n.MemTotalBytes {
		return 0
	}
	return n.MemTotalBytes - used
}

// Kubernetes renders the pod, then a CloudNativePG Cluster per PostgreSQL
// container, as YAML documents preceded by comments that explain every
// value and list the node's settings.
func Kubernetes(k Kube) (string, error) {
	if len(k.Containers) == 0 {
		return "", fmt.Errorf("kubernetes: %w (no database instance to put in a pod)", ErrNoSettings)
	}
	t := newText("#")
	t.header("Kubernetes: the database pod's memory and huge pages", orDefault(k.Generated, "dbmem"),
		"kubectl apply -f this-file, or merge the containers' resources and volumes into your StatefulSet")
	kubeNodeComments(t, k)
	p := kubePod(k)
	kubePodComments(t, k, p)
	docs := []any{p}
	for _, c := range k.Containers {
		if c.Engine == finding.EnginePostgres {
			docs = append(docs, cnpg(k, c))
		}
	}
	for i, d := range docs {
		b, err := yaml.Marshal(d)
		if err != nil {
			return "", err
		}
		if i > 0 {
			t.line("---")
			t.comment("CloudNativePG: the same PostgreSQL as a Cluster (resources, huge pages, parameters). "+
				"storage.size 10Gi is a placeholder: set your own, with bootstrap and backup.", "")
		}
		t.b.Write(b)
	}
	return t.String(), nil
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func kubeNodeComments(t *text, k Kube) {
	n := k.Node
	t.comment("ON THE NODE, not in the pod: the huge page pool must exist before the pod is scheduled "+
		"(kubelet then reports it as allocatable hugepages-<size>). kubelet runs nodes with "+
		"vm.overcommit_memory=1: overcommit settings do not apply to a node.", "")
	for _, s := range k.NodeSettings {
		if strings.HasPrefix(s.Name, "vm.overcommit_") {
			continue
		}
		t.comment("  node "+string(s.Target)+": "+strings.TrimSuffix(s.Name+"="+s.Value, "="), "    ")
	}
	t.comment(fmt.Sprintf("Node memory: %s total - %s huge pages - %s reserved - %s eviction threshold = %s allocatable "+
		"(%s).", q(n.MemTotalBytes), q(n.HugePoolBytes), q(n.ReservedBytes), q(n.EvictionBytes), q(n.AllocatableBytes()), n.Assumption), "  ")
	t.blank()
}

func q(b uint64) string { return units.Quantity(b) }

func kubePodComments(t *text, k Kube, p pod) {
	t.comment("QoS class: Burstable. The containers set memory and huge pages (requests = limits) but no cpu; "+
		"set cpu requests = limits in every container to make the pod Guaranteed.", "  ")
	if countEngine(k, finding.EnginePostgres) > 1 {
		t.comment("Containers of one pod share its network: give each PostgreSQL its own port (-c port=...) or its own pod.", "  ")
	}
	for _, c := range k.Containers {
		t.comment(fmt.Sprintf("container %s: image %s (%s)", c.Name, c.Image, c.ImageNote), "  ")
		if c.HugePagesBytes > 0 {
			t.comment(fmt.Sprintf("  hugepages-%s: %s = %s", c.HugePageSize, q(c.HugePagesBytes), c.HugeFormula), "    ")
		}
		t.comment(fmt.Sprintf("  memory: %s = %s", q(c.MemoryBytes), c.MemoryFormula), "    ")
		for _, s := range c.Settings {
			t.comment("  "+s.Name+"="+s.Value+": "+s.Why, "    ")
		}
	}
	t.blank()
}

func kubePod(k Kube) pod {
	p := pod{APIVersion: "v1", Kind: "Pod", Metadata: objectMeta{Name: orDefault(k.PodName, "database"),
		Labels: map[string]string{"app.kubernetes.io/managed-by": "dbmem-plan"}}}
	sizes := map[string]bool{}
	for _, c := range k.Containers {
		ct := container{Name: c.Name, Image: c.Image, Args: containerArgs(c), Resources: containerResources(c)}
		if c.HugePagesBytes > 0 {
			sizes[c.HugePageSize] = true
			ct.VolumeMounts = []volumeMount{{Name: hugeVolume(c.HugePageSize), MountPath: "/hugepages-" + c.HugePageSize}}
		}
		p.Spec.Containers = append(p.Spec.Containers, ct)
	}
	for _, s := range slices.Sorted(maps.Keys(sizes)) {
		p.Spec.Volumes = append(p.Spec.Volumes, volume{Name: hugeVolume(s), EmptyDir: &emptyDir{Medium: "HugePages-" + s}})
	}
	return p
}

func hugeVolume(size string) string { return "hugepages-" + strings.ToLower(size) }

// containerResources: memory and huge pages, requests equal to limits.
func containerResources(c KubeContainer) resources {
	r := map[string]string{"memory": q(c.MemoryBytes)}
	if c.HugePagesBytes > 0 {
		r["hugepages-"+c.HugePageSize] = q(c.HugePagesBytes)
	}
	lim := map[string]string{}
	for k, v := range r {
		lim[k] = v
	}
	return resources{Requests: r, Limits: lim}
}

// containerArgs pass the planned settings: -c name=value to postgres (the
// official image runs postgres with them), --name=value to mysqld/mariadbd.
func containerArgs(c KubeContainer) []string {
	var out []string
	for _, s := range c.Settings {
		if c.Engine == finding.EnginePostgres {
			out = append(out, "-c", s.Name+"="+s.Value)
		} else {
			out = append(out, "--"+strings.ReplaceAll(s.Name, "_", "-")+"="+s.Value)
		}
	}
	return out
}

func cnpg(k Kube, c KubeContainer) cnpgCluster {
	params := map[string]string{}
	for _, s := range c.Settings {
		params[s.Name] = s.Value
	}
	cl := cnpgCluster{APIVersion: "postgresql.cnpg.io/v1", Kind: "Cluster",
		Metadata: objectMeta{Name: orDefault(k.PodName, "database") + "-" + c.Name},
		Spec: cnpgSpec{Instances: 1, PostgreSQL: cnpgPostgres{Parameters: params}, Resources: containerResources(c),
			Storage: cnpgStorage{Size: "10Gi"}}}
	if c.Major > 0 {
		cl.Spec.ImageName = fmt.Sprintf("ghcr.io/cloudnative-pg/postgresql:%d", c.Major)
	}
	return cl
}

func countEngine(k Kube, engine string) int {
	n := 0
	for _, c := range k.Containers {
		if c.Engine == engine {
			n++
		}
	}
	return n
}
