package plan

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/snapshot"
)

// fixtureSnapshot reads the recorded PostgreSQL 15 host (a VM, huge_pages=off).
func fixtureSnapshot(t *testing.T) *snapshot.Snapshot {
	t.Helper()
	dir := filepath.Join("..", "..", "testdata", "fixtures", "pg15-hugepages-off")
	fs := linux.FS{Proc: filepath.Join(dir, "proc"), Sys: filepath.Join(dir, "sys"), Root: filepath.Join(dir, "root")}
	s, err := snapshot.Take(context.Background(), snapshot.Options{FS: fs})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func kubernetesSettings(r advise.PlanResult) []string {
	var out []string
	for _, s := range r.Settings {
		if s.Target == finding.TargetKubernetes {
			out = append(out, s.Name+"="+s.Value)
		}
	}
	return out
}

// TestKubernetesOnlyInContainers: a bare host's plan has no pod resources;
// dbmem in a container, a database in a pod, or --format kubernetes
// (Options.Kubernetes) brings them.
func TestKubernetesOnlyInContainers(t *testing.T) {
	ctx := context.Background()
	bare := fixtureSnapshot(t)
	if InContainer(bare) {
		t.Fatalf("the recorded VM reads as a container: %+v", bare.Environment)
	}
	pod, ok := linux.ParseContainer("/kubepods/burstable/pod1234abcd/" + strings.Repeat("ab", 32))
	if !ok {
		t.Fatal("a kubepods cgroup is not recognised as a container")
	}
	inPod := fixtureSnapshot(t)
	inPod.Cgroups = []linux.CgroupInfo{{PID: inPod.Postgres[0].PostmasterPID, Container: &pod}}
	dbmemInContainer := fixtureSnapshot(t)
	dbmemInContainer.Environment.InContainer = true
	for _, c := range []struct {
		name  string
		snap  *snapshot.Snapshot
		asked bool
		want  bool
	}{
		{"bare host", bare, false, false},
		{"bare host, --format kubernetes", bare, true, true},
		{"database in a pod", inPod, false, true},
		{"dbmem in a container", dbmemInContainer, false, true},
	} {
		r, err := Run(ctx, Request{Snapshot: c.snap, Options: advise.PlanOptions{Kubernetes: c.asked}})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if r.HugePages == nil {
			t.Fatalf("%s: no huge pages planned", c.name)
		}
		got := kubernetesSettings(r)
		if (len(got) > 0) != c.want {
			t.Errorf("%s: kubernetes settings %v, want them: %v", c.name, got, c.want)
		}
		var text strings.Builder
		if err := Text(&text, r); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(text.String(), "resources.limits.hugepages") != c.want {
			t.Errorf("%s: plan text shows pod resources: %v, want %v:\n%s", c.name, !c.want, c.want, text.String())
		}
	}
}
