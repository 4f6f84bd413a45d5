package oomguard

import (
	"bytes"
	"cmp"
	"context"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/sdunit"
)

// UnitAudit is a database unit's settings that decide what a memory
// shortage does to it, each with where it came from.
type UnitAudit struct {
	Subject string `json:"subject"`
	Unit    string `json:"unit"`
	// Source: "systemctl show", "unit files", or "not found" (no unit file
	// under the root: the values are systemd's defaults).
	Source string           `json:"source"`
	Files  []string         `json:"files,omitempty"`
	Slice  string           `json:"slice"`
	Values map[string]Value `json:"values"`
	// SliceValues are the slice's (and the root slice's) ManagedOOM*
	// settings, which systemd-oomd acts on.
	SliceValues map[string]Value `json:"slice_values,omitempty"`
	// ProcessMemlockBytes is the RLIMIT_MEMLOCK of a running process of the
	// service (soft), nil when not read; MemlockUnlimited when unlimited.
	ProcessMemlockBytes *uint64 `json:"process_memlock_bytes,omitempty"`
	MemlockUnlimited    bool    `json:"memlock_unlimited,omitempty"`
}

// UnitKeys are the unit settings read.
var UnitKeys = []string{"OOMPolicy", "OOMScoreAdjust", "MemoryMax", "MemoryHigh", "MemorySwapMax", "ManagedOOMMemoryPressure",
	"ManagedOOMMemoryPressureLimit", "ManagedOOMSwap", "ManagedOOMPreference", "Restart", "LimitMEMLOCK", "Slice", "Delegate"}

// SliceKeys are the slice settings systemd-oomd acts on.
var SliceKeys = []string{"ManagedOOMMemoryPressure", "ManagedOOMMemoryPressureLimit", "ManagedOOMSwap"}

// unitDefaults are systemd's defaults for the keys (OOMPolicy's comes from
// DefaultOOMPolicy=, stop unless system.conf says otherwise).
var unitDefaults = map[string]string{"OOMScoreAdjust": "0", "MemoryMax": "infinity", "MemoryHigh": "infinity",
	"MemorySwapMax": "infinity", "ManagedOOMMemoryPressure": "auto", "ManagedOOMSwap": "auto", "ManagedOOMPreference": "none",
	"Restart": "no", "LimitMEMLOCK": "8388608", "Slice": "system.slice", "Delegate": "no"}

func readUnit(ctx context.Context, o Options, g *Guard, t Target) UnitAudit {
	u := UnitAudit{Subject: t.Subject, Unit: t.Unit, Values: map[string]Value{}, SliceValues: map[string]Value{}}
	if g.SystemdPID1 && u.Unit != "" {
		if showUnit(ctx, o, &u) {
			readMemlock(o.FS, t.PID, &u)
			return u
		}
		g.Gaps = append(g.Gaps, linux.Gap{What: "systemctl show " + u.Unit, Why: "it failed: the unit files are read instead"})
	}
	fileUnit(o.FS, &u)
	readMemlock(o.FS, t.PID, &u)
	return u
}

// showUnit asks systemd for the unit's and its slice's effective values.
func showUnit(ctx context.Context, o Options, u *UnitAudit) bool {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := o.Run(ctx, "systemctl", append([]string{"show", u.Unit, "--"}, propArgs(UnitKeys)...)...)
	if err != nil {
		return false
	}
	ms, _ := sdunit.ParseShow(bytes.NewReader(out))
	if len(ms) == 0 {
		return false
	}
	u.Source = "systemctl show"
	for _, k := range UnitKeys {
		if v, ok := ms[0][k]; ok {
			u.Values[k] = Value{Value: v, From: "systemctl show"}
		}
	}
	u.Slice = u.Values["Slice"].Value
	u.Slice = cmp.Or(u.Slice, "system.slice")
	if out, err := o.Run(ctx, "systemctl", append([]string{"show", u.Slice, "--"}, propArgs(SliceKeys)...)...); err == nil {
		if ms, _ := sdunit.ParseShow(bytes.NewReader(out)); len(ms) > 0 {
			for _, k := range SliceKeys {
				if v, ok := ms[0][k]; ok {
					u.SliceValues[k] = Value{Value: v, From: "systemctl show " + u.Slice}
				}
			}
		}
	}
	return true
}

