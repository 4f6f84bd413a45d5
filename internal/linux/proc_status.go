package linux

import (
	"bytes"
	"io"
	"strconv"
)

// Status is the memory part of /proc/PID/status, sizes in bytes. Kernel
// threads have no Vm* lines; HasMM is false for them.
type Status struct {
	Name             string `json:"name"`
	State            string `json:"state"`
	PPid             int    `json:"ppid"`
	UID              int    `json:"uid"`
	HasMM            bool   `json:"-"`
	VmPeakBytes      uint64 `json:"vm_peak_bytes"`
	VmSizeBytes      uint64 `json:"vm_size_bytes"`
	VmLckBytes       uint64 `json:"vm_lck_bytes"`
	VmHWMBytes       uint64 `json:"vm_hwm_bytes"`
	VmRSSBytes       uint64 `json:"vm_rss_bytes"`
	RssAnonBytes     uint64 `json:"rss_anon_bytes"`
	RssFileBytes     uint64 `json:"rss_file_bytes"`
	RssShmemBytes    uint64 `json:"rss_shmem_bytes"`
	VmPTEBytes       uint64 `json:"vm_pte_bytes"`
	VmSwapBytes      uint64 `json:"vm_swap_bytes"`
	HugetlbPageBytes uint64 `json:"hugetlb_pages_bytes"`
	Threads          int    `json:"threads"`
}

// ReadStatus reads /proc/PID/status under fs.
func ReadStatus(fs FS, pid int) (Status, error) {
	b, err := readProcFile(fs, pid, "status")
	if err != nil {
		return Status{}, err
	}
	return parseStatus(bytes.NewReader(b))
}

// parseStatus parses status in one pass without allocating beyond the
// name and state strings: it runs for every process of a fleet.
func parseStatus(r io.Reader) (Status, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return Status{}, err
	}
	return parseStatusBytes(b)
}

func parseStatusBytes(b []byte) (Status, error) {
	var s Status
	for line := range bytes.Lines(b) {
		key, val, _ := bytes.Cut(line, []byte(":"))
		switch string(key) {
		case "Name":
			s.Name = string(bytes.TrimSpace(val))
		case "State":
			s.State, _ = nextField(string(val))
		case "Uid":
			uid, _ := nextField(val)
			s.UID, _ = strconv.Atoi(string(uid))
		default:
			if k, v, ok := parseKVLine(line); ok {
				s.set(k, v)
			}
		}
	}
	return s, nil
}

// set stores one numeric line of status.
func (s *Status) set(key []byte, v uint64) {
	switch string(key) {
	case "VmPeak":
		s.VmPeakBytes = v
	case "VmSize":
		s.VmSizeBytes, s.HasMM = v, true
	case "VmLck":
		s.VmLckBytes = v
	case "VmHWM":
		s.VmHWMBytes = v
	case "VmRSS":
		s.VmRSSBytes = v
	case "RssAnon":
		s.RssAnonBytes = v
	case "RssFile":
		s.RssFileBytes = v
	case "RssShmem":
		s.RssShmemBytes = v
	case "VmPTE":
		s.VmPTEBytes = v
	case "VmSwap":
		s.VmSwapBytes = v
	case "HugetlbPages":
		s.HugetlbPageBytes = v
	case "PPid":
		s.PPid = int(v)
	case "Threads":
		s.Threads = int(v)
	}
}
