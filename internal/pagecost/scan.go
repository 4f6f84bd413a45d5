package pagecost

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"time"

	"github.com/dbmem/dbmem/internal/linux"
)

// procScan is phase one of the fast path for one process: its status and
// the tally of its private pagemap ranges.
type procScan struct {
	status  linux.Status
	tally   tally
	skipped uint64 // bytes of mappings not read
	elapsed time.Duration
	// useSmaps: the process maps so little shared memory through 4 KiB
	// pages that smaps_rollup costs less than the fast path.
	useSmaps bool
	// codeDeferred: its text mappings were not read (see isCode).
	codeDeferred bool
	// fromLayout: read along a sibling's layout, not its own maps.
	fromLayout bool
}

// smapsCheaperBelow is the RssShmem under which smaps_rollup costs less
// than the fast path: smaps_rollup walks every present page-table entry
// (about 75 ns each on this project's busy 2-core machine, on top of about
// 0.35 ms for a backend's private mappings), the fast path costs 0.6-0.9 ms
// per process on one core whatever its shared memory (status, maps,
// pagemap, its share of kpagecount). They break even near 8,000 entries
// (32 MiB); backends of a server with huge_pages=on map almost nothing
// through 4 KiB pages (RssShmem excludes hugetlb) and took 0.35-0.38 ms
// with smaps_rollup (docs/performance.md).
const smapsCheaperBelow = 32 << 20

// scratch is a worker's reusable pagemap buffers.
type scratch struct {
	text    []byte // maps text
	maps    []vma
	buf     []byte
	words   []uint64
	regions []pageRegion // PAGEMAP_SCAN output
	ranges  [][2]uint64
	spans   []span
	// lookupHint is the length of the last process's lookup runs: the
	// next one's starting capacity.
	lookupHint int
}

// scanPlan says how phase one reads a process.
type scanPlan struct {
	// alwaysPagemap reads pagemap even where smaps_rollup is cheaper.
	alwaysPagemap bool
	// withCode reads text mappings too (the second round).
	withCode bool
	// layouts, when set (the first round), lets a process whose sibling's
	// layout is known be read along it instead of its own maps.
	layouts *layouts
}

// scanProcess reads status, maps and the private ranges of pagemap as plan
// says.
func scanProcess(fs linux.FS, pid int, sc *scratch, plan scanPlan) (*procScan, error) {
	start := time.Now()
	st, err := readStatusInto(fs, pid, &sc.text)
	if err != nil {
		return nil, err
	}
	if !st.HasMM {
		return nil, ErrNoUserMemory
	}
	if st.RssShmemBytes != nil && *st.RssShmemBytes < smapsCheaperBelow && !plan.alwaysPagemap {
		return &procScan{status: st, useSmaps: true, elapsed: time.Since(start)}, nil
	}
	path := fs.ProcPath(strconv.Itoa(pid), "pagemap")
	key, useLayout := layoutKeyOf(st)
	useLayout = useLayout && !plan.withCode && plan.layouts != nil
	if useLayout {
		ps, err := scanAlongLayout(path, st, plan.layouts.get(key), sc)
		if err != nil {
			return nil, err
		}
		if ps != nil {
			ps.elapsed = time.Since(start)
			return ps, nil
		}
	}
	maps, err := readMaps(fs, pid, sc)
	if err != nil {
		return nil, err
	}
	if useLayout {
		plan.layouts.put(key, layoutOf(maps))
	}
	ps := &procScan{status: st}
	if err := ps.readPagemap(path, maps, plan.withCode, sc); err != nil {
		return nil, err
	}
	ps.elapsed = time.Since(start)
	return ps, nil
}

// scanAlongLayout reads a process's pagemap along its sibling's layout l.
// Neither scan nor error (no layout yet, or no PAGEMAP_SCAN after all)
// means: read the process's own maps.
func scanAlongLayout(path string, st linux.Status, l *layout, sc *scratch) (*procScan, error) {
	if l == nil {
		return nil, nil
	}
	ps := &procScan{status: st, skipped: l.skippedBytes, codeDeferred: true, fromLayout: true}
	switch err := ps.readSpans(path, l.spans, nil, sc); {
	case err == nil:
		return ps, nil
	case errors.Is(err, errNoPMScan):
		return nil, nil
	default:
		return nil, err
	}
}

// readStatusInto is linux.ReadStatus with a reusable buffer.
func readStatusInto(fs linux.FS, pid int, buf *[]byte) (linux.Status, error) {
	path := fs.ProcPath(strconv.Itoa(pid), "status")
	b, err := readFileInto(path, buf)
	if err != nil {
		return linux.Status{}, err
	}
	st, err := linux.ParseStatusBytes(b)
	if err != nil {
		return st, fmt.Errorf("parse %s: %w", path, err)
	}
	return st, nil
}

// readMaps reads and parses /proc/PID/maps into sc's buffers.
func readMaps(fs linux.FS, pid int, sc *scratch) ([]vma, error) {
	path := fs.ProcPath(strconv.Itoa(pid), "maps")
	b, err := readFileInto(path, &sc.text)
	if err != nil {
		return nil, err
	}
	maps, err := parseMapsActions(b, sc.maps[:0])
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	if len(maps) == 0 {
		return nil, fmt.Errorf("read %s: empty: %w", path, ErrExited)
	}
	sc.maps = maps
	return maps, nil
}

// readErr names path in err once: a *PathError (pread) already does.
func readErr(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return err
	}
	return fmt.Errorf("read %s: %w", path, err)
}

