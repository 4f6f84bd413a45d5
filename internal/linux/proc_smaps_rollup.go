package linux

import (
	"bytes"
	"fmt"
	"io"
)

// SmapsRollup is /proc/PID/smaps_rollup (kernel 4.14+), sizes in bytes. Rss
// and Pss are always there (a file without them is an error); every other
// field is nil when its line is absent: the Pss_* split appeared in 5.x,
// and a partial copy may lack any line.
type SmapsRollup struct {
	RssBytes            uint64  `json:"rss_bytes"`
	PssBytes            uint64  `json:"pss_bytes"`
	PssAnonBytes        *uint64 `json:"pss_anon_bytes,omitempty"`
	PssFileBytes        *uint64 `json:"pss_file_bytes,omitempty"`
	PssShmemBytes       *uint64 `json:"pss_shmem_bytes,omitempty"`
	SharedCleanBytes    *uint64 `json:"shared_clean_bytes,omitempty"`
	SharedDirtyBytes    *uint64 `json:"shared_dirty_bytes,omitempty"`
	PrivateCleanBytes   *uint64 `json:"private_clean_bytes,omitempty"`
	PrivateDirtyBytes   *uint64 `json:"private_dirty_bytes,omitempty"`
	AnonymousBytes      *uint64 `json:"anonymous_bytes,omitempty"`
	AnonHugePagesBytes  *uint64 `json:"anon_huge_pages_bytes,omitempty"`
	ShmemPmdMappedBytes *uint64 `json:"shmem_pmd_mapped_bytes,omitempty"`
	SharedHugetlbBytes  *uint64 `json:"shared_hugetlb_bytes,omitempty"`
	PrivateHugetlbBytes *uint64 `json:"private_hugetlb_bytes,omitempty"`
	SwapBytes           *uint64 `json:"swap_bytes,omitempty"`
	SwapPssBytes        *uint64 `json:"swap_pss_bytes,omitempty"`
	LockedBytes         *uint64 `json:"locked_bytes,omitempty"`
}

// rollupLines ties each optional line of smaps_rollup to its field.
var rollupLines = []struct {
	key   string
	field func(*SmapsRollup) **uint64
}{
	{"Pss_Anon", func(s *SmapsRollup) **uint64 { return &s.PssAnonBytes }},
	{"Pss_File", func(s *SmapsRollup) **uint64 { return &s.PssFileBytes }},
	{"Pss_Shmem", func(s *SmapsRollup) **uint64 { return &s.PssShmemBytes }},
	{"Shared_Clean", func(s *SmapsRollup) **uint64 { return &s.SharedCleanBytes }},
	{"Shared_Dirty", func(s *SmapsRollup) **uint64 { return &s.SharedDirtyBytes }},
	{"Private_Clean", func(s *SmapsRollup) **uint64 { return &s.PrivateCleanBytes }},
	{"Private_Dirty", func(s *SmapsRollup) **uint64 { return &s.PrivateDirtyBytes }},
	{"Anonymous", func(s *SmapsRollup) **uint64 { return &s.AnonymousBytes }},
	{"AnonHugePages", func(s *SmapsRollup) **uint64 { return &s.AnonHugePagesBytes }},
	{"ShmemPmdMapped", func(s *SmapsRollup) **uint64 { return &s.ShmemPmdMappedBytes }},
	{"Shared_Hugetlb", func(s *SmapsRollup) **uint64 { return &s.SharedHugetlbBytes }},
	{"Private_Hugetlb", func(s *SmapsRollup) **uint64 { return &s.PrivateHugetlbBytes }},
	{"Swap", func(s *SmapsRollup) **uint64 { return &s.SwapBytes }},
	{"SwapPss", func(s *SmapsRollup) **uint64 { return &s.SwapPssBytes }},
	{"Locked", func(s *SmapsRollup) **uint64 { return &s.LockedBytes }},
}

// ReadSmapsRollup reads /proc/PID/smaps_rollup under fs. It walks the
// process's page tables in the kernel: milliseconds per GiB of memory mapped
// with 4 KiB pages.
func ReadSmapsRollup(fs FS, pid int) (SmapsRollup, error) {
	b, err := readProcFile(fs, pid, "smaps_rollup")
	if err != nil {
		return SmapsRollup{}, err
	}
	return parseSmapsRollup(bytes.NewReader(b))
}

// parseSmapsRollup parses smaps_rollup in one pass. A file without Rss
// and Pss lines is an error: a process that exited yields an empty file.
func parseSmapsRollup(r io.Reader) (SmapsRollup, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return SmapsRollup{}, err
	}
	var s SmapsRollup
	var hasRss, hasPss bool
	eachKV(b, func(key []byte, v uint64) {
		switch string(key) {
		case "Rss":
			s.RssBytes, hasRss = v, true
		case "Pss":
			s.PssBytes, hasPss = v, true
		default:
			s.set(key, v)
		}
	})
	switch {
	case !hasRss:
		return SmapsRollup{}, fmt.Errorf("smaps_rollup has no Rss line")
	case !hasPss:
		return SmapsRollup{}, fmt.Errorf("smaps_rollup has no Pss line")
	}
	return s, nil
}

// set stores one line other than Rss and Pss.
func (s *SmapsRollup) set(key []byte, v uint64) {
	for _, l := range rollupLines {
		if l.key == string(key) {
			*l.field(s) = new(v)
			return
		}
	}
}
