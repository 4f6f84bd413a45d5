package postgres

import (
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/measure"
)

// Options control discovery.
type Options struct {
	// Live supplies settings from the running server; nil means none (work
	// from files only).
	Live LiveSource
	// Method is the user's measuring choice: measure.Smaps reads every
	// process's smaps_rollup; measure.Auto and measure.Fast measure the
	// Pss_Anon of every process the instance has with one pagecost.Measure
	// call (exact, without walking the page tables of shared memory);
	// measure.Status (or "") reads status only.
	Method measure.Method
	// Skip names processes to leave out: the backends of dbmem's own earlier
	// connections (Instance.SessionPID), which may not have exited yet when
	// a watch reads the host again.
	Skip map[int]bool
}

// ServerComms are the process names of a PostgreSQL server (its
// postmaster and every process it forks): "postgres", or "postmaster" on
// releases and packages that still start it under that name. Backends keep
// the comm "postgres" even after they rewrite their title.
var ServerComms = []string{"postgres", "postmaster"}

// IsServerComm reports whether a process name is a PostgreSQL server's:
// the one test dbmem uses for it, as mysql.IsServerComm for MySQL.
func IsServerComm(comm string) bool { return slices.Contains(ServerComms, comm) }

// Discover finds every running PostgreSQL instance: each postmaster (a
// postgres process whose parent is not one) and its children.
func Discover(ctx context.Context, fs linux.FS, opt Options) ([]*Instance, []linux.Gap, error) {
	pids, err := linux.ListPIDs(fs)
	if err != nil {
		return nil, nil, err
	}
	stats := map[int]linux.Stat{}
	for _, pid := range pids {
		if st, err := linux.ReadStat(fs, pid); err == nil && IsServerComm(st.Comm) && st.State != "Z" && st.State != "X" {
			stats[pid] = st
		}
	}
	var out []*Instance
	var gaps []linux.Gap
	for _, pid := range postmasters(stats) {
		in, err := discoverOne(ctx, fs, pid, childrenOf(stats, pid, opt.Skip), opt)
		if linux.IsGone(err) || errors.Is(err, errTransient) {
			continue
		}
		if err != nil {
			gaps = append(gaps, linux.Gap{What: fmt.Sprintf("PostgreSQL postmaster %d", pid), Why: err.Error(), Kind: linux.KindOf(err)})
			continue
		}
		out = append(out, in)
	}
	return out, gaps, nil
}

func postmasters(stats map[int]linux.Stat) []int {
	var out []int
	for pid, st := range stats {
		if _, parentIsPG := stats[st.PPid]; !parentIsPG {
			out = append(out, pid)
		}
	}
	sort.Ints(out)
	return out
}

// childrenOf lists the children of ppid, without those in skip. They are
// listed before dbmem connects, so its own connection is not among them.
func childrenOf(stats map[int]linux.Stat, ppid int, skip map[int]bool) []int {
	var out []int
	for pid, st := range stats {
		if st.PPid == ppid && !skip[pid] {
			out = append(out, pid)
		}
	}
	sort.Ints(out)
	return out
}

// errTransient marks a postgres process that is not a server (isTransient).
var errTransient = errors.New("a postgres run that exits, not a server")

func discoverOne(ctx context.Context, fs linux.FS, pm int, children []int, opt Options) (*Instance, error) {
	in := &Instance{PostmasterPID: pm}
	args, err := linux.ReadCmdline(fs, pm)
	if err != nil {
		return nil, err
	}
	if len(args) == 0 || isTransient(args) {
		return nil, errTransient // exiting (no command line), or a run that exits
	}
	cmd := parseCommandLine(args)
	in.Account = linux.AccountOf(fs, pm)
	in.locateDataDir(fs, cmd.DataDir)
	// Configuration files with the postmaster's rights, through no link it made.
	in.readFiles(fs.As(in.Account), cmd)
	in.readLive(ctx, opt.Live)
	in.readUnit(fs)
	in.readProcesses(fs, pm, children, opt)
	in.readShared(fs)
	if cg, ok, err := linux.ReadCgroupMemory(fs, pm); err != nil {
		in.gap("cgroup of the postmaster", err.Error())
	} else if ok {
		in.Cgroup = &cg
	}
	return in, nil
}

func (in *Instance) gap(what, why string) {
	in.Gaps = append(in.Gaps, linux.Gap{What: what, Why: why})
}

// locateDataDir takes -D from the command line, else the postmaster's
// working directory (it chdirs into the data directory at start).
func (in *Instance) locateDataDir(fs linux.FS, fromCmd string) {
	if fromCmd != "" && path.IsAbs(fromCmd) {
		in.DataDir = path.Clean(fromCmd)
		return
	}
	cwd, err := linux.ReadLink(fs, in.PostmasterPID, "cwd")
	if err != nil {
		in.gap("data directory", "not on the command line and the postmaster's cwd is unreadable: "+err.Error())
		return
	}
	in.DataDir = cwd
}

