package linux

import (
	"bytes"
	"io"
	"strconv"
)

// Status is the memory part of /proc/PID/status, sizes in bytes. Kernel
// threads have no Vm* lines; HasMM is false for them. A memory field is nil
// when its line is absent or unreadable (RssAnon, RssFile and RssShmem
// appeared in 4.5, HugetlbPages in 4.4): unknown, never 0.
type Status struct {
	Name  string `json:"name"`
	State string `json:"state"`
	// PPid is 0 (omitted) when the line is missing: only pid 1 and 2 have
	// 0 for a parent, and Process.PPid comes from stat anyway.
	PPid int `json:"ppid,omitempty"`
	// UID (real) and Threads are nil when their line is missing: uid 0 is
	// root, not unknown.
	UID              *int    `json:"uid,omitempty"`
	HasMM            bool    `json:"-"`
	VmPeakBytes      *uint64 `json:"vm_peak_bytes,omitempty"`
	VmSizeBytes      *uint64 `json:"vm_size_bytes,omitempty"`
	VmLckBytes       *uint64 `json:"vm_lck_bytes,omitempty"`
	VmHWMBytes       *uint64 `json:"vm_hwm_bytes,omitempty"`
	VmRSSBytes       *uint64 `json:"vm_rss_bytes,omitempty"`
	RssAnonBytes     *uint64 `json:"rss_anon_bytes,omitempty"`
	RssFileBytes     *uint64 `json:"rss_file_bytes,omitempty"`
	RssShmemBytes    *uint64 `json:"rss_shmem_bytes,omitempty"`
	VmPTEBytes       *uint64 `json:"vm_pte_bytes,omitempty"`
	VmSwapBytes      *uint64 `json:"vm_swap_bytes,omitempty"`
	HugetlbPageBytes *uint64 `json:"hugetlb_pages_bytes,omitempty"`
	// VmLibBytes is the executable mappings other than the program's own
	// text: it grows when a process loads a library (a backend that
	// JIT-compiled has llvmjit.so). Not in Missing: dbmem only compares it.
	VmLibBytes *uint64 `json:"vm_lib_bytes,omitempty"`
	Threads    *int    `json:"threads,omitempty"`
}

// statusLines ties each memory line of status to its field.
var statusLines = [...]struct {
	key   string
	field func(*Status) **uint64
}{
	{"VmPeak", func(s *Status) **uint64 { return &s.VmPeakBytes }},
	{"VmSize", func(s *Status) **uint64 { return &s.VmSizeBytes }},
	{"VmLck", func(s *Status) **uint64 { return &s.VmLckBytes }},
	{"VmHWM", func(s *Status) **uint64 { return &s.VmHWMBytes }},
	{"VmRSS", func(s *Status) **uint64 { return &s.VmRSSBytes }},
	{"RssAnon", func(s *Status) **uint64 { return &s.RssAnonBytes }},
	{"RssFile", func(s *Status) **uint64 { return &s.RssFileBytes }},
	{"RssShmem", func(s *Status) **uint64 { return &s.RssShmemBytes }},
	{"VmPTE", func(s *Status) **uint64 { return &s.VmPTEBytes }},
	{"VmSwap", func(s *Status) **uint64 { return &s.VmSwapBytes }},
	{"HugetlbPages", func(s *Status) **uint64 { return &s.HugetlbPageBytes }},
}

// Missing lists the memory lines dbmem reads that this status lacked.
func (s Status) Missing() []string {
	var out []string
	for _, l := range statusLines {
		if *l.field(&s) == nil {
			out = append(out, l.key)
		}
	}
	return out
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
	var vals *statusValues // the memory lines' values: one allocation for all
	for line := range bytes.Lines(b) {
		key, val, _ := bytes.Cut(line, []byte(":"))
		switch string(key) {
		case "Name":
			s.Name = string(bytes.TrimSpace(val))
		case "State":
			s.State, _ = nextField(string(val))
		case "Uid":
			uid, _ := nextField(val)
			if v, err := strconv.Atoi(string(uid)); err == nil {
				s.UID = &v
			}
		default:
			if k, v, ok := parseKVLine(line); ok {
				s.set(k, v, &vals)
			}
		}
	}
	return s, nil
}

// statusValues holds the values the memory fields of one Status point to.
type statusValues [len(statusLines)]uint64

// set stores one numeric line of status; the memory lines' values go to
// *vals, allocated at the first.
func (s *Status) set(key []byte, v uint64, vals **statusValues) {
	switch string(key) {
	case "PPid":
		s.PPid = int(v)
		return
	case "Threads":
		n := int(v)
		s.Threads = &n
		return
	case "VmLib":
		s.VmLibBytes = &v
		return
	case "VmSize":
		s.HasMM = true
	}
	for i, l := range statusLines {
		if l.key == string(key) {
			if *vals == nil {
				*vals = new(statusValues)
			}
			(*vals)[i] = v
			*l.field(s) = &(*vals)[i]
			return
		}
	}
}
