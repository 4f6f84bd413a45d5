package advise

import (
	"sort"
	"strings"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/servertrust"
)

// vouch records why the instance subject is not a trusted server
// account's and returns it ("" when trusted, or when its owners were not
// read: a --proc tree).
func (h *host) vouch(subject string, o *servertrust.Ownership, defaults ...string) string {
	v := h.Opts.Trust.Vouch(o, defaults...)
	if !v.Known || v.Trusted {
		return ""
	}
	if h.leftOut == nil {
		h.leftOut = map[string]string{}
	}
	h.leftOut[subject] = v.Why
	return v.Why
}

// leftOutEvidence says why an instance's finding carries no host-wide
// setting.
func leftOutEvidence(in instance) finding.Evidence {
	return ev("host-wide settings", "none from this instance: "+in.Untrusted, "servertrust")
}

// leftOutText names the instances a host-wide sum left out, "" when none.
func (h host) leftOutText() string {
	if len(h.leftOut) == 0 {
		return ""
	}
	var parts []string
	for s, why := range h.leftOut {
		parts = append(parts, s+" ("+why+")")
	}
	sort.Strings(parts)
	return strings.Join(parts, "; ")
}