// smallFileBytes bounds postmaster.pid and PG_VERSION (a few dozen bytes):
// whoever runs a process named postgres chooses them.
const smallFileBytes = 64 << 10

// readFiles reads postmaster.pid, PG_VERSION and the configuration files.
func (in *Instance) readFiles(fs linux.FS, cmd cmdOptions) {
	if in.DataDir == "" {
		in.Settings = Settings{} // nothing read: defaults would pass for this server's values
		for k, v := range cmd.Settings {
			in.Settings.set(k, v, FromCommandLine, "")
		}
		if p, ok := in.Settings.Int("port"); ok {
			in.Port = int(p)
		}
		return
	}
	fs, ok := in.filesFS(fs)
	if !ok {
		in.Settings = Settings{}
		return
	}
	if b, err := fs.ReadFileMax(fs.HostPath(path.Join(in.DataDir, "postmaster.pid")), smallFileBytes); err != nil {
		in.gap("postmaster.pid", err.Error())
	} else if pf, err := parsePIDFile(string(b)); err != nil {
		in.gap("postmaster.pid", err.Error())
	} else {
		in.PIDFile = &pf
		in.Port, in.SocketDir = pf.Port, pf.SocketDir
	}
	if b, err := fs.ReadFileMax(fs.HostPath(path.Join(in.DataDir, "PG_VERSION")), smallFileBytes); err == nil {
		in.Version = strings.TrimSpace(string(b))
		in.Major, _ = strconv.Atoi(strings.SplitN(in.Version, ".", 2)[0])
	}
	in.Settings = in.fileSettings(fs, cmd)
	if in.Port == 0 && in.Settings["port"].Source != FromDefault {
		if p, ok := in.Settings.Int("port"); ok {
			in.Port = int(p) // from a file or the command line, never a default
		}
	}
}

// fileSettings layers defaults, postgresql.conf (with includes),
// postgresql.auto.conf and the command line, as the server does at start.
// When postgresql.conf cannot be read, only the command line is known:
// built-in defaults would pass for this server's values.
func (in *Instance) fileSettings(fs linux.FS, cmd cmdOptions) Settings {
	s := Defaults(in.Major)
	s.set("port", "5432", FromDefault, "")
	conf := path.Join(in.DataDir, "postgresql.conf")
	if cf, ok := cmd.Settings["config_file"]; ok {
		conf = cf
	}
	if err := fs.Readable(fs.HostPath(conf)); err != nil {
		in.gap("configuration file", err.Error()+": settings unknown except the command line's")
		s = Settings{}
	} else {
		in.confRead = true
		if err := ReadConfFile(fs, conf, FromConfigFile, s); err != nil {
			in.gap("configuration file", err.Error())
		}
	}
	auto := path.Join(in.DataDir, "postgresql.auto.conf")
	if err := fs.Readable(fs.HostPath(auto)); err == nil {
		if err := ReadConfFile(fs, auto, FromAutoConf, s); err != nil {
			in.gap("postgresql.auto.conf", err.Error())
		}
	} else if !errors.Is(err, iofs.ErrNotExist) && len(s) > 0 {
		in.gap("postgresql.auto.conf", err.Error()+": settings made with ALTER SYSTEM unknown")
	}
	for k, v := range cmd.Settings {
		s.set(k, v, FromCommandLine, "")
	}
	s.set("data_directory", in.DataDir, FromCommandLine, "")
	return s
}

// readLive overlays what the running server says, when it can be asked.
func (in *Instance) readLive(ctx context.Context, src LiveSource) {
	if src == nil {
		in.Connection = "not connected: settings from the configuration files"
		return
	}
	l, err := src.Live(ctx, in)
	if err != nil {
		in.Connection = "not connected (" + err.Error() + "): settings from the configuration files, which may differ from the running server"
		if !in.confRead {
			in.Connection = "not connected (" + err.Error() + "): settings unknown"
		}
		in.gap("settings over SQL", err.Error())
		return
	}
	in.Connected, in.Connection = true, l.As
	in.SessionPID = l.SessionPID
	if p, ok := l.Settings.Int("port"); ok && in.Port == 0 {
		in.Port = int(p) // the connection was checked to reach this postmaster
	}
	in.Version, in.Major = l.Version, l.Major
	for k, v := range l.Settings {
		in.Settings[k] = v
	}
	in.activity = l.Activity
	in.Work = l.Work
}
