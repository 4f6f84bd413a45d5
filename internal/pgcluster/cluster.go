package pgcluster

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/dbmem/dbmem/internal/hostchange"
	"github.com/dbmem/dbmem/internal/safeexec"
	"github.com/dbmem/dbmem/internal/throwaway"
)

// Options describe a throwaway cluster.
type Options struct {
	// Bin is the PostgreSQL binary directory; see FindBin.
	Bin string
	// BaseDir is where the cluster directory is created (default os.TempDir()).
	BaseDir string
	// Port is the TCP port and socket number; 0 picks a free one.
	Port int
	// Settings are appended to postgresql.conf, e.g. "shared_buffers": "1GB".
	Settings map[string]string
	// OSUser runs the binaries when dbmem runs as root (default "postgres").
	OSUser string
	// AuthLocal is initdb's --auth-local (default trust); with "peer" the
	// superuser is named after OSUser, as Debian's clusters are, so that
	// the data directory's owner can connect.
	AuthLocal string
	// InitdbWithoutHugePages runs initdb in a cgroup v2 group that may
	// reserve no huge page (nohuge.go), enabling the hugetlb controller of
	// the cgroup v2 root when it is available but off. For tests, which
	// share the host's huge pages with other tests; dbmem's commands leave
	// the host's cgroups alone.
	InitdbWithoutHugePages bool
	// Journal, when set, is called with the cluster's journal entry as
	// soon as its directory is made (before initdb) and again whenever its
	// postmaster starts or stops, so that a caller (the lab) journals what
	// a killed run leaves (hostchange.Replay stops and removes it).
	Journal func(*hostchange.Cluster) error
}

// Cluster is a cluster created by Create. Dir holds everything: the data
// directory, the socket and the server log.
type Cluster struct {
	Bin       string
	Dir       string
	DataDir   string
	SocketDir string
	LogFile   string
	Port      int
	// PID is the postmaster's PID while the cluster runs, 0 otherwise.
	PID int
	// Entry identifies the directory and the postmaster for a journal.
	Entry   *hostchange.Cluster
	journal func(*hostchange.Cluster) error
	cred    *syscall.Credential
}

// Create runs initdb in a new directory and writes the settings. The cluster
// is not started.
func Create(ctx context.Context, o Options) (*Cluster, error) {
	bin, err := FindBin(o.Bin)
	if err != nil {
		return nil, err
	}
	c := &Cluster{Bin: bin, Port: o.Port, journal: o.Journal}
	if c.cred, err = credential(o.OSUser); err != nil {
		return nil, err
	}
	if err := c.makeDir(o.BaseDir); err != nil {
		return nil, err
	}
	if c.Port == 0 {
		if c.Port, err = FreePort(); err != nil {
			c.Remove()
			return nil, err
		}
	}
	if err := c.initdb(ctx, o); err != nil {
		c.Remove()
		return nil, err
	}
	return c, nil
}

func credential(name string) (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	name = cmp.Or(name, "postgres")
	cred, err := throwaway.Credential(name)
	if err != nil {
		return nil, fmt.Errorf("PostgreSQL refuses to run as root: %w", err)
	}
	return cred, nil
}

func (c *Cluster) makeDir(base string) error {
	dir, err := throwaway.Dir(base, "dbmem-pg-", c.cred)
	if err != nil {
		return fmt.Errorf("create cluster directory: %w", err)
	}
	c.Dir, c.DataDir, c.SocketDir = dir, filepath.Join(dir, "data"), dir
	c.LogFile = filepath.Join(dir, "server.log")
	if c.Entry, err = hostchange.NewCluster(dir, c.Bin); err != nil {
		os.RemoveAll(dir)
		return err
	}
	return c.tellJournal()
}

func (c *Cluster) initdb(ctx context.Context, o Options) error {
	args := []string{"-D", c.DataDir, "-A", "trust", "-E", "UTF8", "--no-sync", "--locale=C"}
	if o.AuthLocal == "" || o.AuthLocal == "trust" {
		args = append(args, "-U", "postgres")
	} else {
		args = append(args, "--auth-local="+o.AuthLocal) // after -A; the superuser is the OS user
	}
	var cgroupFD int
	if g := newNoHugeGroup(o.InitdbWithoutHugePages); g != nil {
		defer g.remove()
		cgroupFD = g.fd
	}
	_, err := c.runIn(ctx, cgroupFD, "initdb", args...)
	if err != nil {
		return err
	}
	all := map[string]string{
		"port":                     strconv.Itoa(c.Port),
		"listen_addresses":         "127.0.0.1",
		"unix_socket_directories":  c.SocketDir,
		"logging_collector":        "off",
		"fsync":                    "off",
		"synchronous_commit":       "off",
		"full_page_writes":         "off",
		"shared_preload_libraries": "",
	}
	for k, v := range o.Settings {
		all[k] = v
	}
	return c.appendConf(all)
}

