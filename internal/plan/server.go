package plan

import (
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

// server is a data directory to ask with `postgres -D dir -C name`: a
// stopped server's of a trusted account, or a throwaway cluster's.
type server struct {
	bin   string
	major int // of bin; 0 when unknown
	dir   string
	// cred runs postgres as the directory's owner (dbmem runs as root:
	// PostgreSQL refuses root); nil runs it as dbmem.
	cred *syscall.Credential
}

// codeSettings are the settings that make PostgreSQL load code, by the
// major version that has them: `postgres -C` of a runtime-computed value
// (shared_memory_size_in_huge_pages) loads shared_preload_libraries to
// count their shared memory, and the others load code in backends.
var codeSettings = []struct {
	name  string
	since int
}{
	{"shared_preload_libraries", 0}, {"local_preload_libraries", 0}, {"session_preload_libraries", 0},
	{"jit_provider", 11}, {"archive_library", 15},
}

// loadsCode reports whether setting name names code to load: those of
// codeSettings, dynamic_library_path and any *_library(ies).
func loadsCode(name string) bool {
	n := strings.ToLower(strings.TrimSpace(name))
	return strings.HasSuffix(n, "_library") || strings.HasSuffix(n, "_libraries") ||
		n == "jit_provider" || n == "dynamic_library_path"
}

// args are postgres's arguments: -D, -C, the settings of set that load no
// code, then every code setting emptied (-c outranks the configuration
// files, postgresql.auto.conf included), except name itself: printing a
// setting that is not runtime-computed exits before any library loads.
func (s server) args(name string, set map[string]string) []string {
	args := []string{"-D", s.dir, "-C", name}
	keys := make([]string, 0, len(set))
	for k := range set {
		if !loadsCode(k) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		args = append(args, "-c", k+"="+set[k])
	}
	for _, c := range codeSettings {
		if c.name != name && (s.major == 0 || s.major >= c.since) {
			args = append(args, "-c", c.name+"=")
		}
	}
	return args
}

func (s server) command(ctx context.Context, args []string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, filepath.Join(s.bin, "postgres"), args...)
	cmd.Dir, cmd.Env = "/", pgcluster.Env()
	if s.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	}
	return cmd
}

// ask runs `postgres -D dir -C name -c k=v ...` and returns what it
// prints. The server must be stopped for runtime-computed values
// (shared_memory_size_in_huge_pages).
func (s server) ask(ctx context.Context, name string, set map[string]string) (string, error) {
	return s.run(ctx, s.args(name, set))
}

// askUint runs ask and parses a non-negative number.
func (s server) askUint(ctx context.Context, name string, set map[string]string) (uint64, error) {
	out, err := s.ask(ctx, name, set)
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(out, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("postgres -C %s printed %q, not a count (huge pages unsupported by this build or kernel?)", name, out)
	}
	return uint64(n), nil
}

// ownerOf returns the credential to run PostgreSQL as on dir: its owner
// when dbmem runs as root (PostgreSQL refuses root), nil otherwise. Only
// for directories whose owner is trusted (a throwaway cluster's, or a
// trusted account's: see stopped).
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
	return &syscall.Credential{Uid: st.Uid, Gid: st.Gid, Groups: []uint32{}}, nil
}
