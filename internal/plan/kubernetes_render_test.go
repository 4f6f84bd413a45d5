package plan

import (
	"context"
	"github.com/dbmem/dbmem/internal/measure"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/archetype/archetypetest"
	"github.com/dbmem/dbmem/internal/capture"
	"github.com/dbmem/dbmem/internal/render"
	"github.com/dbmem/dbmem/internal/snapshot"
)

// TestKubernetesFromRecordedHost plans the recorded development host
// (PostgreSQL 15 and MariaDB 10.11 sharing the pool, testdata/archetypes/
// this-host-shared) for Kubernetes and decodes the pod strictly with the
// API types: two containers, each with its own huge pages and the image of
// its version, memory within the node's allocatable.
func TestKubernetesFromRecordedHost(t *testing.T) {
	dir := archetypetest.Dir(t, "this-host-shared")
	s, err := snapshot.Take(context.Background(), snapshot.Options{FS: capture.TreeFS(dir), Method: measure.Smaps})
	if err != nil {
		t.Fatal(err)
	}
	in, err := Build(context.Background(), Request{Snapshot: s, NodesPerQuery: advise.DefaultNodesPerQuery,
		Options: advise.PlanOptions{Kubernetes: true}})
	if err != nil {
		t.Fatal(err)
	}
	res := advise.Plan(in)
	k := Kubernetes(in, res, "test")
	out, err := render.Kubernetes(k)
	if err != nil {
		t.Fatal(err)
	}
	sch := runtime.NewScheme()
	if err := corev1.AddToScheme(sch); err != nil {
		t.Fatal(err)
	}
	dec := kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, sch, sch, kjson.SerializerOptions{Yaml: true, Strict: true})
	obj, _, err := dec.Decode([]byte(strings.Split(out, "\n---\n")[0]), nil, nil)
	if err != nil {
		t.Fatalf("strict decode: %v\n%s", err, out)
	}
	p := obj.(*corev1.Pod)
	images := map[string]bool{}
	var mem, huge int64
	for _, c := range p.Spec.Containers {
		images[c.Image] = true
		m := c.Resources.Requests[corev1.ResourceMemory]
		h := c.Resources.Requests["hugepages-2Mi"]
		mem, huge = mem+m.Value(), huge+h.Value()
		if h.IsZero() {
			t.Errorf("container %s has no huge pages of its own", c.Name)
		}
	}
	if !images["postgres:15"] || !images["mariadb:10.11"] || len(p.Spec.Containers) != 2 {
		t.Errorf("containers %v, want postgres:15 and mariadb:10.11", images)
	}
	if alloc := int64(k.Node.AllocatableBytes()); mem > alloc || alloc == 0 {
		t.Errorf("memory requests %d above the node's allocatable %d", mem, alloc)
	}
	if pool := int64(res.HugePages.PoolBytes); huge > pool {
		t.Errorf("huge page requests %d above the planned pool %d", huge, pool)
	}
}

// TestKubernetesFitsNode: a worst case above the node's allocatable
// memory is capped to it (a request above allocatable stays Pending), and
// the formula says so.
func TestKubernetesFitsNode(t *testing.T) {
	k := render.Kube{Node: render.KubeNode{MemTotalBytes: 4 << 30, ReservedBytes: 1 << 30},
		Containers: []render.KubeContainer{{Name: "postgres", MemoryBytes: 10 << 30}, {Name: "mariadb", MemoryBytes: 5 << 30}}}
	fitNode(&k)
	if sum := k.Containers[0].MemoryBytes + k.Containers[1].MemoryBytes; sum > k.Node.AllocatableBytes() {
		t.Errorf("requests %d above allocatable %d", sum, k.Node.AllocatableBytes())
	}
	if !strings.Contains(k.Containers[0].MemoryFormula, "capped") {
		t.Errorf("formula does not say it was capped: %s", k.Containers[0].MemoryFormula)
	}
	if r := kubeReserved(32 << 30); r < 3<<30 || r > 4<<30 {
		t.Errorf("reserve for 32 GiB %d, want about 3.6 GiB (GKE's formula)", r)
	}
}
