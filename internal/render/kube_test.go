package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"sigs.k8s.io/yaml"

	"github.com/dbmem/dbmem/internal/finding"
)

// kubePGMaria is a host with PostgreSQL 13 and MariaDB 10.11 sharing a
// 2 MiB pool on a 32 GiB node (the case: two engines, one pod).
func kubePGMaria() Kube {
	return Kube{Generated: "dbmem test", PodName: "db",
		Node: KubeNode{MemTotalBytes: 32 << 30, HugePoolBytes: 6 << 30, ReservedBytes: 2 << 30, EvictionBytes: 100 << 20, Assumption: "test"},
		NodeSettings: []finding.Setting{
			{Target: finding.TargetSysctl, Name: "vm.nr_hugepages", Value: "3072"},
			{Target: finding.TargetSysctl, Name: "vm.overcommit_memory", Value: "2"},
			{Target: finding.TargetSysfs, Name: "/sys/kernel/mm/transparent_hugepage/enabled", Value: "never"},
		},
		Containers: []KubeContainer{
			{Name: "postgres", Image: "postgres:13", ImageNote: "the data directory's major version", Engine: finding.EnginePostgres, Major: 13,
				Settings:     []finding.Setting{{Target: finding.TargetPostgres, Name: "huge_pages", Value: "on", Why: "try falls back silently"}},
				HugePageSize: "2Mi", HugePagesBytes: 4400 << 20, HugeFormula: "need + 2%", MemoryBytes: 3 << 30, MemoryFormula: "worst case"},
			{Name: "mariadb", Image: "mariadb:10.11", ImageNote: "the running server's version", Engine: finding.EngineMariaDB,
				Settings:     []finding.Setting{{Target: finding.TargetMySQL, Name: "large_pages", Value: "ON", Why: "buffer pool in huge pages"}},
				HugePageSize: "2Mi", HugePagesBytes: 1400 << 20, HugeFormula: "need + 10%", MemoryBytes: 2 << 30, MemoryFormula: "worst case"},
		}}
}

// strictDecoder is the API server's strict YAML decoder for core/v1:
// unknown fields and duplicate keys are errors.
func strictDecoder(t *testing.T) runtime.Decoder {
	t.Helper()
	s := runtime.NewScheme()
	if err := corev1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, s, s, kjson.SerializerOptions{Yaml: true, Strict: true})
}

func documents(out string) []string {
	return strings.Split(out, "\n---\n")
}

// TestKubernetesStrict decodes the pod with the Kubernetes API types in
// strict mode and checks what the issue found wrong: one container per
// instance, no duplicate keys or volumes, requests equal to limits with
// huge pages, requests within allocatable, the planned image, no node
// settings in the pod, and no false QoS claim.
func TestKubernetesStrict(t *testing.T) {
	k := kubePGMaria()
	out, err := Kubernetes(k)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "kubernetes", out)
	docs := documents(out)
	if len(docs) != 2 {
		t.Fatalf("%d documents, want a Pod and a CloudNativePG Cluster", len(docs))
	}
	obj, _, err := strictDecoder(t).Decode([]byte(docs[0]), nil, nil)
	if err != nil {
		t.Fatalf("strict decode of the pod: %v\n%s", err, docs[0])
	}
	p, ok := obj.(*corev1.Pod)
	if !ok {
		t.Fatalf("decoded %T, want a Pod", obj)
	}
	checkPod(t, k, p)
	if strings.Contains(out, "Guaranteed QoS") || !strings.Contains(out, "QoS class: Burstable") {
		t.Errorf("the QoS comment must say Burstable (no cpu requests), never claim Guaranteed")
	}
	for _, s := range []string{"node sysctl: vm.nr_hugepages=3072", "node sysfs: /sys/kernel/mm/transparent_hugepage/enabled=never"} {
		if !strings.Contains(flat(out), s) {
			t.Errorf("node setting %q not listed for the node", s)
		}
	}
	if strings.Contains(out, "vm.overcommit_memory=2") {
		t.Errorf("overcommit is the kubelet's on a node (mode 1), yet listed")
	}
}

func checkPod(t *testing.T, k Kube, p *corev1.Pod) {
	t.Helper()
	if len(p.Spec.Containers) != len(k.Containers) {
		t.Fatalf("%d containers, want one per instance (%d)", len(p.Spec.Containers), len(k.Containers))
	}
	if p.Spec.SecurityContext != nil && len(p.Spec.SecurityContext.Sysctls) > 0 {
		t.Errorf("node sysctls in the pod spec: %v", p.Spec.SecurityContext.Sysctls)
	}
	var mem resource.Quantity
	for i, c := range p.Spec.Containers {
		if c.Image != k.Containers[i].Image {
			t.Errorf("container %s: image %s, want %s", c.Name, c.Image, k.Containers[i].Image)
		}
		for name, req := range c.Resources.Requests {
			if lim := c.Resources.Limits[name]; lim.Cmp(req) != 0 {
				t.Errorf("container %s: %s request %s != limit %s", c.Name, name, req.String(), lim.String())
			}
		}
		hp := c.Resources.Requests[corev1.ResourceName("hugepages-2Mi")]
		if want := int64(k.Containers[i].HugePagesBytes); hp.Value() != want {
			t.Errorf("container %s: hugepages-2Mi %s, want its own %d bytes", c.Name, hp.String(), want)
		}
		mem.Add(c.Resources.Requests[corev1.ResourceMemory])
	}
	if alloc := int64(k.Node.AllocatableBytes()); mem.Value() > alloc {
		t.Errorf("memory requests %s exceed the node's allocatable %d", mem.String(), alloc)
	}
	names := map[string]bool{}
	for _, v := range p.Spec.Volumes {
		if names[v.Name] {
			t.Errorf("duplicate volume %s", v.Name)
		}
		names[v.Name] = true
	}
}

