package asowner

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
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
	max = cmp.Or(max, DefaultMaxAnswer)
	sock, serr := r.socketFor(a)
	if sock != "" {
		return r.dial(ctx, a, sock, stdin, max)
	}
	var out []byte
	var err error
	if missing := missingCaps(); missing != "" {
		// Not even tried: the kernel would refuse, and a service's system
		// call filter would see setgroups denied.
		err = fmt.Errorf("dbmem lacks %s, which running its helper as OS user %s takes: %s", missing, a.Name, r.socketHint(a))
	} else {
		out, err = r.exec(ctx, a, stdin, max)
	}
	if err != nil && serr != nil {
		err = fmt.Errorf("%w; %v", err, serr)
	}
	return out, err
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
