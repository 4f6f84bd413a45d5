package pooler

import (
	"cmp"
	"context"
	"fmt"
	"path"
	"time"

	"github.com/dbmem/dbmem/internal/confbudget"
	"github.com/dbmem/dbmem/internal/linux"
)

// Problem is something in a configuration that stops the pooler from
// loading it, or that dbmem did not read: said with its file and line,
// never guessed around.
type Problem struct {
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
	What string `json:"what"`
}

func (p Problem) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.What)
	}
	return p.File + ": " + p.What
}

// located is an item with the file it came from.
type located struct {
	iniItem
	File string
}

// loaded is a configuration with its includes expanded in reading order.
type loaded struct {
	Items    []located
	Files    []string // every file read, in order
	Problems []Problem
	// Refused: a problem PgBouncer itself would stop at (a malformed
	// line, an include it cannot read, a loop): it did not load this
	// file as it is now, so the running pooler may hold other values.
	Refused bool
}

// Budget bounds reading one pooler's configuration (its files are written
// by whoever runs the pooler): a real pgbouncer.ini is a few KiB
// (Debian's, all comments, is 9.5 KiB); a host with a thousand databases,
// one line each, is about 100 KiB. Depth is PgBouncer's own limit, 10
// (libusual's MAX_INCLUDE); Odyssey's is 16.
var Budget = confbudget.Budget{Files: 64, FileBytes: 1 << 20, TotalBytes: 4 << 20, Depth: 10, Time: 10 * time.Second}

// loader expands includes within a confbudget.Budget.
type loader struct {
	ctx context.Context
	r   *confbudget.Reader
	cwd string // relative includes are taken from the pooler's working directory
	out loaded
}

func newLoader(ctx context.Context, fs linux.FS, cwd string, b confbudget.Budget) *loader {
	return &loader{ctx: ctx, r: confbudget.New(fs, b), cwd: cwd}
}

// loadINI reads a pgbouncer.ini and, in place, the files it %includes.
// cwd is the pooler's working directory ("" when unknown: a relative
// include is then a problem).
func loadINI(ctx context.Context, fs linux.FS, file, cwd string, b confbudget.Budget) loaded {
	l := newLoader(ctx, fs, cwd, b)
	l.file(file, 0, "")
	return l.out
}

// file reads one file, an include of from at line ("" for the main one).
func (l *loader) file(name string, line int, from string) {
	b, ok := l.enter(name, line, from)
	if !ok {
		return
	}
	defer l.r.Leave()
	for _, it := range parseINI(string(b)) {
		switch it.Kind {
		case itemBad:
			l.refuse(name, it.Line, it.Value+": PgBouncer stops loading here")
			return
		case itemInclude:
			l.file(l.resolve(it.Name), it.Line, name)
		default:
			l.out.Items = append(l.out.Items, located{iniItem: it, File: name})
		}
		if l.out.Refused {
			return
		}
	}
}

// enter reads name within the budget (confbudget refuses an include
// cycle, a file nested too deep or over the files, bytes or time budget,
// naming it); a successful enter is followed by l.r.Leave.
func (l *loader) enter(name string, line int, from string) ([]byte, bool) {
	switch {
	case name == "":
		l.refuse(from, line, "an %include without a file name")
	case !path.IsAbs(name):
		l.refuse(from, line, "%include of a relative path and the pooler's working directory is unknown: not read")
	case l.ctx.Err() != nil:
		l.refuse(from, line, "not read: "+l.ctx.Err().Error())
	default:
		b, err := l.r.Enter(name)
		if err != nil {
			l.refuse(firstNonEmpty(from, name), line, err.Error())
			return nil, false
		}
		l.out.Files = append(l.out.Files, name)
		return b, true
	}
	return nil, false
}

// resolve makes an include absolute from the pooler's working directory,
// as PgBouncer opens it.
func (l *loader) resolve(name string) string {
	if name == "" || path.IsAbs(name) || l.cwd == "" {
		return name
	}
	return path.Join(l.cwd, name)
}

func (l *loader) refuse(file string, line int, what string) {
	file = cmp.Or(file, "(command line)")
	l.out.Problems = append(l.out.Problems, Problem{File: file, Line: line, What: what})
	l.out.Refused = true
}
