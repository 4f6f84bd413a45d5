package linux

import "io"

// ParseSmaps parses the text of /proc/PID/smaps, keeping the entries keep
// accepts (nil keeps all): for callers that hold the text already (a
// recorded fixture) rather than a process to read.
func ParseSmaps(r io.Reader, keep func(Mapping) bool) ([]SmapsEntry, error) {
	return parseSmaps(r, keep)
}

// ParseStatus parses the text of /proc/PID/status, for callers that read
// it themselves (internal/pagecost reads it into a reused buffer).
func ParseStatus(r io.Reader) (Status, error) { return parseStatus(r) }

// ParseStatusBytes parses the text of /proc/PID/status already read.
func ParseStatusBytes(b []byte) (Status, error) { return parseStatusBytes(b) }

// ParseSmapsRollup parses the text of /proc/PID/smaps_rollup.
func ParseSmapsRollup(r io.Reader) (SmapsRollup, error) { return parseSmapsRollup(r) }

// ParseMeminfo parses the text of /proc/meminfo, or any part of it as
// people paste it (see parseMeminfo).
func ParseMeminfo(r io.Reader) (Meminfo, error) { return parseMeminfo(r) }