func propArgs(keys []string) []string {
	return []string{"-p", strings.Join(keys, ",")}
}

// fileUnit reads the unit's files and drop-ins, its slice's and the root
// slice's; what nothing sets is systemd's default.
func fileUnit(fs linux.FS, u *UnitAudit) {
	root := fs.HostPath("/")
	u.Source = "unit files"
	if u.Unit == "" {
		u.Source = "not found"
	} else if su, err := sdunit.Resolve(root, u.Unit); err == nil && (su.File != "" || len(su.DropIns) > 0) {
		u.Files = append([]string{su.File}, su.DropIns...)
		for _, k := range UnitKeys {
			if a, ok := su.Get(k); ok {
				u.Values[k] = Value{Value: a.Value, From: a.File}
			}
		}
	} else {
		u.Source = "not found"
	}
	for k, d := range unitDefaults {
		if _, ok := u.Values[k]; !ok {
			u.Values[k] = Value{Value: d, From: FromDefault}
		}
	}
	if _, ok := u.Values["OOMPolicy"]; !ok {
		u.Values["OOMPolicy"] = defaultOOMPolicy(fs, u.Values["Delegate"].Value)
	}
	u.Slice = u.Values["Slice"].Value
	sliceValues(root, u)
}

// defaultOOMPolicy is DefaultOOMPolicy= of system.conf (and its
// drop-ins), stop when unset; continue for a unit with Delegate=yes.
func defaultOOMPolicy(fs linux.FS, delegate string) Value {
	if delegate == "yes" || delegate == "true" {
		return Value{Value: "continue", From: FromDefault + " (Delegate=yes)"}
	}
	v := Value{Value: "stop", From: FromDefault}
	for _, f := range append([]string{"/etc/systemd/system.conf"}, confDropIns(fs, "/etc/systemd/system.conf.d")...) {
		b, err := fs.ReadFile(fs.HostPath(f))
		if err != nil {
			continue
		}
		as, _ := sdunit.Parse(bytes.NewReader(b), f)
		for _, a := range as {
			if a.Section == "Manager" && a.Key == "DefaultOOMPolicy" && a.Value != "" {
				v = Value{Value: a.Value, From: f}
			}
		}
	}
	return v
}

// sliceValues reads the ManagedOOM settings of the unit's slice and of its
// parents up to the root slice ("-.slice").
func sliceValues(root string, u *UnitAudit) {
	for _, s := range sliceChain(u.Slice) {
		su, err := sdunit.Resolve(root, s)
		if err != nil {
			continue
		}
		for _, k := range SliceKeys {
			if a, ok := su.Get(k); ok {
				if _, seen := u.SliceValues[k]; !seen {
					u.SliceValues[k] = Value{Value: a.Value, From: a.File}
				}
			}
		}
	}
}

// sliceChain is "a-b.slice", "a.slice", "-.slice" for "a-b.slice".
func sliceChain(slice string) []string {
	out := []string{}
	name := strings.TrimSuffix(slice, ".slice")
	for name != "" && name != "-" {
		out = append(out, name+".slice")
		i := strings.LastIndexByte(name, '-')
		if i < 0 {
			break
		}
		name = name[:i]
	}
	return append(out, "-.slice")
}

func confDropIns(fs linux.FS, dir string) []string {
	names, err := fs.ReadDir(fs.HostPath(dir))
	if err != nil {
		return nil
	}
	var out []string
	for _, n := range names {
		if strings.HasSuffix(n, ".conf") {
			out = append(out, dir+"/"+n)
		}
	}
	return out
}

// readMemlock reads the soft "Max locked memory" of /proc/PID/limits.
func readMemlock(fs linux.FS, pid int, u *UnitAudit) {
	if pid <= 0 {
		return
	}
	l, err := linux.ReadLimits(fs, pid)
	if err != nil {
		return
	}
	m, ok := l.Memlock()
	switch {
	case !ok:
	case m.Soft == linux.Unlimited:
		u.MemlockUnlimited = true
	default:
		u.ProcessMemlockBytes = &m.Soft
	}
}
