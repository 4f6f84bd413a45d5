package bundle

import (
	"encoding/json"
	"fmt"

	"github.com/dbmem/dbmem/internal/oomguard"
	"github.com/dbmem/dbmem/internal/redact"
	"github.com/dbmem/dbmem/internal/units"
)

// guardName is where a bundle keeps the OOM guard read at capture (the
// database units' OOMPolicy, OOMScoreAdjust, Memory*, ManagedOOM*,
// systemd-oomd, earlyoom and the OOM sysctls): `systemctl show` answers
// and unit files outside /proc and /sys are not in the tree, so the
// guard is kept as read.
const guardName = "live/oomguard/guard.json"

// maxGuardBytes bounds the guard's member (a few KiB per unit in practice).
const maxGuardBytes = 1 << 20

// maxGuardUnits bounds the units a bundle's guard may list.
const maxGuardUnits = 4096

// addGuard adds g, its earlyoom arguments redacted, and names it in the
// manifest; a nil guard adds nothing.
func (c *contents) addGuard(g *oomguard.Guard) error {
	if g == nil {
		return nil
	}
	cp := *g
	cp.Earlyoom.Args = redact.Args(g.Earlyoom.Args)
	b, err := json.MarshalIndent(&cp, "", "  ")
	if err != nil {
		return fmt.Errorf("encode the OOM guard: %w", err)
	}
	if len(b) > maxGuardBytes {
		return fmt.Errorf("the OOM guard's record is %s, over its %s budget", units.Bytes(uint64(len(b))), units.Bytes(maxGuardBytes))
	}
	c.files[guardName] = b
	c.manifest.OOMGuard = guardName
	return nil
}

// OOMGuard returns the OOM guard as captured, or nil for a bundle written
// before bundles carried it (check, report and plan then leave it out,
// and say so).
func (b *Bundle) OOMGuard() (*oomguard.Guard, error) {
	if b.Manifest.OOMGuard == "" {
		return nil, nil
	}
	if b.Manifest.OOMGuard != guardName {
		return nil, fmt.Errorf("read bundle %s: the manifest names the OOM guard %q, not %s", b.Path, b.Manifest.OOMGuard, guardName)
	}
	raw, ok := b.tree.files[guardName]
	switch {
	case !ok:
		return nil, fmt.Errorf("read bundle %s: the manifest names %s, which is not in the bundle", b.Path, guardName)
	case len(raw) > maxGuardBytes:
		return nil, fmt.Errorf("read bundle %s: %s is %d bytes, over the %d-byte limit: refusing", b.Path, guardName, len(raw), maxGuardBytes)
	}
	var g oomguard.Guard
	if err := json.Unmarshal(raw, &g); err != nil {
		return nil, fmt.Errorf("read bundle %s: %s: %w", b.Path, guardName, err)
	}
	if len(g.Units) > maxGuardUnits {
		return nil, fmt.Errorf("read bundle %s: %s lists %d units, more than %d: refusing", b.Path, guardName, len(g.Units), maxGuardUnits)
	}
	return &g, nil
}
