package postmortem

import (
	"strings"

	"github.com/dbmem/dbmem/internal/oomlog"
)

// HostID names the host whose state dbmem reads (this one, or a bundle's):
// its host name and running kernel release.
type HostID struct {
	Name   string
	Kernel string
}

// origin says whether a kernel report is this host's and why. A file given
// on the command line is someone else's unless its lines name this host
// (and no other kernel); logs dbmem found itself are this host's unless
// their lines name another host (a syslog server collects many).
func origin(l Log, e oomlog.Event, me HostID) (bool, string) {
	hostDiffers := e.Host != "" && me.Name != "" && !sameHost(e.Host, me.Name)
	kernelDiffers := e.KernelRelease != "" && me.Kernel != "" && e.KernelRelease != me.Kernel
	switch {
	case l.Given && hostDiffers:
		return false, "a file given on the command line whose lines name host " + e.Host + " (this host is " + me.Name + ")"
	case hostDiffers:
		return false, "its lines name host " + e.Host + "; this host is " + me.Name + " (a log collected from elsewhere)"
	case l.Given && e.Host != "" && me.Name != "" && !kernelDiffers:
		return true, "a file given on the command line whose lines name this host"
	case l.Given && kernelDiffers:
		return false, "a file given on the command line, from kernel " + e.KernelRelease + "; this host runs " + me.Kernel
	case l.Given:
		return false, "a file given on the command line (nothing in it names this host)"
	case l.Excerpt:
		return true, "the bundle's own kernel log"
	}
	return true, "this host's " + l.Source
}

// sameHost compares host names without case or domain.
func sameHost(a, b string) bool {
	short := func(s string) string {
		s, _, _ = strings.Cut(strings.ToLower(s), ".")
		return s
	}
	return short(a) == short(b)
}
