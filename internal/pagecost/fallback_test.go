package pagecost

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/dbmem/dbmem/internal/linux"
)

// checkFallback measures a small sharer family with opt and checks that
// every process fell back to smaps_rollup for want, with the same numbers
// as MethodSmaps.
func checkFallback(t *testing.T, fam sharerFamily, opt Options, want Reason, wantText string) {
	t.Helper()
	costs, skipped, err := Measure(linux.DefaultFS(), fam.PIDs(), opt)
	if err != nil || len(skipped) > 0 || len(costs) != len(fam.PIDs()) {
		t.Fatalf("Measure: %d costs, skipped %v, err %v", len(costs), skipped, err)
	}
	smaps := byPID(measureOK(t, fam.PIDs(), MethodSmaps))
	for _, c := range costs {
		var fb *FallbackError
		if !errors.As(error(c.Fallback), &fb) || fb.Reason != want || c.Method != MethodSmaps {
			t.Fatalf("PID %d: method %v, fallback %v; want smaps_rollup with reason %d", c.PID, c.Method, c.Fallback, want)
		}
		if !strings.Contains(fb.Error(), wantText) || !strings.Contains(fb.Error(), "fell back to smaps_rollup") {
			t.Errorf("fallback message %q lacks %q", fb.Error(), wantText)
		}
		if c.PssAnonBytes == 0 || c.PssAnonBytes>>10 != smaps[c.PID].PssAnonBytes>>10 || c.Rollup == nil {
			t.Errorf("PID %d: fallback Pss_Anon %d kB, smaps_rollup %d kB", c.PID, c.PssAnonBytes>>10, smaps[c.PID].PssAnonBytes>>10)
		}
	}
	t.Logf("fallback reason: %v", costs[0].Fallback)
}

// TestFallbackNoKpagecount points the fast path at a kpagecount that does
// not exist (a kernel without CONFIG_PROC_PAGE_MONITOR).
func TestFallbackNoKpagecount(t *testing.T) {
	fam := startSharer(t, buildSharer(t, t.TempDir()), 64, 4, 4, 2, 0)
	opt := Options{KPageCountPath: filepath.Join(t.TempDir(), "kpagecount")}
	checkFallback(t, fam, opt, ReasonNoPageMonitor, "CONFIG_PROC_PAGE_MONITOR")
}

// fallbackChildEnv tells a re-executed test binary, running as nobody,
// where the sharer binary is.
const fallbackChildEnv = "PAGECOST_FALLBACK_SHARER"

// TestFallbackNotRoot measures processes as an unprivileged user, who
// cannot read /proc/kpagecount and sees no PFNs in pagemap. As root it
// re-executes this test binary as nobody (uid 65534) and checks that it
// passes there.
func TestFallbackNotRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		bin := os.Getenv(fallbackChildEnv)
		if bin == "" {
			bin = buildSharer(t, t.TempDir())
		}
		fam := startSharer(t, bin, 64, 4, 4, 2, 0)
		checkFallback(t, fam, Options{}, ReasonNotRoot, "needs root to read")
		// With kpagecount readable (here /dev/zero stands in), pagemap
		// still hides the PFNs from a reader without CAP_SYS_ADMIN.
		zero := Options{KPageCountPath: "/dev/zero", KPageFlagsPath: "/dev/zero"}
		checkFallback(t, fam, zero, ReasonPFNHidden, "CAP_SYS_ADMIN")
		return
	}
	dir := worldReadableDir(t)
	sharer := buildSharer(t, dir)
	self := filepath.Join(dir, "pagecost.test")
	copyFile(t, mustExecutable(t), self)
	cmd := exec.Command(self, "-test.run=^TestFallbackNotRoot$", "-test.v", "-test.count=1")
	cmd.Dir, cmd.Env = dir, append(os.Environ(), fallbackChildEnv+"="+sharer, "TMPDIR="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	t.Logf("as nobody:\n%s", out)
	if err != nil || !strings.Contains(string(out), "--- PASS: TestFallbackNotRoot") {
		t.Fatalf("test as nobody failed: %v", err)
	}
}

// worldReadableDir makes a directory the nobody user can enter and write.
func worldReadableDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "pagecost-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	return dir
}

func mustExecutable(t *testing.T) string {
	t.Helper()
	p, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
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
