package render

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/advise"
)

// hugeRequest is one huge page size's request for the pod.
type hugeRequest struct {
	size  string // "2Mi", "1Gi"
	pages uint64
	from  advise.Setting
}

// quantity is the request in Kubernetes units: pages x page size.
func (h hugeRequest) quantity() string {
	if h.size == "1Gi" {
		return strconv.FormatUint(h.pages, 10) + "Gi"
	}
	return strconv.FormatUint(h.pages*2, 10) + "Mi"
}

// hugeRequests finds the pool sizes in the settings: vm.nr_hugepages (the
// default size: 1Gi when default_hugepagesz=1G is on the command line),
// /sys pools, and hugepages= after hugepagesz= on the command line.
func hugeRequests(settings []advise.Setting) []hugeRequest {
	def, size := "2Mi", ""
	var out []hugeRequest
	add := func(sz string, s advise.Setting) {
		if n, err := strconv.ParseUint(s.Value, 10, 64); err == nil && n > 0 {
			out = append(out, hugeRequest{sz, n, s})
		}
	}
	for _, s := range Of(settings, advise.TargetKernelArgs) {
		switch {
		case s.Name == "default_hugepagesz" && isGiB(s.Value):
			def = "1Gi"
		case s.Name == "hugepagesz":
			size = map[bool]string{true: "1Gi", false: "2Mi"}[isGiB(s.Value)]
		case s.Name == "hugepages" && size != "":
			add(size, s)
		}
	}
	for _, s := range settings {
		switch {
		case s.Target == advise.TargetSysctl && s.Name == "vm.nr_hugepages":
			add(def, s)
		case s.Target == advise.TargetSysfs && strings.Contains(s.Name, "hugepages-1048576kB/nr_hugepages"):
			add("1Gi", s)
		case s.Target == advise.TargetSysfs && strings.Contains(s.Name, "hugepages-2048kB/nr_hugepages"):
			add("2Mi", s)
		}
	}
	return dedupeSizes(out)
}

func isGiB(v string) bool {
	v = strings.ToUpper(v)
	return v == "1G" || v == "1GB" || v == "1073741824"
}

// dedupeSizes keeps the last request of each size.
func dedupeSizes(in []hugeRequest) []hugeRequest {
	var out []hugeRequest
	for i, h := range in {
		later := false
		for _, g := range in[i+1:] {
			later = later || g.size == h.size
		}
		if !later {
			out = append(out, h)
		}
	}
	return out
}

// resource is one container resource line.
type resource struct {
	name, value string
	from        *advise.Setting // what explains it; nil for memory given in Options
	shown       string          // the comment head
}

// podResources are the container's requests (limits are equal): the
// kubernetes settings when the plan has them, else the pools and
// Options.Pod.MemoryBytes.
func podResourceList(settings []advise.Setting, o Options) []resource {
	var out []resource
	for _, s := range Of(settings, advise.TargetKubernetes) {
		if name, ok := strings.CutPrefix(s.Name, "resources.requests."); ok {
			s := s
			out = append(out, resource{name, s.Value, &s, name + ": " + s.Value})
		}
	}
	if len(out) > 0 {
		return out
	}
	if o.Pod.MemoryBytes > 0 {
		out = append(out, resource{name: "memory", value: strconv.FormatUint((o.Pod.MemoryBytes+(1<<20)-1)>>20, 10) + "Mi"})
	}
	for _, h := range hugeRequests(settings) {
		h := h
		h.from.Current = ""
		out = append(out, resource{"hugepages-" + h.size, h.quantity(), &h.from,
			"hugepages-" + h.size + ": " + h.quantity() + " = " + h.from.Value + " pages x " + h.size})
	}
	return out
}

func kubernetes(settings []advise.Setting, o Options) (string, error) {
	res := podResourceList(settings, o)
	pg := Of(settings, advise.TargetPostgres)
	if len(res) == 0 && len(pg) == 0 {
		return "", fmt.Errorf("kubernetes: %w", ErrNoSettings)
	}
	t := newText("#")
	t.header("Kubernetes: the database pod's memory and huge pages", o.Generated,
		"kubectl apply -f this-file (merge the resources and volumes into your StatefulSet)")
	nodeNotes(t, settings)
	t.line("apiVersion: v1")
	t.line("kind: Pod")
	t.line("metadata:")
	t.line("  name: " + o.Pod.Name)
	t.line("spec:")
	t.line("  containers:")
	t.line("    - name: " + o.Pod.Container)
	t.line("      image: " + o.Pod.Image)
	podArgs(t, pg)
	podResources(t, res)
	podVolumes(t, res)
	return t.String(), nil
}

func nodeNotes(t *text, settings []advise.Setting) {
	t.comment("On the node, not in the pod: the pool must exist before the pod is scheduled "+
		"(kubelet reports it as allocatable hugepages-<size>); kubelet runs nodes with "+
		"vm.overcommit_memory=1, so overcommit settings do not apply.", "")
	for _, s := range append(Of(settings, advise.TargetSysctl), Of(settings, advise.TargetKernelArgs)...) {
		t.comment("node: "+strings.TrimSuffix(s.Name+"="+s.Value, "="), "  ")
	}
	t.blank()
}

func podArgs(t *text, pg []advise.Setting) {
	if len(pg) == 0 {
		return
	}
	t.line("      args:")
	t.line("        - postgres")
	for _, s := range pg {
		t.pad = "        "
		t.explain(s, s.Name+"="+s.Value)
		t.pad = ""
		t.line("        - -c")
		t.line("        - " + yamlQuote(s.Name+"="+s.Value))
	}
}

func podResources(t *text, res []resource) {
	t.line("      resources:")
	hasMem := false
	for _, kind := range []string{"requests", "limits"} {
		t.line("        " + kind + ":")
		for _, r := range res {
			hasMem = hasMem || r.name == "memory"
			if kind == "requests" && r.from != nil {
				t.pad = "          "
				t.explain(*r.from, r.shown)
				t.pad = ""
			}
			t.line("          " + r.name + ": " + r.value)
		}
		if !hasMem {
			t.pad = "          "
			t.comment("memory: besides huge pages: the backends' private memory "+
				"(max_connections x (work_mem x sort/hash nodes + ~2 MiB)) + maintenance_work_mem x "+
				"autovacuum workers; Kubernetes needs a memory or cpu request with huge pages", "  ")
			t.pad = ""
		}
	}
}

func podVolumes(t *text, res []resource) {
	var sizes []string
	for _, r := range res {
		if size, ok := strings.CutPrefix(r.name, "hugepages-"); ok {
			sizes = append(sizes, size)
		}
	}
	if len(sizes) == 0 {
		return
	}
	t.line("      volumeMounts:")
	for _, s := range sizes {
		t.line("        - name: hugepages-" + strings.ToLower(s))
		t.line("          mountPath: /hugepages-" + s)
	}
	t.line("  volumes:")
	for _, s := range sizes {
		t.line("    - name: hugepages-" + strings.ToLower(s))
		t.line("      emptyDir:")
		t.line("        medium: HugePages-" + s)
	}
}

// yamlQuote double-quotes a scalar, escaping backslashes and quotes.
func yamlQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
