package bundle

import "github.com/dbmem/dbmem/internal/servertrust"

// Owners are who owned each instance on the captured host, by server PID,
// for snapshot.Options.Owners: a replay cannot look at that host's files,
// and without them every instance would be planned as read.
func (b *Bundle) Owners() map[int]*servertrust.Ownership { return b.Manifest.Owners }
