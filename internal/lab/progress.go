package lab

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Progress is told about the lab's long steps.
type Progress interface {
	// Begin starts a step; total is the count of units in it (0: unknown).
	Begin(step string, total int)
	// Add counts n more units done.
	Add(n int)
	// End finishes the step.
	End()
	// Note reports something the user should know (not part of a step).
	Note(msg string)
}

// NewProgress writes progress to w: on a terminal a bar redrawn in place
// (with the elapsed time, refreshed every second), elsewhere one line per
// finished step.
func NewProgress(w io.Writer, terminal bool) Progress {
	return &lineProgress{w: w, tty: terminal}
}

type lineProgress struct {
	mu          sync.Mutex
	w           io.Writer
	tty         bool
	step        string
	total, done int
	start       time.Time
	stop        chan struct{}
}

func (p *lineProgress) Begin(step string, total int) {
	p.End()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.step, p.total, p.done, p.start = step, total, 0, time.Now()
	if p.tty {
		p.stop = make(chan struct{})
		go p.tick(p.stop)
		p.draw()
	}
}

func (p *lineProgress) tick(stop chan struct{}) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			p.mu.Lock()
			p.draw()
			p.mu.Unlock()
		}
	}
}

func (p *lineProgress) Add(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += n
	if p.tty {
		p.draw()
	}
}

func (p *lineProgress) End() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.step == "" {
		return
	}
	if p.stop != nil {
		close(p.stop)
		p.stop = nil
	}
	if p.tty {
		fmt.Fprint(p.w, "\r\033[K")
	}
	fmt.Fprintf(p.w, "  %-58s %s\n", p.step, elapsed(time.Since(p.start)))
	p.step = ""
}

func (p *lineProgress) Note(msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty && p.step != "" {
		fmt.Fprint(p.w, "\r\033[K")
	}
	fmt.Fprintf(p.w, "  note: %s\n", msg)
	if p.tty && p.step != "" {
		p.draw()
	}
}

// draw redraws the current line: step, bar and count, elapsed time.
func (p *lineProgress) draw() {
	line := fmt.Sprintf("  %-46s", p.step)
	if p.total > 0 {
		line += " " + bar(p.done, p.total, 20) + fmt.Sprintf(" %d/%d", p.done, p.total)
	}
	fmt.Fprintf(p.w, "\r\033[K%s  %s", line, elapsed(time.Since(p.start)))
}

// bar renders [#####.....] for done of total in width cells.
func bar(done, total, width int) string {
	n := 0
	if total > 0 {
		n = min(width, max(0, done*width/total))
	}
	return "[" + strings.Repeat("#", n) + strings.Repeat(".", width-n) + "]"
}

func elapsed(d time.Duration) string {
	d = d.Round(time.Second)
	return fmt.Sprintf("%d:%02d", int(d.Minutes()), int(d.Seconds())%60)
}

// nopProgress is used when no Progress is given.
type nopProgress struct{}

func (nopProgress) Begin(string, int) {}
func (nopProgress) Add(int)           {}
func (nopProgress) End()              {}
func (nopProgress) Note(string)       {}
