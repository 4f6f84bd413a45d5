package termtest

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

var tickRE = regexp.MustCompile(`tick (\d+):`)

func tickOf(t *testing.T, screen []string) string {
	t.Helper()
	m := tickRE.FindStringSubmatch(strings.Join(screen, "\n"))
	if m == nil {
		t.Fatalf("no tick on the screen:\n%s", strings.Join(screen, "\n"))
	}
	return m[1]
}

// stty prints the terminal's settings after the command, to check that
// watch restored canonical mode and echo.
const sttyCheck = `; echo "__EXIT__$?"; echo "__STTY__ $(stty -a | tr ' ' '\n' | grep -x -e icanon -e echo -e isig -e -icanon -e -echo -e -isig | tr '\n' ' ')"`

func startWatch(t *testing.T, p *pane, args string) {
	t.Helper()
	p.tmux("send-keys", "clear; "+dbmem+" watch "+args+sttyCheck, "Enter")
	p.waitFor("keys: q quit")
}

func TestWatchKeys(t *testing.T) {
	p := newPane(t, 100, 50)
	startWatch(t, p, "--interval 1s")
	p.tmux("send-keys", "s")
	p.waitFor("s sort (private)")
	p.tmux("send-keys", "+")
	p.waitFor("interval (2s)")
	p.tmux("send-keys", "-", "-")
	p.waitFor("interval (500ms)")
	p.tmux("send-keys", "p")
	paused := tickOf(t, p.waitFor("PAUSED"))
	time.Sleep(2 * time.Second) // four intervals of 500ms: no tick while paused
	if now := tickOf(t, p.screen()); now != paused {
		t.Errorf("paused at tick %s, then tick %s", paused, now)
	}
	p.tmux("send-keys", "p")
	p.waitForTick(next(paused))
	p.tmux("send-keys", "h")
	help := p.waitFor("KEYS")
	if bad := p.tooWide(help); len(bad) > 0 {
		t.Errorf("help too wide:\n%s", strings.Join(bad, "\n"))
	}
	p.tmux("send-keys", "q")
	after := p.waitFor("__STTY__")
	checkRestored(t, after, "0")
}

// Ctrl-C (a byte in raw mode) and SIGTERM both end watch with the terminal
// restored.
func TestWatchRestoresTheTerminal(t *testing.T) {
	p := newPane(t, 80, 40)
	startWatch(t, p, "--interval 1s")
	p.tmux("send-keys", "C-c")
	checkRestored(t, p.waitFor("__STTY__"), "0")

	p.tmux("send-keys", "clear", "Enter")
	startWatch(t, p, "--interval 1s")
	if err := syscall.Kill(p.child(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	checkRestored(t, p.waitFor("__STTY__"), "0")
}

// With stdin not a terminal no key is read (the q stays in the pipe) and
// no key line is shown: only --count ends it; with stdout not a terminal
// neither, and each tick is a plain block.
func TestWatchWithoutATerminalReadsNoKeys(t *testing.T) {
	p := newPane(t, 80, 40)
	p.tmux("send-keys", "clear; echo q | "+dbmem+" watch --count 4 --interval 500ms"+sttyCheck, "Enter")
	screen := strings.Join(p.waitForTick(2), "\n")
	if strings.Contains(screen, "keys:") {
		t.Errorf("stdin a pipe: a key line:\n%s", screen)
	}
	checkRestored(t, p.waitFor("__STTY__"), "0")
	code, lines := p.run(dbmem + " watch --count 2 --interval 500ms | cat -v")
	text := strings.Join(lines, "\n")
	if code != "0" || !strings.Contains(text, "tick 2:") || strings.Contains(text, "keys:") || strings.Contains(text, "^[") {
		t.Errorf("stdout a pipe: exit %s, want two plain blocks:\n%s", code, text)
	}
}

func next(tick string) int {
	n, _ := strconv.Atoi(tick)
	return n + 1
}

// waitForTick polls the screen until watch shows tick n or a later one
// (a busy machine may let a tick pass between two looks).
func (p *pane) waitForTick(n int) []string {
	p.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		s := p.screen()
		if m := tickRE.FindStringSubmatch(strings.Join(s, "\n")); m != nil {
			if got, _ := strconv.Atoi(m[1]); got >= n {
				return s
			}
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("tick %d not on the screen in 2 minutes:\n%s", n, strings.Join(s, "\n"))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// child is the PID of the command the pane's shell runs now (dbmem).
func (p *pane) child() int {
	p.t.Helper()
	shell := strings.TrimSpace(p.tmux("display-message", "-p", "#{pane_pid}"))
	b, err := os.ReadFile("/proc/" + shell + "/task/" + shell + "/children")
	if err != nil {
		p.t.Fatal(err)
	}
	f := strings.Fields(string(b))
	if len(f) != 1 {
		p.t.Fatalf("the pane's shell %s has children %q, want one (dbmem)", shell, f)
	}
	pid, _ := strconv.Atoi(f[0])
	return pid
}

// checkRestored finds the exit status and stty's report printed after
// watch: canonical mode, echo and signals back on.
func checkRestored(t *testing.T, screen []string, code string) {
	t.Helper()
	var status string
	var fields []string
	for _, l := range screen {
		if s, ok := strings.CutPrefix(l, "__EXIT__"); ok {
			status = s
		}
		if s, ok := strings.CutPrefix(l, "__STTY__"); ok {
			fields = strings.Fields(s)
		}
	}
	if status != code {
		t.Errorf("exit status %q, want %s", status, code)
	}
	for _, want := range []string{"icanon", "isig", "echo"} {
		if !slices.Contains(fields, want) {
			t.Errorf("terminal not restored: stty shows %q, want %s on", fields, want)
		}
	}
}
