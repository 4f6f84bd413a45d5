package linux

import (
	"bytes"
	"fmt"
	"io"
)

// SmapsRollup is /proc/PID/smaps_rollup (kernel 4.14+), sizes in bytes. The
// Pss_* split appeared in 5.x; those fields are nil on older kernels.
type SmapsRollup struct {
	RssBytes            uint64  `json:"rss_bytes"`
	PssBytes            uint64  `json:"pss_bytes"`
	PssAnonBytes        *uint64 `json:"pss_anon_bytes,omitempty"`
	PssFileBytes        *uint64 `json:"pss_file_bytes,omitempty"`
	PssShmemBytes       *uint64 `json:"pss_shmem_bytes,omitempty"`
	SharedCleanBytes    uint64  `json:"shared_clean_bytes"`
	SharedDirtyBytes    uint64  `json:"shared_dirty_bytes"`
	PrivateCleanBytes   uint64  `json:"private_clean_bytes"`
	PrivateDirtyBytes   uint64  `json:"private_dirty_bytes"`
	AnonymousBytes      uint64  `json:"anonymous_bytes"`
	AnonHugePagesBytes  uint64  `json:"anon_huge_pages_bytes"`
	ShmemPmdMappedBytes uint64  `json:"shmem_pmd_mapped_bytes"`
	SharedHugetlbBytes  uint64  `json:"shared_hugetlb_bytes"`
	PrivateHugetlbBytes uint64  `json:"private_hugetlb_bytes"`
	SwapBytes           uint64  `json:"swap_bytes"`
	SwapPssBytes        uint64  `json:"swap_pss_bytes"`
	LockedBytes         uint64  `json:"locked_bytes"`
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
	switch string(key) {
	case "Pss_Anon":
		s.PssAnonBytes = ptr(v)
	case "Pss_File":
		s.PssFileBytes = ptr(v)
	case "Pss_Shmem":
		s.PssShmemBytes = ptr(v)
	case "Shared_Clean":
		s.SharedCleanBytes = v
	case "Shared_Dirty":
		s.SharedDirtyBytes = v
	case "Private_Clean":
		s.PrivateCleanBytes = v
	case "Private_Dirty":
		s.PrivateDirtyBytes = v
	case "Anonymous":
		s.AnonymousBytes = v
	case "AnonHugePages":
		s.AnonHugePagesBytes = v
	case "ShmemPmdMapped":
		s.ShmemPmdMappedBytes = v
	case "Shared_Hugetlb":
		s.SharedHugetlbBytes = v
	case "Private_Hugetlb":
		s.PrivateHugetlbBytes = v
	case "Swap":
		s.SwapBytes = v
	case "SwapPss":
		s.SwapPssBytes = v
	case "Locked":
		s.LockedBytes = v
	}
}

// ptr returns a pointer to a copy of v (allocated only when called).
func ptr(v uint64) *uint64 { return &v }
