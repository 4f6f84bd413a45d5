package pagecost

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/dbmem/dbmem/internal/linux"
)

// Status is the part of /proc/PID/status the private cost needs, in bytes.
type Status struct {
	RssAnonBytes uint64
	VmPTEBytes   uint64
	VmSwapBytes  uint64
	// HasMM is false for kernel threads and zombies (no Vm* lines).
	HasMM bool
}

// ReadStatus reads /proc/PID/status under fs.
func ReadStatus(fs linux.FS, pid int) (Status, error) {
	path := fs.ProcPath(strconv.Itoa(pid), "status")
	b, err := os.ReadFile(path)
	if err != nil {
		return Status{}, err // a *PathError naming the file
	}
	s, err := ParseStatus(bytes.NewReader(b))
	if err != nil {
		return s, fmt.Errorf("parse %s: %w", path, err)
	}
	return s, nil
}

// ParseStatus parses the text of /proc/PID/status, keeping RssAnon, VmPTE
// and VmSwap; one of those that does not parse is an error.
func ParseStatus(r io.Reader) (Status, error) {
	var s Status
	err := scanKV(r, func(key, val string) error {
		var p *uint64
		switch key {
		case "RssAnon":
			p = &s.RssAnonBytes
		case "VmPTE":
			p = &s.VmPTEBytes
		case "VmSwap":
			p = &s.VmSwapBytes
		case "VmSize":
			s.HasMM = true
			return nil
		default:
			return nil
		}
		var err error
		*p, err = parseKB(key, val)
		return err
	})
	if err != nil {
		return Status{}, err
	}
	return s, nil
}
