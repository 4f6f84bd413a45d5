package apply

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/hostchange"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/render"
)

// DefaultJournalDir is where runs are journaled on a live host: in root's
// durable state directory (hostchange.DurableDir), which survives a reboot
// and which no other user can write.
const DefaultJournalDir = hostchange.DurableDir + "/journal"

// Options say where apply reads and writes, and what it may touch.
type Options struct {
	// FS is where live values are read and written: FS.Proc + "/sys/...",
	// FS.Sys + "/...". The running host is linux.DefaultFS().
	FS linux.FS
	// FilesRoot is prepended to every file's path ("/" or "" = the host);
	// a test or a review writes into a directory instead.
	FilesRoot  string
	JournalDir string // default DefaultJournalDir
	// Restorable, when set, names more files a rollback may restore than
	// those render writes: the configuration files of a running PgBouncer
	// that `dbmem pooler rollback` found (internal/pooler/iniapply). A
	// journal naming any other file is refused.
	Restorable func(path string) bool
	Render     render.Options
	// Postgres, MySQL and Boot allow writing those files (each needs a
	// restart or a reboot, which apply never does).
	Postgres, MySQL, Boot bool
	// Engines says which databases run here; nil detects them from FS.
	Engines *Engines
	// Kernel writes live values; nil writes the files under FS.
	Kernel Kernel
	Policy Policy
	Now    func() time.Time
	// LockPath is the lock apply and rollback hold (default: DefaultLockPath
	// on the live host, else .lock in JournalDir).
	LockPath string
	lock     *hostchange.Lock // set by Lock
}

// Policy is how much safety margin apply keeps.
type Policy struct {
	// CommitHeadroomPercent of MemTotal must stay between Committed_AS and
	// a CommitLimit that a change lowers (strict overcommit).
	CommitHeadroomPercent float64
	// ReservePercent of MemTotal, and at least ReserveMinBytes, must stay
	// outside the huge page pools, and free when a pool grows.
	ReservePercent  float64
	ReserveMinBytes uint64
}

// DefaultPolicy keeps 10% of RAM of commit headroom and 10% of RAM (at
// least 1 GiB) outside the huge page pools.
var DefaultPolicy = Policy{CommitHeadroomPercent: 10, ReservePercent: 10, ReserveMinBytes: 1 << 30}

func (o Options) withDefaults() Options {
	if o.FS.Proc == "" {
		o.FS = linux.DefaultFS()
	}
	if o.FilesRoot == "" {
		o.FilesRoot = "/"
	}
	if o.JournalDir == "" {
		o.JournalDir = DefaultJournalDir
	}
	if o.Kernel == nil {
		o.Kernel = FileKernel{FS: o.FS}
	}
	if o.Policy == (Policy{}) {
		o.Policy = DefaultPolicy
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// hostPath maps a file's absolute path under FilesRoot.
func (o Options) hostPath(p string) string {
	return filepath.Join(o.FilesRoot, strings.TrimPrefix(p, "/"))
}

// Kernel reads and writes live kernel values (/proc/sys and /sys files).
type Kernel interface {
	Read(path string) (string, error)
	Write(path, value string) error
}

// FileKernel is the real kernel: it reads and writes the files.
type FileKernel struct{ FS linux.FS }

// Read returns the file's content with whitespace runs collapsed.
func (k FileKernel) Read(path string) (string, error) {
	b, err := k.FS.ReadFile(path)
	if err != nil {
		return "", err
	}
	return strings.Join(strings.Fields(string(b)), " "), nil
}

// Write writes value and a newline; the kernel's refusal (EINVAL, EBUSY)
// comes back as the error.
func (k FileKernel) Write(path, value string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(value + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
