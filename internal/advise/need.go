package advise

import (
	"sort"

	"github.com/dbmem/dbmem/internal/units"
)

// input is one number a check needs, and whether it was read.
type input struct {
	name  string // "PageTables (/proc/meminfo)"
	known bool
}

// known is a meminfo-style input: the pointer is nil when not read.
func known[T any](name string, p *T) input { return input{name, p != nil} }

// have is an input whose presence the caller worked out.
func have(name string, ok bool) input { return input{name, ok} }

// need reports whether every input is known; when one is not, it records
// check id on subject as skipped with the missing inputs named, and the
// check must return without a finding.
func (h host) need(id, subject string, ins ...input) bool {
	var missing []string
	for _, in := range ins {
		if !in.known {
			missing = append(missing, in.name)
		}
	}
	if len(missing) == 0 {
		return true
	}
	if h.skipped != nil {
		*h.skipped = append(*h.skipped, Skipped{ID: id, Subject: subject, Missing: missing})
	}
	return false
}

// sortSkipped orders skipped checks by subject, then ID.
func sortSkipped(s []Skipped) []Skipped {
	sort.SliceStable(s, func(i, j int) bool {
		if s[i].Subject != s[j].Subject {
			return s[i].Subject < s[j].Subject
		}
		return s[i].ID < s[j].ID
	})
	return s
}

// Unknown is how evidence shows a number that was not read.
const Unknown = units.Unknown

// bytesOf renders an optional size for evidence.
func bytesOf(p *uint64) string { return units.OptBytes(p) }

// Inputs named in skipped checks.
const (
	inMemTotal      = "MemTotal (/proc/meminfo)"
	inPageTables    = "PageTables (/proc/meminfo)"
	inSwapTotal     = "SwapTotal (/proc/meminfo)"
	inCommitted     = "Committed_AS (/proc/meminfo)"
	inCommitLimit   = "CommitLimit (/proc/meminfo)"
	inHugeSize      = "Hugepagesize (/proc/meminfo)"
	inOvercommit    = "vm.overcommit_memory (/proc/sys)"
	inPostmasterAdj = "the postmaster's oom_score_adj (/proc/PID/oom_score_adj)"
	inSettings      = "the instance's settings (its configuration files or a connection)"
	// inSharedSegment: unreadable without root or in a capture without it.
	inSharedSegment = "main shared memory segment (the postmaster's /proc/PID/smaps)"
)
