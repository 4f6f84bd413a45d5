package unitlog

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/units"
)

// UnitEvent is one message systemd logged about a unit.
type UnitEvent struct {
	Stamp Stamp
	Host  string
	// Unit is the unit the message names ("postgresql@15-main.service");
	// for "Started"/"Stopped" lines of a text log it is empty (they print
	// the unit's Description) unless the journal export named it.
	Unit string
	Kind string
	// Result is "Failed with result 'X'" (oom-kill, signal, timeout,
	// exit-code, core-dump ...).
	Result string
	// MainCode and MainStatus are "Main process exited, code=X, status=Y".
	MainCode, MainStatus string
	// RestartCounter is "Scheduled restart job, restart counter is at N".
	RestartCounter *int
	// MemoryPeakBytes and SwapPeakBytes are "Consumed ..., 6.5G memory
	// peak, 24.1M memory swap peak" (systemd 256+), as rounded as printed.
	MemoryPeakBytes, SwapPeakBytes *uint64
	// Processes is "systemd-oomd killed N process(es) in this unit".
	Processes *int
	// KilledPID, KilledName and Signal are "Killing process N (x) with
	// signal SIGKILL" (a stop that timed out).
	KilledPID  *int
	KilledName string
	Signal     string
	// Description is what "Started"/"Stopped" lines name.
	Description string
	Line        string
}

// Unit event kinds.
const (
	UnitOOMKill          = "oom-kill"          // a process of this unit was killed by the kernel OOM killer
	UnitOomdKill         = "oomd-kill"         // systemd-oomd killed N processes in this unit
	UnitMainExited       = "main-exited"       // Main process exited, code=..., status=...
	UnitFailed           = "failed"            // Failed with result '...'
	UnitKilling          = "killing"           // Killing process N (x) with signal SIGKILL
	UnitRestartScheduled = "restart-scheduled" // Scheduled restart job, restart counter is at N
	UnitConsumed         = "consumed"          // Consumed ... (the unit stopped)
	UnitDeactivated      = "deactivated"       // Deactivated successfully / Succeeded
	UnitStarted          = "started"           // Started <description>
	UnitStopped          = "stopped"           // Stopped <description>
)

var (
	unitMsgRe   = regexp.MustCompile(`^([\w@.:\\-]+\.(?:service|scope|slice|socket|mount|swap|target|timer)): (.*)$`)
	mainExitRe  = regexp.MustCompile(`^Main process exited, code=(\w+), status=(\S+?)\.?$`)
	failedRe    = regexp.MustCompile(`^Failed with result '([^']+)'`)
	restartRe   = regexp.MustCompile(`^Scheduled restart job, restart counter is at (\d+)`)
	oomdUnitRe  = regexp.MustCompile(`^systemd-oomd killed (\d+) process\(es\) in this unit`)
	killingRe   = regexp.MustCompile(`^Killing process (\d+) \((.*)\) with signal (SIG\w+)`)
	peakRe      = regexp.MustCompile(`([\d.]+)([KMGTPE]?)B? memory peak`)
	swapPeakRe  = regexp.MustCompile(`([\d.]+)([KMGTPE]?)B? memory swap peak`)
	startStopRe = regexp.MustCompile(`^(Started|Stopped) (.+?)\.?$`)
)

// unitLine reads systemd's messages about units.
func (p *parser) unitLine(l line) bool {
	if m := startStopRe.FindStringSubmatch(l.msg); m != nil && l.ident == "systemd" {
		kind := UnitStarted
		if m[1] == "Stopped" {
			kind = UnitStopped
		}
		p.addUnit(l, UnitEvent{Kind: kind, Description: m[2]})
		return true
	}
	m := unitMsgRe.FindStringSubmatch(l.msg)
	if m == nil {
		return false
	}
	e, ok := unitEvent(m[2])
	if !ok {
		return false
	}
	e.Unit = m[1]
	p.addUnit(l, e)
	return true
}

func (p *parser) addUnit(l line, e UnitEvent) {
	e.Stamp, e.Host, e.Line = l.stamp, l.host, l.raw
	p.out.Units = append(p.out.Units, e)
}

// unitEvent reads what follows "unit: ".
func unitEvent(msg string) (UnitEvent, bool) {
	var e UnitEvent
	switch {
	case strings.HasPrefix(msg, "A process of this unit has been killed by the OOM killer"):
		e.Kind = UnitOOMKill
	case mainExitRe.MatchString(msg):
		m := mainExitRe.FindStringSubmatch(msg)
		e.Kind, e.MainCode, e.MainStatus = UnitMainExited, m[1], m[2]
	case failedRe.MatchString(msg):
		e.Kind, e.Result = UnitFailed, failedRe.FindStringSubmatch(msg)[1]
	case restartRe.MatchString(msg):
		e.Kind, e.RestartCounter = UnitRestartScheduled, units.AtoiPtr(restartRe.FindStringSubmatch(msg)[1])
	case oomdUnitRe.MatchString(msg):
		e.Kind, e.Processes = UnitOomdKill, units.AtoiPtr(oomdUnitRe.FindStringSubmatch(msg)[1])
	case killingRe.MatchString(msg):
		m := killingRe.FindStringSubmatch(msg)
		e.Kind, e.KilledPID, e.KilledName, e.Signal = UnitKilling, units.AtoiPtr(m[1]), m[2], m[3]
	case strings.HasPrefix(msg, "Consumed "):
		e.Kind = UnitConsumed
		e.MemoryPeakBytes, e.SwapPeakBytes = sizeOf(peakRe, msg), sizeOf(swapPeakRe, msg)
	case strings.HasPrefix(msg, "Deactivated successfully"), strings.HasPrefix(msg, "Succeeded"):
		e.Kind = UnitDeactivated
	case startStopRe.MatchString(msg):
		m := startStopRe.FindStringSubmatch(msg)
		e.Kind, e.Description = UnitStarted, m[2]
		if m[1] == "Stopped" {
			e.Kind = UnitStopped
		}
	default:
		return e, false
	}
	return e, true
}

// sizeOf reads systemd's format_bytes ("6.5G", "24.1M", "912K", "512B"):
// powers of 1024, as rounded as printed.
func sizeOf(re *regexp.Regexp, msg string) *uint64 {
	if strings.Contains(msg, " memory swap peak") && re == peakRe {
		msg = swapPeakRe.ReplaceAllString(msg, "")
	}
	m := re.FindStringSubmatch(msg)
	if m == nil {
		return nil
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil || v < 0 || v > 1<<50 {
		return nil
	}
	mult := map[string]float64{"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40, "P": 1 << 50, "E": 1 << 60}[m[2]]
	b := v * mult
	if b >= 1<<63 {
		return nil
	}
	n := uint64(b)
	return &n
}
