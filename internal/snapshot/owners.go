package snapshot

import (
	"github.com/dbmem/dbmem/internal/servertrust"
)

// readOwners records who owns each instance: read from this host's /proc
// when it is live, else taken from what a capture recorded (o.Owners, by
// server PID; none for a --proc tree or an older bundle).
func (s *Snapshot) readOwners(o Options) {
	owners := func(pid int, dataDir string) *servertrust.Ownership {
		if o.FS.IsLive() {
			return servertrust.ReadOwnership(o.FS, pid, dataDir)
		}
		return o.Owners[pid]
	}
	for _, in := range s.Postgres {
		in.Owners = owners(in.PostmasterPID, in.DataDir)
	}
	for _, in := range s.MySQL {
		in.Owners = owners(in.PID, in.DataDir)
	}
}

// Owners are the instances' owners by server PID, as a capture records
// them (bundle.Manifest.Owners).
func (s *Snapshot) Owners() map[int]*servertrust.Ownership {
	out := map[int]*servertrust.Ownership{}
	for _, in := range s.Postgres {
		if in.Owners != nil {
			out[in.PostmasterPID] = in.Owners
		}
	}
	for _, in := range s.MySQL {
		if in.Owners != nil {
			out[in.PID] = in.Owners
		}
	}
	return out
}
