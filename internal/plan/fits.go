package plan

import (
	"strings"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/units"
)

// startable refuses a plan whose servers cannot start: shared_buffers at
// or above RAM, or shared memory segments that together take all of it.
// The error gives the arithmetic.
func startable(in advise.PlanInput, r Request) error {
	ram := in.Host.RAMBytes
	if ram == 0 {
		return nil // unknown: nothing to compare with
	}
	if err := buffersFit(r, ram); err != nil {
		return err
	}
	var total uint64
	var terms []string
	for _, pi := range in.Instances {
		b := segmentBytes(pi.Need)
		total += b
		term := units.Bytes(b) + " " + pi.Subject
		if src := pi.Need.Source; src != "" && !strings.HasPrefix(src, pi.Subject) {
			term += " (" + src + ")"
		}
		terms = append(terms, term)
	}
	if total < ram {
		return nil
	}
	return usage("the memory the servers allocate at start cannot fit: %s = %s, at or above the %s of RAM (%s): "+
		"they cannot start (shared memory and buffer pools are allocated whole at start, before any connection); "+
		"plan smaller buffers or more --ram",
		strings.Join(terms, " + "), units.Bytes(total), units.Bytes(ram), ramSource(r))
}

// buffersFit refuses a planned shared_buffers at or above RAM: asked
// first, before a throwaway cluster is made to measure the segment.
func buffersFit(r Request, ram uint64) error {
	v, ok := r.Changes["shared_buffers"]
	if !ok || ram == 0 {
		return nil
	}
	if sb, err := units.ParsePG(v, "8kB"); err == nil && sb >= ram {
		return usage("shared_buffers %s is at or above the %s of RAM (%s): PostgreSQL cannot start; "+
			"plan shared_buffers well under RAM (a quarter of it is usual), or a host with more --ram",
			units.Bytes(sb), units.Bytes(ram), ramSource(r))
	}
	return nil
}

// segmentBytes is an instance's shared memory: measured or asked, else
// its huge page need in bytes.
func segmentBytes(n advise.HugePageNeed) uint64 {
	if n.SharedBytes > 0 {
		return n.SharedBytes
	}
	return n.Pages * n.PageSizeBytes
}

func ramSource(r Request) string {
	if r.Snapshot == nil {
		return "--ram"
	}
	return "MemTotal of this host"
}
