package linux

import (
	"bufio"
	"bytes"
	"io"
	"strconv"
	"strings"
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

func parseStatus(r io.Reader) (Status, error) {
	var text bytes.Buffer
	kv, err := parseKV(io.TeeReader(r, &text))
	if err != nil {
		return Status{}, err
	}
	s := Status{
		VmPeakBytes: kv["VmPeak"], VmSizeBytes: kv["VmSize"], VmLckBytes: kv["VmLck"],
		VmHWMBytes: kv["VmHWM"], VmRSSBytes: kv["VmRSS"], RssAnonBytes: kv["RssAnon"],
		RssFileBytes: kv["RssFile"], RssShmemBytes: kv["RssShmem"], VmPTEBytes: kv["VmPTE"],
		VmSwapBytes: kv["VmSwap"], HugetlbPageBytes: kv["HugetlbPages"],
		PPid: int(kv["PPid"]), Threads: int(kv["Threads"]),
	}
	_, s.HasMM = kv["VmSize"]
	sc := bufio.NewScanner(&text)
	for sc.Scan() {
		key, val, _ := strings.Cut(sc.Text(), ":")
		val = strings.TrimSpace(val)
		switch key {
		case "Name":
			s.Name = val
		case "State":
			s.State, _, _ = strings.Cut(val, " ")
		case "Uid":
			f := strings.Fields(val)
			if len(f) > 0 {
				s.UID, _ = strconv.Atoi(f[0])
			}
		}
	}
	return s, nil
}
