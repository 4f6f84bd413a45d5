package dblog

import (
	"regexp"
	"strconv"
	"strings"
)

// A memory context dump line comes in two forms, with the same statistics:
//
//	"  ExecutorState: 8192 total in 1 blocks; 3504 free (0 chunks); 4688 used"
//	"level: 2; ExecutorState: 8192 total in 1 blocks; 3504 free (0 chunks); 4688 used"
//
// The first is written to stderr with an out-of-memory error, indented two
// spaces per level; the second is one LOG message per context, written by
// pg_log_backend_memory_contexts (PostgreSQL 14+; TopMemoryContext is level
// 0 before 18, level 1 from 18). The statistics differ by allocator: aset
// "T total in B blocks; F free (C chunks); U used", generation "T total in
// B blocks (N chunks); F free (C chunks); U used", slab (16+) "T total in B
// blocks; E empty blocks; F free (C chunks); U used", bump (17+) "T total in
// B blocks; F free; U used". An ident (a query, an index name) may follow
// ": " after "used"; PostgreSQL cuts it at 100 bytes and replaces control
// characters with spaces. Children beyond the limit are summed in "N more
// child contexts containing ..." and the dump ends with "Grand total: T
// bytes in B blocks; F free (C chunks); U used".
var (
	ctxLevelRe = regexp.MustCompile(`^level: (\d{1,4}); `)
	statsRe    = regexp.MustCompile(`^(.+?): (\d{1,20}) total in (\d{1,20}) blocks?(?: \(\d{1,20} chunks?\))?;(?: \d{1,20} empty blocks?;)? (\d{1,20}) free(?: \((\d{1,20}) chunks?\))?; (\d{1,20}) used(?:: (.*))?$`)
	moreRe     = regexp.MustCompile(`^(\d{1,9}) more child contexts containing (\d{1,20}) total in (\d{1,20}) blocks?; (\d{1,20}) free \((\d{1,20}) chunks?\); (\d{1,20}) used$`)
	grandRe    = regexp.MustCompile(`^Grand total: (\d{1,20}) bytes in (\d{1,20}) blocks?; (\d{1,20}) free \((\d{1,20}) chunks?\); (\d{1,20}) used$`)
	stderrPad  = regexp.MustCompile(`^( *)`)
)

// ContextLine is one parsed line of a memory context dump.
type ContextLine struct {
	MemoryContext
	// Level is the printed level of the LOG form (-1 in the stderr form,
	// whose Depth comes from the indentation).
	Level int
	// Grand marks the "Grand total" line.
	Grand bool
}

// ParseContextLine reads one memory context dump line in either form: a
// stderr line (indented) or the message of a LOG entry ("level: N; ...").
// ok is false for anything else. It never panics.
func ParseContextLine(s string) (l ContextLine, ok bool) {
	s = strings.TrimRight(s, "\r")
	if len(s) > maxDumpLine || !strings.Contains(s, " used") {
		return l, false
	}
	l.Level = -1
	body := s
	if m := ctxLevelRe.FindStringSubmatch(s); m != nil {
		l.Level, _ = strconv.Atoi(m[1])
		body = s[len(m[0]):]
	} else if strings.HasPrefix(s, "level: ") {
		return l, false
	} else if !strings.HasPrefix(s, "Grand total: ") {
		pad := stderrPad.FindString(s)
		l.Depth = len(pad) / 2
		body = s[len(pad):]
	}
	return l, l.parseBody(body)
}

func (l *ContextLine) parseBody(body string) bool {
	if m := grandRe.FindStringSubmatch(body); m != nil {
		l.Name, l.Grand = "Grand total", true
		l.setCounts(m[1], m[2], m[3], m[4], m[5])
		return true
	}
	if m := moreRe.FindStringSubmatch(body); m != nil {
		l.MoreChildren, _ = strconv.Atoi(m[1])
		l.setCounts(m[2], m[3], m[4], m[5], m[6])
		return true
	}
	if m := statsRe.FindStringSubmatch(body); m != nil {
		l.Name, l.Ident = m[1], m[7]
		l.setCounts(m[2], m[3], m[4], m[5], m[6])
		return true
	}
	return false
}

// setCounts sets total, blocks, free, free chunks ("" for bump, which does
// not count them) and used.
func (l *ContextLine) setCounts(total, blocks, free, chunks, used string) {
	l.TotalBytes, _ = strconv.ParseUint(total, 10, 64)
	l.Blocks, _ = strconv.ParseUint(blocks, 10, 64)
	l.FreeBytes, _ = strconv.ParseUint(free, 10, 64)
	l.FreeChunks, _ = strconv.ParseUint(chunks, 10, 64)
	l.UsedBytes, _ = strconv.ParseUint(used, 10, 64)
}

// StripContextIdent removes the ident from a memory context dump line of
// either form (the ident can be query text); ok is false when the line is
// not a dump line with an ident.
func StripContextIdent(s string) (string, bool) {
	l, ok := ParseContextLine(s)
	if !ok || l.Ident == "" {
		return s, false
	}
	return strings.TrimSuffix(strings.TrimRight(s, "\r"), ": "+l.Ident), true
}
