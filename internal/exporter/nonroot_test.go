package exporter

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
	"github.com/dbmem/dbmem/internal/snapshot/sampler"
	"github.com/dbmem/dbmem/internal/watch"
)

const nonRootChildEnv = "DBMEM_EXPORTER_NONROOT_CHILD"

// TestNotRootReadsNothingAsZero runs as nobody against the live host with a
// PostgreSQL cluster of its own: every smaps_rollup read is refused, so
// the smaps pass is not a success (dbmem_smaps_success 0, no Pss metric),
// and watch shows the shared segment it could not see (the postmaster's
// smaps) as unknown, not as SHARED 0 and PAGE 0.
func TestNotRootReadsNothingAsZero(t *testing.T) {
	if os.Getenv(nonRootChildEnv) != "" {
		notRootChild(t)
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("re-executes itself as nobody: needs root")
	}
	c := pgtest.Start(t, map[string]string{"shared_buffers": "64MB"})
	dir, err := os.MkdirTemp("", "exporter-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o777)
	self := filepath.Join(dir, "exporter.test")
	copyExecutable(t, self)
	cmd := exec.Command(self, "-test.run=^TestNotRootReadsNothingAsZero$", "-test.v", "-test.count=1")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), nonRootChildEnv+"="+strconv.Itoa(c.PID), "TMPDIR="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	t.Logf("as nobody:\n%s", out)
	if err != nil || !strings.Contains(string(out), "--- PASS: TestNotRootReadsNothingAsZero") {
		t.Fatalf("test as nobody failed: %v", err)
	}
}

func notRootChild(t *testing.T) {
	pm, _ := strconv.Atoi(os.Getenv(nonRootChildEnv))
	s := &sampler.Sampler{FS: linux.DefaultFS()}
	e := New(Options{Sampler: s})
	err := e.RefreshSmaps(context.Background())
	if err == nil || !strings.Contains(err.Error(), "could be read") {
		t.Errorf("smaps pass as nobody: %v, want an error saying no Pss_Anon could be read", err)
	}
	m := gather(t, e)
	if ok := m["dbmem_smaps_success"]; len(ok) != 1 || ok[0].GetGauge().GetValue() != 0 {
		t.Errorf("dbmem_smaps_success = %v, want one sample of 0", ok)
	}
	// Instances whose port and data directory cannot be read still get
	// one series each (the registry refuses duplicates: gather would have
	// failed), never port="0", and each is collected.
	info := m["dbmem_postgres_info"]
	if len(info) == 0 {
		t.Error("no PostgreSQL instance served as nobody")
	}
	for _, mi := range info {
		t.Logf("as nobody: port=%q data_dir=%q server_pid=%q", label(mi, "port"), label(mi, "data_dir"), label(mi, "server_pid"))
		if label(mi, "port") == "0" {
			t.Errorf("unknown port served as 0: %v", mi.GetLabel())
		}
	}
	for _, ok := range m["dbmem_instance_scrape_success"] {
		if ok.GetGauge().GetValue() != 1 {
			t.Errorf("instance %v not collected as nobody", ok.GetLabel())
		}
	}
	if pss := m["dbmem_postgres_pss_private_bytes"]; len(pss) > 0 {
		t.Errorf("Pss private bytes sent though no smaps_rollup was readable: %v", pss)
	}
	sample, err := s.Sample(context.Background(), sampler.Status)
	if err != nil {
		t.Fatal(err)
	}
	var w watch.Watcher
	f := w.Frame(sample)
	var b bytes.Buffer
	watch.Render(&b, f, watch.RenderOptions{})
	for _, in := range f.Instances {
		if in.PostmasterPID != pm {
			continue
		}
		if in.SharedBytes != nil || in.SharedPageBytes != nil {
			t.Errorf("shared segment %v in %v pages read as nobody: the postmaster's smaps is not readable", in.SharedBytes, in.SharedPageBytes)
		}
		row := rowOf(b.String(), in.DataDir)
		if f := strings.Fields(row); len(f) < 2 || f[len(f)-1] != "?" || f[len(f)-2] != "?" {
			t.Errorf("watch row %q: want SHARED and PAGE shown as ?", row)
		}
		return
	}
	t.Errorf("instance of postmaster %d not in the frame:\n%s", pm, b.String())
}

func rowOf(text, dataDir string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, dataDir) {
			return l
		}
	}
	return ""
}

func copyExecutable(t *testing.T, to string) {
	t.Helper()
	from, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}
