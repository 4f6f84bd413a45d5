package deploy

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// decodeDaemonSet reads the manifest the way the API server's strict
// decoding (kubectl apply --validate=strict) does: YAML to JSON, then
// sigs.k8s.io/json, case-sensitive, rejecting unknown and duplicate fields
// (encoding/json matches "hostPid" to hostPID; a misspelt "readOnly" would
// vanish).
func decodeDaemonSet(t *testing.T) *appsv1.DaemonSet {
	t.Helper()
	y, err := os.ReadFile(filepath.Join("kubernetes", "dbmem-exporter-daemonset.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	js, err := yaml.YAMLToJSONStrict(y)
	if err != nil {
		t.Fatalf("YAML: %v", err)
	}
	var ds appsv1.DaemonSet
	if err := strictDecode(js, &ds); err != nil {
		t.Fatalf("strict decode into apps/v1 DaemonSet: %v", err)
	}
	if ds.APIVersion != "apps/v1" || ds.Kind != "DaemonSet" {
		t.Fatalf("apiVersion %q kind %q", ds.APIVersion, ds.Kind)
	}
	return &ds
}

// strictDecode fails on a syntax error and on every strict error.
func strictDecode(js []byte, v any) error {
	strict, err := kjson.UnmarshalStrict(js, v, kjson.DisallowDuplicateFields, kjson.DisallowUnknownFields)
	if err != nil {
		return err
	}
	return errors.Join(strict...)
}

// A misspelt or unknown field is rejected: the decoder above is strict.
func TestStrictDecodeRejectsUnknownFields(t *testing.T) {
	for _, bad := range []string{"hostPid: true", "hostPID: true\n      hostPID: false", "readOnlyRootFS: true"} {
		js, err := yaml.YAMLToJSONStrict([]byte("apiVersion: apps/v1\nkind: DaemonSet\nspec:\n  template:\n    spec:\n      " + bad + "\n"))
		if err != nil {
			continue // rejected already: duplicate keys fail in strict YAML
		}
		var ds appsv1.DaemonSet
		if err := strictDecode(js, &ds); err == nil {
			t.Errorf("%q decoded without an error", bad)
		}
	}
}

func TestDaemonSetValidates(t *testing.T) {
	ds := decodeDaemonSet(t)
	var errs field.ErrorList
	errs = append(errs, apivalidation.ValidateObjectMeta(&ds.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata"))...)
	errs = append(errs, metavalidation.ValidateLabelSelector(ds.Spec.Selector, metavalidation.LabelSelectorValidationOptions{}, field.NewPath("spec", "selector"))...)
	errs = append(errs, metavalidation.ValidateLabels(ds.Spec.Template.Labels, field.NewPath("spec", "template", "metadata", "labels"))...)
	errs = append(errs, apivalidation.ValidateAnnotations(ds.Spec.Template.Annotations, field.NewPath("spec", "template", "metadata", "annotations"))...)
	for _, e := range errs {
		t.Error(e)
	}
	sel, err := metav1.LabelSelectorAsSelector(ds.Spec.Selector)
	if err != nil || sel.Empty() || !sel.Matches(labels.Set(ds.Spec.Template.Labels)) {
		t.Errorf("selector %v does not select the pod template's labels %v (%v)", ds.Spec.Selector, ds.Spec.Template.Labels, err)
	}
	pod := ds.Spec.Template.Spec
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers, want the exporter alone", len(pod.Containers))
	}
	checkContainer(t, pod, pod.Containers[0])
}

// The pod sees the host's processes, mounts /proc, /sys and / of the host
// read-only, and the exporter keeps only the capabilities it needs.
func TestDaemonSetPrivileges(t *testing.T) {
	pod := decodeDaemonSet(t).Spec.Template.Spec
	c := pod.Containers[0]
	if !pod.HostPID || !pod.HostNetwork {
		t.Errorf("hostPID %v hostNetwork %v: the exporter must see the host's processes and local servers", pod.HostPID, pod.HostNetwork)
	}
	if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
		t.Error("the exporter needs no Kubernetes API token: automountServiceAccountToken: false")
	}
	sc := c.SecurityContext
	if sc == nil || sc.Capabilities == nil {
		t.Fatal("no securityContext.capabilities")
	}
	if !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || !slices.Equal(sc.Capabilities.Add, []corev1.Capability{"SYS_PTRACE", "DAC_READ_SEARCH"}) {
		t.Errorf("capabilities drop %v add %v, want drop ALL, add SYS_PTRACE DAC_READ_SEARCH", sc.Capabilities.Drop, sc.Capabilities.Add)
	}
	for name, v := range map[string]*bool{"allowPrivilegeEscalation": sc.AllowPrivilegeEscalation, "privileged": sc.Privileged} {
		if v == nil || *v {
			t.Errorf("%s must be false", name)
		}
	}
	if sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
		t.Error("readOnlyRootFilesystem must be true")
	}
	if p := pod.SecurityContext; p == nil || p.SeccompProfile == nil || p.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Error("want the RuntimeDefault seccomp profile")
	}
	mounts := map[string]string{"/proc": "/host/proc", "/sys": "/host/sys", "/": "/host/root"}
	for _, v := range pod.Volumes {
		at, ok := mounts[v.HostPath.Path]
		if v.HostPath == nil || !ok {
			t.Errorf("volume %s: want only hostPath /proc, /sys and /", v.Name)
			continue
		}
		m := mountOf(c, v.Name)
		if m == nil || m.MountPath != at || !m.ReadOnly {
			t.Errorf("host %s: mounted %+v, want read-only at %s", v.HostPath.Path, m, at)
		}
		if !slices.Contains(c.Args, "--"+map[string]string{"/proc": "proc", "/sys": "sys", "/": "root"}[v.HostPath.Path]+"="+at) {
			t.Errorf("args %q do not point dbmem at %s", c.Args, at)
		}
	}
}

