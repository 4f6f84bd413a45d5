package pooler

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

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

// loader expands includes within Limits.
type loader struct {
	ctx      context.Context
	fs       linux.FS
	cwd      string // relative includes are taken from the pooler's working directory
	lim      Limits
	deadline time.Time
	total    int64
	out      loaded
}

// loadINI reads a pgbouncer.ini and, in place, the files it %includes.
// cwd is the pooler's working directory ("" when unknown: a relative
// include is then a problem).
func loadINI(ctx context.Context, fs linux.FS, file, cwd string, lim Limits) loaded {
	lim = lim.withDefaults()
	l := &loader{ctx: ctx, fs: fs, cwd: cwd, lim: lim, deadline: time.Now().Add(lim.Time)}
	l.file(file, nil, 0, "")
	return l.out
}

// file reads one file; stack holds the files including it (a loop is a
// file that includes one of them, or itself).
func (l *loader) file(name string, stack []string, line int, from string) {
	if !l.admit(name, stack, line, from) {
		return
	}
	b, err := readBounded(l.fs, name, min(l.lim.FileBytes, l.lim.TotalBytes-l.total))
	if err != nil {
		l.refuse(firstNonEmpty(from, name), line, readProblem(name, err, l.lim))
		return
	}
	l.total += int64(len(b))
	l.out.Files = append(l.out.Files, name)
	stack = append(stack, name)
	for _, it := range parseINI(string(b)) {
		switch it.Kind {
		case itemBad:
			l.refuse(name, it.Line, it.Value+": PgBouncer stops loading here")
			return
		case itemInclude:
			l.file(l.resolve(it.Name), stack, it.Line, name)
		default:
			l.out.Items = append(l.out.Items, located{iniItem: it, File: name})
		}
		if l.out.Refused {
			return
		}
	}
}

// admit checks the limits before a file is read.
func (l *loader) admit(name string, stack []string, line int, from string) bool {
	switch {
	case name == "":
		l.refuse(from, line, "an %include without a file name")
	case !path.IsAbs(name):
		l.refuse(from, line, "%include of a relative path and the pooler's working directory is unknown: not read")
	case len(stack) > l.lim.Depth:
		l.refuse(from, line, fmt.Sprintf("includes nested deeper than %d: PgBouncer refuses them too", l.lim.Depth))
	case slices.Contains(stack, name):
		l.refuse(from, line, fmt.Sprintf("include loop: %s includes %s again", strings.Join(stack, " -> "), name))
	case len(l.out.Files) >= l.lim.Files:
		l.refuse(from, line, fmt.Sprintf("more than %d configuration files: the rest is not read", l.lim.Files))
	case l.ctx.Err() != nil || time.Now().After(l.deadline):
		l.refuse(from, line, fmt.Sprintf("reading took longer than %s: the rest is not read", l.lim.Time))
	default:
		return true
	}
	return false
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
	if file == "" {
		file = "(command line)"
	}
	l.out.Problems = append(l.out.Problems, Problem{File: file, Line: line, What: what})
	l.out.Refused = true
}

// readProblem says why a file was not read.
func readProblem(name string, err error, lim Limits) string {
	if errors.Is(err, errTooBig) {
		return fmt.Sprintf("%s is not read: larger than %d bytes, or past %d bytes for all files (%v)", name, lim.FileBytes, lim.TotalBytes, err)
	}
	return err.Error()
}
