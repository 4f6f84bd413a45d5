package render

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/finding"
)

// debianTemplate is postgresql-common's postgresql@.service (Debian 12),
// used when the host has none installed.
const debianTemplate = `[Unit]
Description=PostgreSQL Cluster %i
PartOf=postgresql.service
Before=postgresql.service
After=network.target

[Service]
Type=forking
ExecStart=-/usr/bin/pg_ctlcluster --skip-systemctl-redirect %i start
ExecStop=/usr/bin/pg_ctlcluster --skip-systemctl-redirect -m fast %i stop
PIDFile=/run/postgresql/%i.pid
OOMScoreAdjust=-900

[Install]
WantedBy=multi-user.target
`

// unitDir writes the PostgreSQL template unit (the host's own when
// installed), and each file at its place under a unit directory.
func unitDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	tmpl := debianTemplate
	if b, err := os.ReadFile("/lib/systemd/system/postgresql@.service"); err == nil {
		tmpl = string(b)
	}
	files["postgresql@.service"] = tmpl
	for rel, c := range files {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// verify runs systemd-analyze verify on units found in dir.
func verify(t *testing.T, dir string, units ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("systemd-analyze", append([]string{"verify", "--man=no"}, units...)...)
	cmd.Env = append(os.Environ(), "SYSTEMD_UNIT_PATH="+dir+":")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// probe is a second ExecStart= in a drop-in of its own: systemd refuses it
// unless the merged unit is Type=oneshot, so verify failing with it proves
// the merged postgresql@15-main keeps Type=forking and its own ExecStart=.
const probe = "[Service]\nExecStart=/bin/true\n"

// TestSystemdVerify feeds the systemd files to systemd-analyze verify: the
// drop-in and the /sys oneshot unit each verify, the merged
// postgresql@15-main.service keeps its Type= and ExecStart= (the probe is
// refused), and the old single stream saved as the drop-in would have made
// it a oneshot (the probe is accepted).
func TestSystemdVerify(t *testing.T) {
	if _, err := exec.LookPath("systemd-analyze"); err != nil {
		t.Skip("systemd-analyze is not installed (Debian package systemd): the systemd files cannot be fed to their consumer here")
	}
	files, err := KindFiles("systemd", plan(), opts())
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 {
		t.Fatalf("%d files, want the drop-in and the /sys unit apart", len(files))
	}
	byRel := map[string]string{}
	var stream []string
	for _, f := range files {
		byRel[strings.TrimPrefix(f.Path, DefaultSystemdDir+"/")] = f.Content
		stream = append(stream, f.Content)
	}
	dropIn := unit + ".d/" + FileName
	if _, ok := byRel[dropIn]; !ok {
		t.Fatalf("no drop-in %s among %v", dropIn, byRel)
	}
	dir := unitDir(t, byRel)
	if out, err := verify(t, dir, unit, SysfsUnit); err != nil || strings.TrimSpace(out) != "" {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
	withProbe := map[string]string{dropIn: byRel[dropIn], SysfsUnit: byRel[SysfsUnit], unit + ".d/99-probe.conf": probe}
	out, err := verify(t, unitDir(t, withProbe), unit)
	if err == nil || !strings.Contains(out, "more than one ExecStart") {
		t.Errorf("merged %s is not Type=forking with its ExecStart= any more (probe accepted): %v\n%s", unit, err, out)
	}
	old := map[string]string{dropIn: strings.Join(stream, "\n"), SysfsUnit: byRel[SysfsUnit], unit + ".d/99-probe.conf": probe}
	if out, err := verify(t, unitDir(t, old), unit); err != nil {
		t.Errorf("control: the old single stream as drop-in should make the unit a oneshot that accepts the probe: %v\n%s", err, out)
	}
}

// TestSystemdVerifyMemoryLimits: the budget's MemoryHigh= and MemoryMax=
// (advise.ServiceMemorySettings) stand in the drop-in, and systemd-analyze
// verify accepts the merged unit with them (it refuses "899Q").
func TestSystemdVerifyMemoryLimits(t *testing.T) {
	if _, err := exec.LookPath("systemd-analyze"); err != nil {
		t.Skip("systemd-analyze is not installed (Debian package systemd): the systemd files cannot be fed to their consumer here")
	}
	limits := []finding.Setting{
		{Target: finding.TargetSystemd, Name: "MemoryHigh", Value: "899M", Unit: unit, Formula: "budget 898 MiB", Why: "reclaimed above its budget"},
		{Target: finding.TargetSystemd, Name: "MemoryMax", Value: "989M", Unit: unit, Formula: "budget + 10%", Why: "OOM-killed inside its own cgroup"},
	}
	files, err := KindFiles("systemd", append(plan(), limits...), opts())
	if err != nil {
		t.Fatal(err)
	}
	byRel := map[string]string{}
	for _, f := range files {
		byRel[strings.TrimPrefix(f.Path, DefaultSystemdDir+"/")] = f.Content
	}
	dropIn := byRel[unit+".d/"+FileName]
	for _, want := range []string{"\nMemoryHigh=899M\n", "\nMemoryMax=989M\n"} {
		if !strings.Contains(dropIn, want) {
			t.Errorf("drop-in lacks %q:\n%s", strings.TrimSpace(want), dropIn)
		}
	}
	if out, err := verify(t, unitDir(t, byRel), unit, SysfsUnit); err != nil || strings.TrimSpace(out) != "" {
		t.Fatalf("systemd-analyze verify with MemoryHigh/MemoryMax: %v\n%s", err, out)
	}
}