// TestKubernetesStrictRejects proves the decoder used above is strict: a
// duplicate key (the old output's duplicate hugepages-2Mi) and an unknown
// field are rejected.
func TestKubernetesStrictRejects(t *testing.T) {
	base := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\nspec:\n  containers:\n    - name: c\n      image: postgres:13\n"
	for _, bad := range []string{
		base + "      resources:\n        limits:\n          memory: 1Gi\n          memory: 2Gi\n",
		base + "      hugepages: 2Mi\n",
	} {
		if _, _, err := strictDecoder(t).Decode([]byte(bad), nil, nil); err == nil {
			t.Errorf("strict decoder accepted:\n%s", bad)
		}
	}
}

// TestKubernetesCNPG checks the Cluster document against CloudNativePG's
// Cluster CRD (postgresql.cnpg.io/v1, CloudNativePG v1.30.0,
// config/crd/bases/postgresql.cnpg.io_clusters.yaml): cnpgClusterSchema
// below is derived from that schema by hand (only the fields dbmem writes:
// an unknown field fails), and the webhook's rules on resources
// (internal/webhook/v1/cluster_webhook.go) are applied.
func TestKubernetesCNPG(t *testing.T) {
	out, err := Kubernetes(kubePGMaria())
	if err != nil {
		t.Fatal(err)
	}
	var c cnpgClusterSchema
	if err := yaml.UnmarshalStrict([]byte(documents(out)[1]), &c); err != nil {
		t.Fatalf("the Cluster does not fit the CRD: %v", err)
	}
	for _, e := range c.validate() {
		t.Error(e)
	}
	if got := c.Spec.PostgreSQL.Parameters["huge_pages"]; got != "on" {
		t.Errorf("postgresql.parameters.huge_pages = %q, want on", got)
	}
	if c.Spec.ImageName != "ghcr.io/cloudnative-pg/postgresql:13" {
		t.Errorf("imageName %q, want the planned major version 13", c.Spec.ImageName)
	}
	bad := strings.Replace(documents(out)[1], "instances: 1", "instances: 1\n  hugePages: 2Mi", 1)
	if err := yaml.UnmarshalStrict([]byte(bad), &c); err == nil {
		t.Errorf("the CRD-derived struct accepts an unknown field")
	}
}

// cnpgClusterSchema is the part of CloudNativePG's Cluster CRD schema that
// dbmem writes: spec.instances (integer >= 1, required), spec.imageName,
// spec.postgresql.parameters (map of strings), spec.resources (core/v1
// ResourceRequirements: quantities) and spec.storage.size.
type cnpgClusterSchema struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name   string            `json:"name"`
		Labels map[string]string `json:"labels,omitempty"`
	} `json:"metadata"`
	Spec struct {
		Instances  *int   `json:"instances"`
		ImageName  string `json:"imageName,omitempty"`
		PostgreSQL struct {
			Parameters map[string]string `json:"parameters,omitempty"`
		} `json:"postgresql"`
		Resources corev1.ResourceRequirements `json:"resources"`
		Storage   struct {
			Size string `json:"size,omitempty"`
		} `json:"storage"`
	} `json:"spec"`
}

func (c cnpgClusterSchema) validate() []string {
	var errs []string
	if c.APIVersion != "postgresql.cnpg.io/v1" || c.Kind != "Cluster" {
		errs = append(errs, fmt.Sprintf("apiVersion/kind %s/%s", c.APIVersion, c.Kind))
	}
	if c.Spec.Instances == nil || *c.Spec.Instances < 1 {
		errs = append(errs, "spec.instances is required and at least 1")
	}
	if _, err := resource.ParseQuantity(c.Spec.Storage.Size); err != nil {
		errs = append(errs, "spec.storage.size: "+err.Error())
	}
	r := c.Spec.Resources
	for name, q := range r.Requests {
		if strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix) {
			if lim := r.Limits[name]; lim.Cmp(q) != 0 {
				errs = append(errs, "HugePages requests must equal the limits")
			}
		}
	}
	if r.Requests.Memory().Cmp(*r.Limits.Memory()) > 0 {
		errs = append(errs, "memory request is greater than the limit")
	}
	if r.Requests.Memory().IsZero() && r.Requests.Cpu().IsZero() {
		errs = append(errs, "HugePages require cpu or memory")
	}
	b, _ := json.Marshal(c.Spec.PostgreSQL.Parameters)
	if bytes.Contains(b, []byte(`"shared_buffers"`)) {
		sb, err := resource.ParseQuantity(strings.TrimSuffix(c.Spec.PostgreSQL.Parameters["shared_buffers"], "B") + "i")
		hp := r.Requests[corev1.ResourceName("hugepages-2Mi")]
		if err == nil && sb.Cmp(*r.Requests.Memory()) > 0 && sb.Cmp(hp) > 0 {
			errs = append(errs, "memory request is lower than shared_buffers")
		}
	}
	return errs
}
