package postmortem

import (
	"context"
	"os"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/units"
)

// journalArgs read the kernel messages of every boot journald kept, the
// newest 200,000 lines, with microsecond ISO stamps.
var journalArgs = []string{"_TRANSPORT=kernel", "-o", "short-iso-precise", "--no-pager", "-q", "-n", "200000"}

// journalLog asks journald for the kernel messages.
func journalLog(ctx context.Context, run Runner) Log {
	l := Log{Kind: KindKernel, Source: "journalctl " + strings.Join(journalArgs[:3], " ")}
	out, err := run(ctx, "journalctl", journalArgs...)
	err = ranOutput(&l, out, err)
	switch {
	case err != nil && notInstalled(err):
		l.State, l.Why = StateMissing, "journalctl is not installed (no systemd journal)"
	case err != nil && strings.Contains(err.Error(), "No journal files"):
		l.State, l.Why = StateEmpty, "journald keeps no journal on this host"
	case err != nil:
		l.State, l.Why = StateFailed, err.Error()
	case len(strings.TrimSpace(string(out))) == 0:
		l.State, l.Why = StateEmpty, "journald holds no kernel messages (no persistent journal, or none kept)"
	default:
		l.State, l.Text = StateRead, readOutput(&l, out)
	}
	return l
}

// readOutput is the text of a command's output; its sizes are set unless
// the budget cut it (ranOutput set them).
func readOutput(l *Log, out []byte) []byte {
	if l.Truncated {
		out = fromLineStart(out, true)
	} else {
		l.SizeBytes = int64(len(out))
	}
	l.ReadBytes = int64(len(out))
	return out
}

// dmesgLog reads the kernel ring buffer: ISO stamps when dmesg can print
// them, else [seconds since boot] converted with the boot time.
func dmesgLog(ctx context.Context, run Runner, boot time.Time) Log {
	l := Log{Kind: KindKernel, Source: "dmesg --time-format iso"}
	out, err := run(ctx, "dmesg", "--time-format", "iso")
	if err != nil && !notInstalled(err) && !denied(err) {
		l.Source = "dmesg"
		out, err = run(ctx, "dmesg")
		l.BootTime = boot
	}
	err = ranOutput(&l, out, err)
	switch {
	case err != nil && notInstalled(err):
		l.State, l.Why = StateMissing, "dmesg is not installed"
	case err != nil && denied(err):
		l.State, l.Why = StateFailed, err.Error()+" (reading the kernel ring buffer needs root when kernel.dmesg_restrict = 1)"
	case err != nil:
		l.State, l.Why = StateFailed, err.Error()
	case len(out) == 0:
		l.State, l.Why = StateEmpty, "the kernel ring buffer is empty"
	default:
		l.State, l.Text = StateRead, readOutput(&l, out)
	}
	return l
}

func denied(err error) bool {
	s := err.Error()
	return strings.Contains(s, "Operation not permitted") || strings.Contains(s, "Permission denied")
}

// syslogBases are the files syslog daemons write kernel messages to.
var syslogBases = []string{"/var/log/kern.log", "/var/log/messages"}

// maxRotations bounds the rotated files read per base name.
const maxRotations = 8

// rotations lists base and its rotations (base.1, base.2.gz ...) that
// exist among names, newest first.
func rotations(base string, names []string) []string {
	re := regexp.MustCompile(`^` + regexp.QuoteMeta(path.Base(base)) + `(?:\.(\d+))?(?:\.gz)?$`)
	type rot struct {
		name string
		n    int
	}
	var found []rot
	for _, n := range names {
		if m := re.FindStringSubmatch(n); m != nil {
			k, _ := strconv.Atoi(m[1])
			found = append(found, rot{n, k})
		}
	}
	sort.Slice(found, func(i, j int) bool { return found[i].n < found[j].n })
	var out []string
	for i, r := range found {
		if i == maxRotations {
			break
		}
		out = append(out, path.Join(path.Dir(base), r.name))
	}
	return out
}

// fileLogs reads the newest files first, each up to max bytes, until budget
// is spent. hostPath maps a host path to where it is read.
func fileLogs(ctx context.Context, open opener, kind Kind, instance string, paths []string, hostPath func(string) string, max, budget int64) []Log {
	var out []Log
	for _, p := range paths {
		if budget <= 0 {
			out = append(out, Log{Kind: kind, Source: p, Instance: instance, State: StateFailed,
				Why: "not read: the bytes budget for this source is spent on newer files"})
			continue
		}
		l := fileLog(ctx, open, kind, p, hostPath(p), min(max, budget))
		l.Instance = instance
		budget -= l.ReadBytes
		out = append(out, l)
	}
	return out
}

// fileLog reads the tail of one log file.
func fileLog(ctx context.Context, open opener, kind Kind, name, at string, max int64) Log {
	l := Log{Kind: kind, Source: name}
	t, err := readTail(ctx, open, at, max)
	switch {
	case os.IsNotExist(err):
		l.State, l.Why = StateMissing, "no such file"
		return l
	case err != nil:
		l.State, l.Why = StateFailed, err.Error()
		return l
	}
	l.SizeBytes, l.ReadBytes, l.Truncated = t.size, int64(len(t.data)), t.truncated
	l.State, l.Text = StateRead, t.data
	if len(t.data) == 0 {
		l.State, l.Why = StateEmpty, "the file is empty"
	}
	if t.truncated {
		l.Why = "only the last " + units.Bytes(uint64(l.ReadBytes)) + " of " + units.Bytes(uint64(t.size)) + " read"
	}
	switch {
	case t.overBudget:
		l.Why = streamNote(t.size, len(t.data))
	case t.stream:
		l.Why = "read from a pipe, FIFO or device to its end"
	default:
		l.ModTime = t.modTime
	}
	if t.binary || notText(t.data) {
		l.State, l.Text = StateFailed, nil
		l.Why = "not text (more than a tenth of its bytes are control characters or not UTF-8): not a log; " + l.Why
	}
	return l
}
