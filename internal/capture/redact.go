package capture

import (
	"path"
	"sort"
	"strings"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/redact"
)

// Redaction says what Redact changed.
type Redaction struct {
	// Dropped are files removed (process environments).
	Dropped []string `json:"dropped,omitempty"`
	// Changed are files in which secrets were replaced, with the count.
	Changed map[string]int `json:"changed,omitempty"`
}

// Redact removes what must not leave the host from the recorded files:
// any /proc/PID/environ (dbmem never reads it; dropped if something did),
// passwords in command lines (redact.Cmdline) and in every other host file
// (configuration files: RedactSecrets). src are the roots the files were
// read from. Kernel files under /proc and /sys other than cmdline hold no
// secrets and are kept as read.
func (r *Recorder) Redact(src linux.FS) Redaction {
	red := Redaction{Changed: map[string]int{}}
	r.mu.Lock()
	defer r.mu.Unlock()
	for p, data := range r.files {
		tp := treePath(p, src)
		switch {
		case path.Base(p) == "environ":
			delete(r.files, p)
			red.Dropped = append(red.Dropped, tp)
		case strings.HasPrefix(tp, "proc/") && path.Base(p) == "cmdline":
			if out, n := redact.Cmdline(data); n > 0 {
				r.files[p], red.Changed[tp] = out, n
			}
		case strings.HasPrefix(tp, "root/"):
			if out, n := redact.Secrets(string(data)); n > 0 {
				r.files[p], red.Changed[tp] = []byte(out), n
			}
		}
	}
	sort.Strings(red.Dropped)
	return red
}
