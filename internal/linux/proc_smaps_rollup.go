package linux

import (
	"bytes"
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

func parseSmapsRollup(r io.Reader) (SmapsRollup, error) {
	kv, err := parseKV(r)
	if err != nil {
		return SmapsRollup{}, err
	}
	if err := kv.require("smaps_rollup", "Rss", "Pss"); err != nil {
		return SmapsRollup{}, err
	}
	return SmapsRollup{
		RssBytes: kv["Rss"], PssBytes: kv["Pss"],
		PssAnonBytes: kv.opt("Pss_Anon"), PssFileBytes: kv.opt("Pss_File"), PssShmemBytes: kv.opt("Pss_Shmem"),
		SharedCleanBytes: kv["Shared_Clean"], SharedDirtyBytes: kv["Shared_Dirty"],
		PrivateCleanBytes: kv["Private_Clean"], PrivateDirtyBytes: kv["Private_Dirty"],
		AnonymousBytes: kv["Anonymous"], AnonHugePagesBytes: kv["AnonHugePages"],
		ShmemPmdMappedBytes: kv["ShmemPmdMapped"],
		SharedHugetlbBytes:  kv["Shared_Hugetlb"], PrivateHugetlbBytes: kv["Private_Hugetlb"],
		SwapBytes: kv["Swap"], SwapPssBytes: kv["SwapPss"], LockedBytes: kv["Locked"],
	}, nil
}