func (c *Cluster) appendConf(settings map[string]string) error {
	var b strings.Builder
	b.WriteString("\n# written by dbmem\n")
	for _, k := range slices.Sorted(maps.Keys(settings)) {
		fmt.Fprintf(&b, "%s = '%s'\n", k, strings.ReplaceAll(settings[k], "'", "''"))
	}
	f, err := os.OpenFile(filepath.Join(c.DataDir, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(b.String()); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Set writes more settings; they take effect at the next Start.
func (c *Cluster) Set(settings map[string]string) error { return c.appendConf(settings) }

// Start starts the server and waits until it accepts connections. On failure
// the error carries the end of the server log.
func (c *Cluster) Start(ctx context.Context) error {
	_, err := c.run(ctx, "pg_ctl", "-D", c.DataDir, "-l", c.LogFile, "-w", "-t", "180", "start")
	if err != nil {
		return fmt.Errorf("%w\nserver log:\n%s", err, c.LogTail(20))
	}
	return c.Started()
}

// Stop stops the server (fast shutdown). If pg_ctl fails it kills the
// postmaster it started, by PID.
func (c *Cluster) Stop(ctx context.Context) error {
	if c.PID == 0 {
		return nil
	}
	_, err := c.run(ctx, "pg_ctl", "-D", c.DataDir, "-m", "fast", "-w", "-t", "180", "stop")
	if err != nil && c.ownsPID(c.PID) {
		syscall.Kill(c.PID, syscall.SIGKILL)
	}
	waitGone(c.PID, 2*time.Minute)
	c.PID = 0
	return errors.Join(err, c.setPostmaster(0))
}

// Remove stops the server if it runs (also one whose Start was interrupted
// before it recorded the PID) and deletes the cluster directory.
func (c *Cluster) Remove() error {
	if c.PID == 0 {
		c.adoptPID()
	}
	if c.PID != 0 {
		c.Stop(context.Background())
	}
	if c.Dir == "" {
		return nil
	}
	return os.RemoveAll(c.Dir)
}

// Postgres runs the postgres binary with args against this cluster's data
// directory, e.g. Postgres(ctx, "-C", "shared_memory_size_in_huge_pages").
func (c *Cluster) Postgres(ctx context.Context, args ...string) (string, error) {
	out, err := c.run(ctx, "postgres", append([]string{"-D", c.DataDir}, args...)...)
	return strings.TrimSpace(out), err
}

// LogTail returns the last n lines of the server log.
func (c *Cluster) LogTail(n int) string {
	b, _ := os.ReadFile(c.LogFile)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func (c *Cluster) run(ctx context.Context, prog string, args ...string) (string, error) {
	return c.runIn(ctx, 0, prog, args...)
}

// runIn runs prog in the cgroup (v2) open as cgroupFD; 0 leaves it in ours.
func (c *Cluster) runIn(ctx context.Context, cgroupFD int, prog string, args ...string) (string, error) {
	if err := CheckBin(c.Bin, prog); err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, filepath.Join(c.Bin, prog), args...)
	cmd.Dir = c.Dir
	cmd.Env = Env()
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred, UseCgroupFD: cgroupFD > 0, CgroupFD: cgroupFD}
	// Bounded: a program's output is kept up to 4 MiB, its errors' to 64 KiB.
	stdout, stderr := safeexec.NewBuffer(4<<20, true), safeexec.NewBuffer(64<<10, true)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		return string(stdout.Bytes()), fmt.Errorf("%s %s: %w: %s", prog, strings.Join(args, " "), err, strings.TrimSpace(string(stderr.Bytes())))
	}
	return string(stdout.Bytes()), nil
}

// waitGone waits until pid has exited (a zombie counts as exited).
func waitGone(pid int, d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if !Alive(pid) {
			return
		}
	}
}

// Alive reports whether pid is a running process (not a zombie).
func Alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort() (int, error) { return throwaway.FreePort() }
