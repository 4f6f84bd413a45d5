package termtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// dbmem is the binary under test, built by TestMain.
var dbmem string

// panes counts the tmux servers started, for unique socket names.
var panes int

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "dbmem-termtest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	dbmem = filepath.Join(dir, "dbmem")
	out, err := exec.Command("go", "build", "-o", dbmem, "../../cmd/dbmem").CombinedOutput()
	code := 1
	if err != nil {
		fmt.Fprintf(os.Stderr, "build dbmem: %v\n%s", err, out)
	} else {
		code = m.Run()
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// pane is a tmux server of its own (-L) with one window of a fixed size.
type pane struct {
	t      *testing.T
	socket string
	dir    string
	width  int
	runs   int
}

// newPane starts a tmux server with a bash in a width x height pane, in
// UTF-8 (-u: the ellipsis is one column), with a long history, and kills
// it when the test ends.
func newPane(t *testing.T, width, height int) *pane {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux not found: install the Debian package tmux (scripts/test does)")
	}
	panes++
	p := &pane{t: t, socket: fmt.Sprintf("dbmem-termtest-%d-%d", os.Getpid(), panes), dir: t.TempDir(), width: width}
	conf := filepath.Join(p.dir, "tmux.conf")
	if err := os.WriteFile(conf, []byte("set -g history-limit 50000\nset -g status off\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p.tmux("-f", conf, "-u", "new-session", "-d", "-x", fmt.Sprint(width), "-y", fmt.Sprint(height),
		"env", "-u", "COLUMNS", "-u", "LINES", "LANG=C.UTF-8", "bash", "--norc", "--noprofile")
	t.Cleanup(func() { exec.Command("tmux", "-L", p.socket, "kill-server").Run() })
	return p
}

func (p *pane) tmux(args ...string) string {
	p.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", p.socket}, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %q: %v\n%s", args, err, out)
	}
	return string(out)
}

// run types a command line that runs script (a shell script written to
// a file, so the typed line stays short) and waits until it has finished,
// then returns the exit status and every line it printed, wrapped lines
// joined (capture-pane -J), so a line too wide for the pane shows as one.
func (p *pane) run(script string) (string, []string) {
	p.t.Helper()
	p.runs++
	end := fmt.Sprintf("__END%d__", p.runs) // not on the screen before this run
	f := filepath.Join(p.dir, fmt.Sprintf("run%d.sh", p.runs))
	if err := os.WriteFile(f, []byte(script+"\necho; echo "+end+"$?\n"), 0o755); err != nil {
		p.t.Fatal(err)
	}
	p.tmux("send-keys", "clear; tmux clear-history; sh "+f, "Enter")
	var lines []string
	deadline := time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		lines = p.capture()
		for i, l := range lines {
			if code, ok := strings.CutPrefix(l, end); ok {
				return code, lines[1:i] // after the typed line
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	p.t.Fatalf("no end of %q in 5 minutes; the pane shows:\n%s", script, strings.Join(lines, "\n"))
	return "", nil
}

// capture returns the pane's history and screen, wrapped lines joined,
// trailing spaces and blank lines at the end removed.
func (p *pane) capture() []string {
	out := p.tmux("capture-pane", "-p", "-J", "-S", "-", "-E", "-")
	lines := strings.Split(out, "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// screen returns what the pane shows now (no history), lines joined.
func (p *pane) screen() []string {
	out := p.tmux("capture-pane", "-p", "-J")
	return strings.Split(strings.TrimRight(out, "\n"), "\n")
}

// tooWide returns the lines wider than the pane.
func (p *pane) tooWide(lines []string) []string {
	var bad []string
	for _, l := range lines {
		if n := len([]rune(l)); n > p.width {
			bad = append(bad, fmt.Sprintf("%d: %s", n, l))
		}
	}
	return bad
}

// waitFor polls the screen until a line contains want.
func (p *pane) waitFor(want string) []string {
	p.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		s := p.screen()
		if strings.Contains(strings.Join(s, "\n"), want) {
			return s
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("%q not on the screen in 2 minutes:\n%s", want, strings.Join(s, "\n"))
		}
		time.Sleep(100 * time.Millisecond)
	}
}
