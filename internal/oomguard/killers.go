package oomguard

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/sdunit"
)

// Oomd is systemd-oomd: whether it runs and its limits (oomd.conf).
type Oomd struct {
	Running bool `json:"running"`
	PID     int  `json:"pid,omitempty"`
	// SwapUsedLimit, DefaultMemoryPressureLimit and
	// DefaultMemoryPressureDurationSec as set, or systemd's defaults (90%,
	// 60%, 30s).
	SwapUsedLimit                    Value `json:"swap_used_limit"`
	DefaultMemoryPressureLimit       Value `json:"default_memory_pressure_limit"`
	DefaultMemoryPressureDurationSec Value `json:"default_memory_pressure_duration"`
}

// Earlyoom is earlyoom: whether it runs, its limits and lists.
type Earlyoom struct {
	Running bool `json:"running"`
	PID     int  `json:"pid,omitempty"`
	// Args are its command line (running) or EARLYOOM_ARGS of
	// /etc/default/earlyoom (ArgsFrom says which).
	Args     []string `json:"args,omitempty"`
	ArgsFrom string   `json:"args_from,omitempty"`
	// MemPercent and SwapPercent are -m/-s (SIGTERM limit; default 10),
	// MemKill/SwapKill the SIGKILL limits (default half).
	MemPercent  string `json:"mem_percent"`
	SwapPercent string `json:"swap_percent"`
	// Avoid and Prefer are the --avoid and --prefer regular expressions.
	Avoid  string `json:"avoid,omitempty"`
	Prefer string `json:"prefer,omitempty"`
	// Ignore is --ignore: processes never killed.
	Ignore string `json:"ignore,omitempty"`
}

// processes maps the command names dbmem looks for to a PID.
func processes(fs linux.FS) map[string]int {
	out := map[string]int{}
	pids, err := linux.ListPIDs(fs)
	if err != nil {
		return out
	}
	for _, pid := range pids {
		c, err := linux.ReadComm(fs, pid)
		if err != nil {
			continue
		}
		switch c {
		case "systemd-oomd", "earlyoom":
			if out[c] == 0 {
				out[c] = pid
			}
		}
	}
	return out
}

func readOomd(fs linux.FS, procs map[string]int) Oomd {
	o := Oomd{PID: procs["systemd-oomd"], SwapUsedLimit: Value{"90%", FromDefault}, DefaultMemoryPressureLimit: Value{"60%", FromDefault},
		DefaultMemoryPressureDurationSec: Value{"30s", FromDefault}}
	o.Running = o.PID > 0
	for _, f := range append([]string{"/usr/lib/systemd/oomd.conf", "/etc/systemd/oomd.conf"}, confDropIns(fs, "/etc/systemd/oomd.conf.d")...) {
		b, err := fs.ReadFile(fs.HostPath(f))
		if err != nil {
			continue
		}
		as, _ := sdunit.Parse(bytes.NewReader(b), f)
		for _, a := range as {
			v := Value{Value: a.Value, From: f}
			switch {
			case a.Section != "OOM" || a.Value == "":
			case a.Key == "SwapUsedLimit":
				o.SwapUsedLimit = v
			case a.Key == "DefaultMemoryPressureLimit":
				o.DefaultMemoryPressureLimit = v
			case a.Key == "DefaultMemoryPressureDurationSec":
				o.DefaultMemoryPressureDurationSec = v
			}
		}
	}
	return o
}

func readEarlyoom(fs linux.FS, procs map[string]int) Earlyoom {
	e := Earlyoom{PID: procs["earlyoom"], MemPercent: "10", SwapPercent: "10"}
	e.Running = e.PID > 0
	if e.Running {
		if args, err := linux.ReadCmdline(fs, e.PID); err == nil && len(args) > 0 {
			e.Args, e.ArgsFrom = args[1:], "/proc/"+strconv.Itoa(e.PID)+"/cmdline"
		}
	}
	if e.ArgsFrom == "" {
		if b, err := fs.ReadFile(fs.HostPath("/etc/default/earlyoom")); err == nil {
			e.Args, e.ArgsFrom = defaultArgs(string(b)), "/etc/default/earlyoom"
		}
	}
	ParseEarlyoomArgs(&e)
	return e
}

// defaultArgs reads EARLYOOM_ARGS="..." of /etc/default/earlyoom (shell
// words: single and double quotes).
func defaultArgs(s string) []string {
	var val string
	for _, l := range strings.Split(s, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "EARLYOOM_ARGS="); ok {
			val = v
		}
	}
	val = strings.TrimSpace(val)
	if len(val) >= 2 && (val[0] == '"' || val[0] == '\'') && val[len(val)-1] == val[0] {
		val = val[1 : len(val)-1]
	}
	return shellWords(val)
}

// shellWords splits on blanks, keeping quoted parts whole.
func shellWords(s string) []string {
	var out []string
	var cur strings.Builder
	var quote rune
	in := false
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}

// ParseEarlyoomArgs reads -m, -s, --avoid, --prefer and --ignore from Args.
func ParseEarlyoomArgs(e *Earlyoom) {
	for i := 0; i < len(e.Args); i++ {
		a := e.Args[i]
		next := func() string {
			if i+1 < len(e.Args) {
				i++
				return e.Args[i]
			}
			return ""
		}
		switch {
		case a == "-m":
			e.MemPercent = next()
		case a == "-s":
			e.SwapPercent = next()
		case a == "--avoid" || strings.HasPrefix(a, "--avoid="):
			e.Avoid = argValue(a, "--avoid", next)
		case a == "--prefer" || strings.HasPrefix(a, "--prefer="):
			e.Prefer = argValue(a, "--prefer", next)
		case a == "--ignore" || strings.HasPrefix(a, "--ignore="):
			e.Ignore = argValue(a, "--ignore", next)
		case strings.HasPrefix(a, "-m"):
			e.MemPercent = a[2:]
		case strings.HasPrefix(a, "-s"):
			e.SwapPercent = a[2:]
		}
	}
}

func argValue(a, flag string, next func() string) string {
	if v, ok := strings.CutPrefix(a, flag+"="); ok {
		return v
	}
	return next()
}
