package confbudget

import (
	"errors"
	"fmt"
	"path"
	"time"

	"github.com/dbmem/dbmem/internal/linux"
)

// Budget bounds one configuration read with its includes.
type Budget struct {
	// Files is the most files read: the main one and every include.
	Files int
	// FileBytes bounds one file, TotalBytes all of them.
	FileBytes, TotalBytes int64
	// Depth is the deepest nesting of includes (PostgreSQL's own limit is
	// 10: CONF_FILE_MAX_DEPTH).
	Depth int
	// FanOut is the most includes one file names, or files one included
	// directory holds.
	FanOut int
	// Time bounds the whole read; it is checked before each file.
	Time time.Duration
}

// Default: a real postgresql.conf is 30 KiB (PostgreSQL 17's sample, all
// comments) and my.cnf trees a few files; a conf.d of a hundred files
// is rare. The budget is far above both and far below what costs.
var Default = Budget{Files: 256, FileBytes: 1 << 20, TotalBytes: 8 << 20, Depth: 10, FanOut: 128, Time: 10 * time.Second}

// ErrOverBudget marks a configuration refused by its budget, or for an
// include cycle.
var ErrOverBudget = errors.New("dbmem's bound on reading a configuration another user writes")

// Reader reads the files of one configuration against a Budget.
type Reader struct {
	fs      linux.FS
	b       Budget
	start   time.Time
	files   int
	bytes   int64
	reading []string // the include chain being read, outermost first
}

// New starts a read on fs (its host paths under fs.Root) with budget b;
// a zero field of b takes Default's.
func New(fs linux.FS, b Budget) *Reader {
	return &Reader{fs: fs, b: b.withDefaults(), start: time.Now()}
}

func (b Budget) withDefaults() Budget {
	d := Default
	if b.Files > 0 {
		d.Files = b.Files
	}
	if b.FileBytes > 0 {
		d.FileBytes = b.FileBytes
	}
	if b.TotalBytes > 0 {
		d.TotalBytes = b.TotalBytes
	}
	if b.Depth > 0 {
		d.Depth = b.Depth
	}
	if b.FanOut > 0 {
		d.FanOut = b.FanOut
	}
	if b.Time > 0 {
		d.Time = b.Time
	}
	return d
}

// Enter reads file (a host path) as the next file of the include chain.
// It refuses, naming the file, one that includes itself through the
// chain, one nested too deep, one over the files, bytes or time budget.
// Every successful Enter is followed by Leave once its includes are read.
func (r *Reader) Enter(file string) ([]byte, error) {
	file = path.Clean(file)
	if err := r.check(file); err != nil {
		return nil, err
	}
	r.files++
	left := min(r.b.FileBytes, r.b.TotalBytes-r.bytes)
	b, err := r.fs.ReadFileMax(r.fs.HostPath(file), left)
	if errors.Is(err, linux.ErrTooBig) {
		return nil, r.refuse(file, fmt.Sprintf("more than %d bytes (one file may hold %d, all of them %d; %d read before it)",
			left, r.b.FileBytes, r.b.TotalBytes, r.bytes))
	}
	if err != nil {
		return nil, err
	}
	r.bytes += int64(len(b))
	r.reading = append(r.reading, file)
	return b, nil
}

// Leave ends the file Enter read last.
func (r *Reader) Leave() {
	if len(r.reading) > 0 {
		r.reading = r.reading[:len(r.reading)-1]
	}
}

// FanOut checks n, the includes file names or the files of a directory
// it includes (then file is the directory and what "files").
func (r *Reader) FanOut(file string, n int, what string) error {
	if n > r.b.FanOut {
		return r.refuse(file, fmt.Sprintf("%d %s, more than %d", n, what, r.b.FanOut))
	}
	return nil
}

func (r *Reader) check(file string) error {
	for i, f := range r.reading {
		if f == file {
			return r.refuse(file, "an include cycle: "+chain(append(r.reading[i:], file)))
		}
	}
	switch {
	case len(r.reading) > r.b.Depth:
		return r.refuse(file, fmt.Sprintf("includes nested more than %d deep: %s", r.b.Depth, chain(append(r.reading, file))))
	case r.files >= r.b.Files:
		return r.refuse(file, fmt.Sprintf("more than %d files in one configuration", r.b.Files))
	case time.Since(r.start) > r.b.Time:
		return r.refuse(file, fmt.Sprintf("reading the configuration took more than %s", r.b.Time))
	}
	return nil
}

func (r *Reader) refuse(file, why string) error {
	return fmt.Errorf("%s: refused: %s (%w)", r.fs.Display(r.fs.HostPath(file)), why, ErrOverBudget)
}

func chain(files []string) string {
	s := ""
	for i, f := range files {
		if i > 0 {
			s += " includes "
		}
		s += f
	}
	return s
}