// readFileInto reads a whole kernel file into *buf, growing it as needed,
// in as few read calls as the buffer allows (os.ReadFile starts at 512
// bytes for /proc files, which report size 0).
func readFileInto(path string, buf *[]byte) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err // a *PathError: "open /proc/1234/maps: ..."
	}
	defer f.Close()
	if cap(*buf) == 0 {
		*buf = make([]byte, 0, 64<<10)
	}
	b := (*buf)[:0]
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if errors.Is(err, io.EOF) || err == nil && n == 0 {
			*buf = b
			return b, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// readPagemap opens pagemap once and reads every span of mappings that
// may hold anonymous pages (text only withCode): a small span whole, a
// large one where PAGEMAP_SCAN finds present non-file pages.
func (ps *procScan) readPagemap(path string, maps []vma, withCode bool, sc *scratch) error {
	plan := privateSpans(maps, withCode, sc.spans)
	sc.spans = plan.spans
	ps.skipped, ps.codeDeferred = plan.skippedBytes, plan.codeDeferred
	return ps.readSpans(path, plan.spans, maps, sc)
}

// readSpans reads the spans' pagemap entries from one open pagemap. maps
// is what the spans index, for kernels without PAGEMAP_SCAN; nil for the
// spans of a sibling's layout, which then return errNoPMScan.
func (ps *procScan) readSpans(path string, spans []span, maps []vma, sc *scratch) error {
	f, err := os.Open(path)
	if err != nil {
		return err // a *PathError: "open /proc/1234/pagemap: ..."
	}
	defer f.Close()
	ps.tally.lookup = make([]pfnRun, 0, sc.lookupHint+sc.lookupHint/8)
	defer func() { sc.lookupHint = len(ps.tally.lookup) }()
	for _, sp := range spans {
		if err := ps.readSpan(f, sp, maps, sc); err != nil {
			return readErr(path, err)
		}
	}
	if ps.tally.entries == 0 && len(spans) > 0 {
		// PAGEMAP_SCAN finds nothing in an exited process's address
		// space, while pread reads nothing: tell the two apart.
		if n, _ := f.ReadAt(make([]byte, 8), int64(spans[0].start/pageSize*8)); n < 8 {
			return fmt.Errorf("read %s: %w", path, ErrExited)
		}
	}
	return nil
}

// rangeMergeGap: present ranges this close are read with one pread.
const rangeMergeGap = 16 << 10

// directSpanPages is the size up to which a span's pagemap is read whole,
// in one pread, rather than listed with PAGEMAP_SCAN first: most spans
// between two libraries' text are a few pages of rodata, relocations and
// data, where a second system call costs more than the entries it saves.
const directSpanPages = 512

// readSpan reads the pagemap entries of a span. A large span is listed
// with PAGEMAP_SCAN first, for its present non-file ranges: a large
// private mapping may be a reservation with little touched (mariadbd maps
// 8 TiB), or read-only data of which only file pages are present, and
// listing costs less than reading an entry per page. Without PAGEMAP_SCAN
// (kernels before 6.7) each mapping is read whole.
func (ps *procScan) readSpan(f *os.File, sp span, maps []vma, sc *scratch) error {
	if (sp.end-sp.start)/pageSize <= directSpanPages {
		return ps.readRange(f, sp.start/pageSize, sp.end/pageSize, sp.trustExclusive, sc)
	}
	if sc.regions == nil {
		sc.regions = make([]pageRegion, 512)
	}
	rs, err := presentAnonRegions(f, sp.start, sp.end, sc.regions, sc.ranges[:0])
	if err == nil {
		sc.ranges = mergeRanges(rs, rangeMergeGap)
		for _, r := range sc.ranges {
			if err := ps.readRange(f, r[0]/pageSize, r[1]/pageSize, sp.trustExclusive, sc); err != nil {
				return err
			}
		}
		return nil
	}
	if !errors.Is(err, errNoPMScan) || maps == nil {
		return err
	}
	for _, m := range maps[sp.first : sp.last+1] {
		if err := ps.readRange(f, m.start/pageSize, m.end/pageSize, sp.trustExclusive, sc); err != nil {
			return err
		}
	}
	return nil
}

// pagemapChunk is the number of entries read per pread (32 KiB): present
// anonymous ranges are mostly short, and a large buffer per Measure call
// costs more to allocate and clear than it saves.
const pagemapChunk = 4096

// readRange reads the pagemap entries of pages [first, end) in chunks.
func (ps *procScan) readRange(f *os.File, first, end uint64, trustExclusive bool, sc *scratch) error {
	if sc.buf == nil {
		sc.buf = make([]byte, 8*pagemapChunk)
		sc.words = make([]uint64, 0, pagemapChunk)
	}
	for page := first; page < end; {
		b := sc.buf[:8*min(end-page, pagemapChunk)]
		got, err := f.ReadAt(b, int64(page*8))
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if got < 8 {
			// pagemap reads nothing once the process's mm is gone.
			return ErrExited
		}
		sc.words = decodeWords(b[:got-got%8], sc.words[:0])
		ps.tally.add(sc.words, page, trustExclusive)
		page += uint64(got / 8)
	}
	return nil
}

// decodeWords converts native-endian 8-byte entries.
func decodeWords(b []byte, words []uint64) []uint64 {
	for i := 0; i+8 <= len(b); i += 8 {
		words = append(words, binary.NativeEndian.Uint64(b[i:]))
	}
	return words
}
