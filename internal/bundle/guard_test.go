package bundle

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/postmortem"
	"github.com/dbmem/dbmem/internal/snapshot"
)

// guardIDs are the findings the OOM guard gives.
var guardIDs = []string{"systemd.oom_policy_stop", "systemd.oomd_manages_database", "earlyoom.not_avoiding_database",
	"kernel.panic_on_oom", "kernel.oom_kill_allocating_task"}

func guardFindings(s *snapshot.Snapshot) []string {
	var out []string
	for _, f := range advise.Check(s, advise.Options{}) {
		if slices.Contains(guardIDs, f.ID) {
			out = append(out, f.ID+" "+f.Subject+" "+f.Title)
		}
	}
	slices.Sort(out)
	return out
}

// TestCaptureCarriesOOMGuard captures this host and checks that the
// bundle holds the OOM guard as read (units, oomd, earlyoom, sysctls), and
// that a replay gives the guard's findings the live check gives.
func TestCaptureCarriesOOMGuard(t *testing.T) {
	p := filepath.Join(t.TempDir(), "g.tar.gz")
	got, err := WriteFile(context.Background(), p, CaptureOptions{FS: linux.DefaultFS(), Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	live := got.Snapshot.OOMGuard
	if live == nil || live.PanicOnOOM == nil || got.Manifest.OOMGuard != guardName {
		t.Fatalf("capture: guard %+v, manifest names %q", live, got.Manifest.OOMGuard)
	}
	b, err := Open(p, DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	g, err := b.OOMGuard()
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(live)
	have, _ := json.Marshal(g)
	if !bytes.Equal(want, have) {
		t.Fatalf("the bundle's guard differs from the capture's:\n%s\n%s", have, want)
	}
	replay, err := snapshot.Take(context.Background(), snapshot.Options{FS: b.FS(), Owners: b.Owners(), Guard: true, GuardRecorded: g})
	if err != nil {
		t.Fatal(err)
	}
	lf, rf := guardFindings(got.Snapshot), guardFindings(replay)
	if !slices.Equal(lf, rf) {
		t.Fatalf("guard findings live:\n%s\nfrom the bundle:\n%s", strings.Join(lf, "\n"), strings.Join(rf, "\n"))
	}
	if len(live.Units) != len(got.Snapshot.Postgres)+len(got.Snapshot.MySQL) {
		t.Errorf("%d unit audits for %d instances", len(live.Units), len(got.Snapshot.Postgres)+len(got.Snapshot.MySQL))
	}
	t.Logf("%d units audited, guard findings: %q", len(live.Units), lf)
}

// TestOOMGuardMemberChecked: a bundle's guard member is data under limits.
func TestOOMGuardMemberChecked(t *testing.T) {
	for _, tc := range []struct{ name, manifest, body, want string }{
		{"other name", "root/etc/passwd", "", "not live/oomguard/guard.json"},
		{"missing", guardName, "", "not in the bundle"},
		{"not json", guardName, "{", "unexpected end"},
		{"too big", guardName, `{"units":[` + strings.Repeat(`{},`, maxGuardBytes/3) + `{}]}`, "over the"},
		{"too many units", guardName, `{"units":[` + strings.Repeat(`{},`, maxGuardUnits) + `{}]}`, "more than 4096"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := &Bundle{Path: "x.tar.gz", tree: newTree(), Manifest: Manifest{OOMGuard: tc.manifest}}
			if tc.body != "" {
				b.tree.files[guardName] = []byte(tc.body)
			}
			if _, err := b.OOMGuard(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
		})
	}
	if g, err := (&Bundle{tree: newTree()}).OOMGuard(); g != nil || err != nil {
		t.Fatalf("a bundle without a guard: %v, %v (want none, no error)", g, err)
	}
}

// noise is what a syslog holds beside the lines dbmem reads: none of it
// may reach a bundle.
const noise = "Sep 10 14:59:50 image sshd[812]: Accepted password for alice-noise from 10.0.0.9 port 51122 ssh2\n" +
	"Sep 10 14:59:51 image CRON[900]: (root) CMD (backup --token=noise-token-42)\n"

// TestCaptureKeepsUnitLines captures recorded public logs (corpus s02: a
// kernel OOM kill and systemd's "Failed with result 'oom-kill'" in one
// syslog file; o01 and s01: systemd-oomd and systemd in /var/log/syslog),
// with other daemons' lines among them, and checks that postmortem --from
// finds in the bundle the same kills, services and killers as in the logs
// themselves, and none of the other lines.
func TestCaptureKeepsUnitLines(t *testing.T) {
	root := t.TempDir()
	corpus := func(name string) string {
		b, err := os.ReadFile(filepath.Join("..", "postmortem", "testdata", "corpus", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	s02 := corpus("s02-cloudpanel-333-mariadb-kernel-and-unit-oom-kill.log")
	i := strings.Index(s02, "06:16:20 systemd")
	kern := s02[:i] + "06:16:19 sshd[812]: Accepted password for alice-noise\n" + s02[i:]
	syslog := corpus("o01-systemd-20690-oomd-testbloat-attempting.log") + noise + corpus("s01-copr-4447-pg-systemd-oom-kill-failed.log")
	for p, text := range map[string]string{"var/log/kern.log": kern, "var/log/syslog": syslog} {
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fs := linux.FS{Proc: "/proc", Sys: "/sys", Root: root}
	p := filepath.Join(t.TempDir(), "u.tar.gz")
	if _, err := WriteFile(context.Background(), p, CaptureOptions{FS: fs, Version: "test"}); err != nil {
		t.Fatal(err)
	}
	raw := bundleBytes(t, p)
	for _, secret := range []string{"alice-noise", "noise-token-42"} {
		if bytes.Contains(raw, []byte(secret)) {
			t.Errorf("the bundle holds another daemon's line (%q)", secret)
		}
	}
	b, err := Open(p, DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	fromBundle, err := b.Logs()
	if err != nil {
		t.Fatal(err)
	}
	direct := postmortem.Gather(context.Background(), postmortem.GatherOptions{FS: fs, Zone: "UTC"})
	want, have := unitSummary(t, direct), unitSummary(t, fromBundle)
	if want != have {
		t.Fatalf("postmortem of the logs:\n%s\npostmortem --from the bundle:\n%s", want, have)
	}
	checkServiceMembers(t, b.Manifest)
	t.Log(have)
}

// unitSummary is what Analyze makes of logs: kills, services and killers.
func unitSummary(t *testing.T, logs []postmortem.Log) string {
	r := postmortem.Analyze(postmortem.Input{Logs: logs, Zone: "UTC", Last: 0})
	if r.Kills == 0 || len(r.Services) < 2 || len(r.Killers) == 0 {
		t.Errorf("the logs give %d kills, %d services, %d killers: the fixture is not read", r.Kills, len(r.Services), len(r.Killers))
	}
	b, err := json.MarshalIndent(struct {
		Kills    int
		Services []postmortem.Service
		Killers  []postmortem.Killer
	}{r.Kills, r.Services, r.Killers}, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkServiceMembers: the service log is kept under logs/service/ as an
// excerpt, and the kernel log's excerpt holds its unit lines.
func checkServiceMembers(t *testing.T, m Manifest) {
	var service, kernel bool
	for _, e := range m.Logs {
		switch {
		case e.Source == "/var/log/syslog" && e.Kind == postmortem.KindService:
			service = strings.HasPrefix(e.File, "logs/service/") && e.Excerpt
		case e.Source == "/var/log/kern.log":
			kernel = strings.HasPrefix(e.File, "logs/kernel/") && e.Excerpt
		}
	}
	if !service || !kernel {
		t.Errorf("manifest logs: service excerpt %v, kernel excerpt %v: %+v", service, kernel, m.Logs)
	}
}
