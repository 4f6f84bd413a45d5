package lab

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/safeexec"
)

// TLB events counted with perf where the CPU's PMU is visible.
var tlbEvents = []string{"dTLB-load-misses", "dTLB-loads"}

// perfAvailable checks whether perf can count dTLB misses here; when it
// cannot, why says so plainly.
func perfAvailable(ctx context.Context, fs linux.FS) (ok bool, why string) {
	path, err := safeexec.LookPath("perf")
	if err != nil {
		return false, "not available: perf is not installed (Debian: apt-get install linux-perf)"
	}
	out, _ := perfStat(ctx, path, "true")
	counts := parsePerfCSV(out)
	if _, ok := counts["dTLB-load-misses"]; ok {
		return true, "perf stat -a -e " + strings.Join(tlbEvents, ",") + " during each run"
	}
	why = "not available: perf stat reports dTLB-load-misses as <not supported>"
	if !fs.Exists(fs.SysPath("bus/event_source/devices/cpu")) {
		why += " (no hardware PMU: /sys/bus/event_source/devices has no cpu; usual on VMs without PMU passthrough)"
	}
	return false, why + "; page faults are counted instead"
}

// maxPerfOutput bounds what is kept of perf stat's output (a few lines).
const maxPerfOutput = 64 << 10

// perfStat runs perf stat in CSV mode around args and returns what it
// printed (perf writes the counts to stderr).
func perfStat(ctx context.Context, perf string, args ...string) (string, error) {
	all := append([]string{"stat", "-x", ",", "-e", strings.Join(tlbEvents, ",")}, args...)
	cmd, err := safeexec.Cmd(ctx, safeexec.Command{Name: perf, Args: all})
	if err != nil {
		return "", err
	}
	out := safeexec.NewBuffer(maxPerfOutput, true)
	cmd.Stdout, cmd.Stderr = out, out
	err = cmd.Run()
	return string(out.Bytes()), err
}

// parsePerfCSV reads `perf stat -x ,` lines ("12345,,dTLB-loads,..."),
// returning the events that were counted; "<not supported>" and
// "<not counted>" events are left out.
func parsePerfCSV(s string) map[string]uint64 {
	out := map[string]uint64{}
	for _, line := range strings.Split(s, "\n") {
		f := strings.Split(strings.TrimSpace(line), ",")
		if len(f) < 3 {
			continue
		}
		v, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil || f[2] == "" {
			continue
		}
		out[strings.TrimSuffix(f[2], ":u")] = v
	}
	return out
}

// perfDuring counts the TLB events host-wide for d.
func perfDuring(ctx context.Context, d time.Duration) (map[string]uint64, error) {
	path, err := safeexec.LookPath("perf")
	if err != nil {
		return nil, err
	}
	out, err := perfStat(ctx, path, "-a", "--", "sleep", fmt.Sprintf("%.1f", d.Seconds()))
	if err != nil {
		return nil, fmt.Errorf("perf stat: %w: %s", err, strings.TrimSpace(out))
	}
	return parsePerfCSV(out), nil
}
