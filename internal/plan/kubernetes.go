package plan

import (
	"fmt"
	"math"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/render"
	"github.com/dbmem/dbmem/internal/units"
)

// Kubernetes builds the pod of the "kubernetes" format from a plan and its
// input: one container per planned instance, with the instance's own huge
// pages (its need plus the margin in bytes, rounded up to pages) and its
// worst case as memory, both within the node's allocatable memory.
func Kubernetes(in advise.PlanInput, r advise.PlanResult, generated string) render.Kube {
	k := render.Kube{Generated: generated, PodName: "database", Node: kubeNode(r)}
	for _, s := range r.Settings {
		switch s.Target {
		case finding.TargetSysctl, finding.TargetSysfs, finding.TargetKernelArgs:
			k.NodeSettings = append(k.NodeSettings, s)
		}
	}
	names := map[string]int{}
	for i, pi := range in.Instances {
		c := kubeContainer(pi, r)
		names[c.Name]++
		if n := names[c.Name]; n > 1 {
			c.Name = fmt.Sprintf("%s-%d", c.Name, n)
		}
		if i < len(r.WorstCases) {
			c.MemoryBytes, c.MemoryFormula = advise.ContainerMemory(r.WorstCases[i].WorstCase, r.HugePages != nil)
		}
		k.Containers = append(k.Containers, c)
	}
	fitNode(&k)
	return k
}

// kubeNode: allocatable memory is MemTotal minus the planned pool, the
// reserve kubelet keeps and the eviction threshold. The reserve follows
// GKE's published formula; other distributions set their own kubelet flags.
func kubeNode(r advise.PlanResult) render.KubeNode {
	n := render.KubeNode{MemTotalBytes: r.Host.RAMBytes, ReservedBytes: kubeReserved(r.Host.RAMBytes), EvictionBytes: 100 << 20,
		Assumption: "assumed: kube-reserved as GKE computes it (25% of the first 4 GiB, 20% of the next 4, 10% of the next 8, " +
			"6% up to 128 GiB, 2% above) and eviction at memory.available<100Mi; " +
			"kubectl get node NAME -o jsonpath='{.status.allocatable}' shows your node's"}
	if r.HugePages != nil {
		n.HugePoolBytes = r.HugePages.PoolBytes
	}
	return n
}

func kubeReserved(ram uint64) uint64 {
	const gib = float64(1 << 30)
	g := float64(ram) / gib
	if g < 1 {
		return 255 << 20
	}
	steps := []struct{ upTo, share float64 }{{4, 0.25}, {8, 0.20}, {16, 0.10}, {128, 0.06}, {math.Inf(1), 0.02}}
	var res, from float64
	for _, s := range steps {
		if g > from {
			res += (math.Min(g, s.upTo) - from) * s.share
		}
		from = s.upTo
	}
	return uint64(res * gib)
}

func kubeContainer(pi advise.PlannedInstance, r advise.PlanResult) render.KubeContainer {
	c := render.KubeContainer{Engine: pi.Engine.Name, Major: pi.Engine.Major}
	c.Name, c.Image, c.ImageNote = kubeImage(pi.Engine)
	for _, s := range r.Settings {
		if (s.Target == finding.TargetPostgres || s.Target == finding.TargetMySQL) && s.Unit == pi.Unit {
			c.Settings = append(c.Settings, s)
		}
	}
	if hp := r.HugePages; hp != nil {
		pages, formula := containerPages(pi.Need, hp.PageSizeBytes, hp.MarginPercent)
		c.HugePageSize = advise.PageSizeName(hp.PageSizeBytes, "k8s")
		c.HugePagesBytes, c.HugeFormula = pages*hp.PageSizeBytes, formula
	}
	return c
}

// kubeImage is the official image of the planned version.
func kubeImage(e advise.Engine) (name, image, note string) {
	switch e.Name {
	case finding.EngineMariaDB, finding.EngineMySQL:
		name = e.Name
		if e.Major == 0 {
			return name, name, "version unknown: pin the tag of the running server"
		}
		return name, fmt.Sprintf("%s:%d.%d", name, e.Major, e.Minor), "the running server's version"
	}
	if e.Major == 0 {
		return "postgres", "postgres", "version unknown: pin the major version of the data directory"
	}
	return "postgres", fmt.Sprintf("postgres:%d", e.Major), "the data directory's major version"
}

// containerPages is the instance's need plus the margin in bytes, rounded
// up to whole pages (advise.PoolPages; an engine's own margin, MySQL's, is
// already in it).
func containerPages(n advise.HugePageNeed, page uint64, margin float64) (uint64, string) {
	need := n.Pages
	if n.PageSizeBytes != page || need == 0 {
		need = advise.HugePagesFor(n.SharedBytes, page)
	}
	if n.OwnMarginPages > 0 || margin <= 0 {
		return need, fmt.Sprintf("%d pages of %s (%s)", need, units.Bytes(page), n.Source)
	}
	bytes := n.SharedBytes
	if bytes == 0 || bytes > need*page {
		bytes = need * page
	}
	pages := advise.PoolPages(n, page, margin)
	return pages, fmt.Sprintf("%s x %.3g%% margin, rounded up to %d pages of %s (%s)",
		units.Bytes(bytes), 100+margin, pages, units.Bytes(page), n.Source)
}

// fitNode scales the containers' memory down, in proportion, when together
// they exceed the node's allocatable memory, and says so: a request above
// allocatable leaves the pod Pending forever.
func fitNode(k *render.Kube) {
	alloc := k.Node.AllocatableBytes()
	var sum uint64
	for _, c := range k.Containers {
		sum += c.MemoryBytes
	}
	if sum <= alloc || sum == 0 {
		return
	}
	for i := range k.Containers {
		c := &k.Containers[i]
		capped := uint64(float64(c.MemoryBytes) * float64(alloc) / float64(sum))
		capped -= capped % (1 << 20)
		c.MemoryFormula += fmt.Sprintf("; capped to %s so the pod fits the node's allocatable %s: past it the container is "+
			"OOM-killed, lower max_connections or work_mem (or buffers) to make the worst case fit", units.Bytes(capped), units.Bytes(alloc))
		c.MemoryBytes = capped
	}
}