func mountOf(c corev1.Container, volume string) *corev1.VolumeMount {
	for i := range c.VolumeMounts {
		if c.VolumeMounts[i].Name == volume {
			return &c.VolumeMounts[i]
		}
	}
	return nil
}

// checkContainer validates what apimachinery can: names, ports, that
// probes use a declared port, resources with limits, mounts of volumes.
func checkContainer(t *testing.T, pod corev1.PodSpec, c corev1.Container) {
	t.Helper()
	for _, msg := range validation.IsDNS1123Label(c.Name) {
		t.Errorf("container name %q: %s", c.Name, msg)
	}
	ports := map[string]bool{}
	for _, p := range c.Ports {
		for _, msg := range append(validation.IsValidPortName(p.Name), validation.IsValidPortNum(int(p.ContainerPort))...) {
			t.Errorf("port %s %d: %s", p.Name, p.ContainerPort, msg)
		}
		ports[p.Name] = true
	}
	for name, pr := range map[string]*corev1.Probe{"startup": c.StartupProbe, "liveness": c.LivenessProbe, "readiness": c.ReadinessProbe} {
		if pr == nil || pr.HTTPGet == nil || !ports[pr.HTTPGet.Port.StrVal] {
			t.Errorf("%s probe %+v: want an HTTP probe on a declared port", name, pr)
		}
	}
	if c.Resources.Limits.Memory().IsZero() || c.Resources.Requests.Memory().IsZero() || c.Resources.Limits.Cpu().IsZero() {
		t.Errorf("resources %+v: want memory requests and limits, and a CPU limit", c.Resources)
	}
	vols := map[string]bool{}
	for _, v := range pod.Volumes {
		vols[v.Name] = true
	}
	for _, m := range c.VolumeMounts {
		if !vols[m.Name] {
			t.Errorf("mount of an undeclared volume %q", m.Name)
		}
	}
	if len(c.Args) == 0 || c.Args[0] != "exporter" {
		t.Errorf("args %q: want the exporter command", c.Args)
	}
}
