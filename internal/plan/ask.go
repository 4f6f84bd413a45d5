package plan

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/dbmem/dbmem/internal/pgcluster"
)

// asker runs `postgres -C` against data directories: a stopped server's,
// or a throwaway cluster it creates once per binary directory.
type asker struct {
	// bin overrides the PostgreSQL binary directory ("" finds one per major
	// version).
	bin        string
	throwaways map[string]*pgcluster.Cluster
}

// close removes the throwaway clusters.
func (a *asker) close() {
	for _, c := range a.throwaways {
		c.Remove()
	}
}

// binFor returns a PostgreSQL binary directory of the given major version
// (0: any), or "" when none is installed.
func (a *asker) binFor(major int) string {
	cands := []string{a.bin}
	if a.bin == "" {
		cands = []string{os.Getenv(pgcluster.BinEnv)}
		if major > 0 {
			cands = append(cands, fmt.Sprintf("/usr/lib/postgresql/%d/bin", major), fmt.Sprintf("/usr/pgsql-%d/bin", major))
		}
		if b, err := pgcluster.FindBin(""); err == nil {
			cands = append(cands, b)
		}
	}
	for _, b := range cands {
		if b == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(b, "postgres")); err != nil {
			continue
		}
		if m, err := pgcluster.MajorVersion(b); err == nil && (major == 0 || m == major) {
			return b
		}
	}
	return ""
}

// throwaway returns a stopped cluster made by initdb with bin, created on
// first use.
func (a *asker) throwaway(ctx context.Context, bin string) (*pgcluster.Cluster, error) {
	if c, ok := a.throwaways[bin]; ok {
		return c, nil
	}
	c, err := pgcluster.Create(ctx, pgcluster.Options{Bin: bin})
	if err != nil {
		return nil, fmt.Errorf("create a throwaway cluster to ask PostgreSQL its shared memory size: %w", err)
	}
	if a.throwaways == nil {
		a.throwaways = map[string]*pgcluster.Cluster{}
	}
	a.throwaways[bin] = c
	return c, nil
}

// ask runs `postgres -D dir -C name -c k=v ...` as dir's owner and returns
// what it prints. The server must be stopped for runtime-computed values
// (shared_memory_size_in_huge_pages).
func ask(ctx context.Context, bin, dir, name string, set map[string]string) (string, error) {
	args := []string{"-D", dir, "-C", name}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		args = append(args, "-c", k+"="+set[k])
	}
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "postgres"), args...)
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	if cred, err := ownerOf(dir); err != nil {
		return "", err
	} else if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s %s: %w: %s", cmd.Path, strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return strings.TrimSpace(out.String()), nil
}

// ownerOf returns the credential to run PostgreSQL as: the owner of dir
// when dbmem runs as root (PostgreSQL refuses root), nil otherwise.
func ownerOf(dir string) (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("data directory: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || st.Uid == 0 {
		return nil, fmt.Errorf("data directory %s is owned by root: PostgreSQL cannot run as root; give it to the postgres user", dir)
	}
	return &syscall.Credential{Uid: st.Uid, Gid: st.Gid}, nil
}

// askUint runs ask and parses a non-negative number.
func askUint(ctx context.Context, bin, dir, name string, set map[string]string) (uint64, error) {
	out, err := ask(ctx, bin, dir, name, set)
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(out, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("postgres -C %s printed %q, not a count (huge pages unsupported by this build or kernel?)", name, out)
	}
	return uint64(n), nil
}
