package cli

import (
	"log/slog"
	"os"
	"runtime/debug"

	"github.com/dbmem/dbmem/internal/units"
)

// defaultMemoryLimit is the exporter's soft memory limit: three quarters
// of the MemoryMax=256M its unit gives it, so that run by hand, or under
// a unit without that line, it collects its garbage before it grows
// further than it would be allowed to there.
const defaultMemoryLimit = 192 << 20

// byteSize is a size flag: 192MiB, 1GiB, or bytes; 0 is no limit.
type byteSize uint64

func (b *byteSize) String() string { return units.Bytes(uint64(*b)) }
func (b *byteSize) Type() string   { return "size" }

func (b *byteSize) Set(s string) error {
	v, err := units.ParseSize(s)
	*b = byteSize(v)
	return err
}

// limitMemory sets the Go runtime's soft memory limit, unless GOMEMLIMIT
// says otherwise or the limit is 0.
func limitMemory(limit byteSize, log *slog.Logger) {
	if os.Getenv("GOMEMLIMIT") != "" || limit == 0 {
		return
	}
	debug.SetMemoryLimit(int64(limit))
	log.Debug("soft memory limit", "bytes", uint64(limit))
}
