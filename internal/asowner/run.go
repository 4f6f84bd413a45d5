package asowner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// DefaultMaxAnswer bounds a helper's answer: pg_stat_activity of 10,000
// backends is about 2 MiB of JSON.
const DefaultMaxAnswer = 16 << 20

// Runner starts helpers: dbmem's own binary with Args (the hidden
// subcommand) under another account.
type Runner struct {
	// Args make the binary serve one request, e.g. {"internal-pg-helper"}.
	Args []string
	// MaxAnswer bounds the answer (default DefaultMaxAnswer).
	MaxAnswer int64
	// SocketDir, when set, holds helper sockets systemd serves
	// (DefaultSocketDir): a helper for an account with a trusted socket
	// there is reached through it, and needs no capability here; other
	// accounts' helpers are executed, which takes CAP_SETUID and
	// CAP_SETGID.
	SocketDir string
}

// Account is who the helper runs as.
type Account struct {
	UID, GID uint32
	Name     string // for messages
}

// Run starts the helper as a, sends req and decodes its answer into resp
// (strictly: unknown fields are errors). The helper is killed when ctx
// ends or when dbmem dies.
func (r *Runner) Run(ctx context.Context, a Account, req, resp any) error {
	in, err := json.Marshal(struct {
		Version int `json:"version"`
		Request any `json:"request"`
	}{Version, req})
	if err != nil {
		return fmt.Errorf("encode the helper's request: %w", err)
	}
	out, err := r.answer(ctx, a, in)
	if err != nil {
		return err
	}
	var ans answer
	if err := decodeStrict(out, &ans); err != nil {
		return fmt.Errorf("helper's answer: %w", err)
	}
	if ans.Version != Version {
		return fmt.Errorf("helper's answer has version %d, want %d", ans.Version, Version)
	}
	if ans.Error != "" {
		return errors.New(ans.Error)
	}
	if err := decodeStrict(ans.Response, resp); err != nil {
		return fmt.Errorf("helper's answer: %w", err)
	}
	return nil
}

// answer runs the helper as a, through its socket when there is one, and
// returns its bounded answer.
func (r *Runner) answer(ctx context.Context, a Account, stdin []byte) ([]byte, error) {
	max := r.MaxAnswer
	if max == 0 {
		max = DefaultMaxAnswer
	}
	sock, err := r.socketFor(a)
	if sock != "" {
		return r.dial(ctx, a, sock, stdin, max)
	}
	out, xerr := r.exec(ctx, a, stdin, max)
	if xerr != nil && err != nil {
		xerr = fmt.Errorf("%w; %v", xerr, err)
	}
	return out, xerr
}

// exec runs the binary as a with stdin and returns its bounded stdout.
func (r *Runner) exec(ctx context.Context, a Account, stdin []byte, max int64) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "/proc/self/exe", r.Args...)
	cmd.Args[0] = "dbmem"
	cmd.Dir, cmd.Env = "/", []string{"LC_ALL=C"}
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Credential: &syscall.Credential{Uid: a.UID, Gid: a.GID, Groups: []uint32{}},
		Pdeathsig:  syscall.SIGKILL,
	}
	cmd.Stdin = bytes.NewReader(stdin)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var stderr limitedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, r.startError(a, err)
	}
	out, readErr := readBounded(stdout, max)
	if readErr != nil {
		cmd.Process.Kill()
	}
	waitErr := cmd.Wait()
	switch {
	case readErr != nil:
		return nil, fmt.Errorf("helper's answer: %w", readErr)
	case waitErr != nil && len(out) == 0:
		return nil, fmt.Errorf("helper running as %s: %v %s", a.Name, waitErr, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// startError explains a helper that could not start: EPERM comes from
// any of setgroups, setgid, setuid and execve in the child, so the cause
// is found here (capabilities first, then the binary's mode).
func (r *Runner) startError(a Account, err error) error {
	if !errors.Is(err, os.ErrPermission) {
		return fmt.Errorf("start the helper as OS user %s: %w", a.Name, err)
	}
	if missing := missingCaps(); missing != "" {
		return fmt.Errorf("dbmem lacks %s, which running its helper as OS user %s takes (%w): %s",
			missing, a.Name, err, r.socketHint(a))
	}
	exe, _ := os.Readlink("/proc/self/exe")
	if st, serr := os.Stat(exe); serr == nil && !executableBy(st, a) {
		return fmt.Errorf("OS user %s may not execute dbmem's binary %s (mode %s; make it mode 0755): %w", a.Name, exe, st.Mode().Perm(), err)
	}
	return fmt.Errorf("the kernel refused to start dbmem's helper as OS user %s (%w): with CAP_SETUID and CAP_SETGID and an executable binary, a system call filter or a security module denies setgroups, setgid, setuid or execve", a.Name, err)
}

// socketHint says how a service without CAP_SETUID reaches a helper.
func (r *Runner) socketHint(a Account) string {
	if r.SocketDir == "" {
		return "run dbmem as root with them"
	}
	return fmt.Sprintf("no helper socket %s serves that account (systemctl enable --now dbmem-pg-helper.socket runs the helper as postgres; see docs/security.md for another account), or run dbmem as root with them",
		filepath.Join(r.SocketDir, a.Name+".sock"))
}

// missingCaps names the capabilities among CAP_SETUID and CAP_SETGID that
// this process does not have in its effective set ("" when it has both,
// or when its status cannot be read).
func missingCaps() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "CapEff:"); ok {
			eff, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			if err != nil {
				return ""
			}
			var miss []string
			for _, c := range []struct {
				bit  uint
				name string
			}{{7, "CAP_SETUID"}, {6, "CAP_SETGID"}} {
				if eff&(1<<c.bit) == 0 {
					miss = append(miss, c.name)
				}
			}
			return strings.Join(miss, " and ")
		}
	}
	return ""
}

// executableBy reports whether a may execute a file of this mode and
// owner (without supplementary groups, as the helper runs).
func executableBy(st os.FileInfo, a Account) bool {
	s, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return true
	}
	switch {
	case s.Uid == a.UID:
		return st.Mode()&0o100 != 0
	case s.Gid == a.GID:
		return st.Mode()&0o010 != 0
	}
	return st.Mode()&0o001 != 0
}

// limitedBuffer keeps the first 4 KiB written to it.
type limitedBuffer struct{ bytes.Buffer }

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := 4096 - b.Len(); room > 0 {
		if len(p) > room {
			b.Buffer.Write(p[:room])
		} else {
			b.Buffer.Write(p)
		}
	}
	return len(p), nil
}
