package cli

import (
	"os"
	"strconv"

	"golang.org/x/term"
)

// width is how many columns text output may take; 0 means no limit. As
// with ps and systemctl, text is fitted on a terminal and left whole in a
// pipe or a file, where another program reads it:
//   - --wide or --json: no limit;
//   - COLUMNS set in the environment (a positive number): that width, on
//     a terminal or not (shells do not export it by themselves);
//   - stdout a terminal: its width (TIOCGWINSZ);
//   - otherwise no limit.
func (e *env) width() int {
	if e.wide || e.json {
		return 0
	}
	if c, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && c > 0 {
		return c
	}
	if f, ok := e.rawStdout.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			return w
		}
	}
	return 0
}

// screenWidth is width for a screen that may be resized: the terminal's
// width now, unless --wide or COLUMNS decide.
func (e *env) screenWidth(f *os.File) (int, int) {
	w, h, _ := term.GetSize(int(f.Fd()))
	if e.wide {
		return 0, h
	}
	if c, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && c > 0 {
		return c, h
	}
	return w, h
}

// rawKeys puts stdin, when it is a terminal, in raw mode so that watch
// reads single keys; restore puts it back (the caller defers it, so every
// return, error or panic of the command restores the terminal).
func (e *env) rawKeys() (restore func(), ok bool) {
	in, isFile := e.stdin.(*os.File)
	if !isFile || !term.IsTerminal(int(in.Fd())) {
		return nil, false
	}
	old, err := term.MakeRaw(int(in.Fd()))
	if err != nil {
		return nil, false
	}
	return func() { term.Restore(int(in.Fd()), old) }, true
}
