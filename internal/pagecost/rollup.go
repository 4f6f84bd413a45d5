package pagecost

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/dbmem/dbmem/internal/linux"
)

// Rollup is /proc/PID/smaps_rollup (kernel 4.14+) in bytes. HasPssAnon is
// false on kernels before 5.x, which lack the Pss_Anon/File/Shmem split.
type Rollup struct {
	RssBytes            uint64 `json:"rss_bytes"`
	PssBytes            uint64 `json:"pss_bytes"`
	PssDirtyBytes       uint64 `json:"pss_dirty_bytes"`
	PssAnonBytes        uint64 `json:"pss_anon_bytes"`
	PssFileBytes        uint64 `json:"pss_file_bytes"`
	PssShmemBytes       uint64 `json:"pss_shmem_bytes"`
	SharedCleanBytes    uint64 `json:"shared_clean_bytes"`
	SharedDirtyBytes    uint64 `json:"shared_dirty_bytes"`
	PrivateCleanBytes   uint64 `json:"private_clean_bytes"`
	PrivateDirtyBytes   uint64 `json:"private_dirty_bytes"`
	ReferencedBytes     uint64 `json:"referenced_bytes"`
	AnonymousBytes      uint64 `json:"anonymous_bytes"`
	KSMBytes            uint64 `json:"ksm_bytes"`
	LazyFreeBytes       uint64 `json:"lazy_free_bytes"`
	AnonHugePagesBytes  uint64 `json:"anon_huge_pages_bytes"`
	ShmemPmdMappedBytes uint64 `json:"shmem_pmd_mapped_bytes"`
	FilePmdMappedBytes  uint64 `json:"file_pmd_mapped_bytes"`
	SharedHugetlbBytes  uint64 `json:"shared_hugetlb_bytes"`
	PrivateHugetlbBytes uint64 `json:"private_hugetlb_bytes"`
	SwapBytes           uint64 `json:"swap_bytes"`
	SwapPssBytes        uint64 `json:"swap_pss_bytes"`
	LockedBytes         uint64 `json:"locked_bytes"`
	HasPssAnon          bool   `json:"has_pss_anon"`
}

// ReadRollup reads /proc/PID/smaps_rollup under fs.
func ReadRollup(fs linux.FS, pid int) (Rollup, error) {
	path := fs.ProcPath(strconv.Itoa(pid), "smaps_rollup")
	b, err := os.ReadFile(path)
	if err != nil {
		return Rollup{}, err // a *PathError naming the file
	}
	r, err := ParseRollup(bytes.NewReader(b))
	if err != nil {
		return r, fmt.Errorf("parse %s: %w", path, err)
	}
	return r, nil
}

// ParseRollup parses the text of /proc/PID/smaps_rollup. Unknown lines are
// ignored; a file without Rss and Pss is an error (an exited process yields
// an empty file).
func ParseRollup(r io.Reader) (Rollup, error) {
	var out Rollup
	fields := out.fields()
	seen := 0
	err := scanKV(r, func(key, val string) error {
		p, ok := fields[key]
		if !ok {
			return nil
		}
		v, err := parseKB(key, val)
		*p = v
		seen |= rollupSeen[key]
		return err
	})
	if err != nil {
		return Rollup{}, err
	}
	if seen&(seenRss|seenPss) != seenRss|seenPss {
		return Rollup{}, fmt.Errorf("no Rss and Pss lines: not a smaps_rollup file, or the process exited")
	}
	out.HasPssAnon = seen&seenPssAnon != 0
	return out, nil
}

const (
	seenRss = 1 << iota
	seenPss
	seenPssAnon
)

var rollupSeen = map[string]int{"Rss": seenRss, "Pss": seenPss, "Pss_Anon": seenPssAnon}

func (r *Rollup) fields() map[string]*uint64 {
	return map[string]*uint64{
		"Rss": &r.RssBytes, "Pss": &r.PssBytes, "Pss_Dirty": &r.PssDirtyBytes,
		"Pss_Anon": &r.PssAnonBytes, "Pss_File": &r.PssFileBytes, "Pss_Shmem": &r.PssShmemBytes,
		"Shared_Clean": &r.SharedCleanBytes, "Shared_Dirty": &r.SharedDirtyBytes,
		"Private_Clean": &r.PrivateCleanBytes, "Private_Dirty": &r.PrivateDirtyBytes,
		"Referenced": &r.ReferencedBytes, "Anonymous": &r.AnonymousBytes, "KSM": &r.KSMBytes,
		"LazyFree": &r.LazyFreeBytes, "AnonHugePages": &r.AnonHugePagesBytes,
		"ShmemPmdMapped": &r.ShmemPmdMappedBytes, "FilePmdMapped": &r.FilePmdMappedBytes,
		"Shared_Hugetlb": &r.SharedHugetlbBytes, "Private_Hugetlb": &r.PrivateHugetlbBytes,
		"Swap": &r.SwapBytes, "SwapPss": &r.SwapPssBytes, "Locked": &r.LockedBytes,
	}
}
