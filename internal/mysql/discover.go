package mysql

import (
	"context"
	"errors"
	"fmt"
	"github.com/dbmem/dbmem/internal/measure"
	"path"
	"sort"
	"strings"

	"github.com/dbmem/dbmem/internal/linux"
)

// Options control discovery.
type Options struct {
	// Live reads settings from the running server (a Connector); nil reads
	// the option files and the command line only.
	Live LiveSource
	// Method is the user's measuring choice. The server is one process:
	// measure.Auto and measure.Smaps read its smaps_rollup (exact
	// Pss_Anon), measure.Fast and measure.Status its status only.
	Method measure.Method
	// PageSizes are the host's huge page sizes, for the hugetlb cgroup.
	PageSizes []uint64
}

// IsServerComm reports whether a process name is a MySQL or MariaDB server.
func IsServerComm(comm string) bool { return comm == "mysqld" || comm == "mariadbd" }

// Discover finds every running mysqld and mariadbd. A process that exits
// during the scan is skipped; one that cannot be read becomes a gap.
func Discover(ctx context.Context, fs linux.FS, opt Options) ([]*Instance, []linux.Gap, error) {
	pids, err := linux.ListPIDs(fs)
	if err != nil {
		return nil, nil, err
	}
	sort.Ints(pids)
	var out []*Instance
	var gaps []linux.Gap
	for _, pid := range pids {
		st, err := linux.ReadStat(fs, pid)
		if err != nil || !IsServerComm(st.Comm) {
			continue
		}
		in, err := discoverOne(ctx, fs, pid, st.Comm, opt)
		if linux.IsGone(err) || errors.Is(err, errTransient) {
			continue
		}
		if err != nil {
			gaps = append(gaps, linux.Gap{What: fmt.Sprintf("MySQL/MariaDB server %d", pid), Why: err.Error(), Kind: linux.KindOf(err)})
			continue
		}
		out = append(out, in)
	}
	return out, gaps, nil
}

func discoverOne(ctx context.Context, fs linux.FS, pid int, comm string, opt Options) (*Instance, error) {
	in := &Instance{PID: pid, Flavor: MySQL}
	args, err := linux.ReadCmdline(fs, pid)
	if err != nil {
		return nil, err
	}
	if isTransient(args) {
		return nil, errTransient
	}
	cmd := parseCommandLine(args)
	in.Account = linux.AccountOf(fs, pid)
	in.guessFlavor(fs, comm, cmd)
	// Option files with the server's rights, through no link it made.
	in.readFiles(fs.As(in.Account), cmd)
	in.applyLocations() // the socket and port to connect to
	in.readLive(ctx, opt.Live)
	in.applyLocations() // as the server says
	if err := in.readProcess(fs, opt); err != nil {
		return nil, err
	}
	return in, nil
}

// guessFlavor: the process name, the binary, then mysql_upgrade_info in
// the data directory (MariaDB writes its version there).
func (in *Instance) guessFlavor(fs linux.FS, comm string, cmd cmdLine) {
	exe, _ := linux.ReadLink(fs, in.PID, "exe")
	if comm == "mariadbd" || strings.HasSuffix(strings.TrimSuffix(exe, " (deleted)"), "/mariadbd") {
		in.Flavor = MariaDB
	}
	if dd := cmd.Options["datadir"]; dd != "" {
		in.readUpgradeInfo(fs, dd)
	}
}

func (in *Instance) readUpgradeInfo(fs linux.FS, dataDir string) {
	b, err := fs.ReadFileMax(fs.HostPath(path.Join(dataDir, "mysql_upgrade_info")), 4<<10) // a version: whoever runs a mysqld chooses it
	if v := strings.TrimRight(strings.TrimSpace(string(b)), "\x00"); err == nil && v != "" {
		in.setVersion(v)
	}
}

// readFiles layers the defaults, the option files and the command line as
// the server does at start.
func (in *Instance) readFiles(fs linux.FS, cmd cmdLine) {
	in.Settings = Defaults(in.Flavor)
	files, required := cmd.optionFiles()
	opts, read, gaps := readOptionFiles(fs, files, required, serverGroups(in.Flavor, in.Version))
	in.OptionFiles, in.Gaps = read, append(in.Gaps, gaps...)
	applyOptions(in.Settings, opts, FromConfigFile)
	var cl []option
	for _, k := range cmd.Order {
		cl = append(cl, option{Key: k, Value: cmd.Options[k], HasValue: cmd.HasValue[k]})
	}
	applyOptions(in.Settings, cl, FromCommandLine)
	if in.Version == "" {
		if dd, ok := in.Settings.String("datadir"); ok {
			in.readUpgradeInfo(fs, dd)
		}
	}
}

// applyLocations takes datadir, socket and port from the settings; the
// port only when it is known (a default that an unreadable option file may
// override is not the server's port).
func (in *Instance) applyLocations() {
	in.DataDir, _ = in.Settings.String("datadir")
	in.Socket, _ = in.Settings.String("socket")
	in.Port = 0
	if p, ok := in.Settings.Int("port"); ok && in.Known("port") {
		in.Port = int(p)
	}
}

// readLive overlays what the running server says.
func (in *Instance) readLive(ctx context.Context, src LiveSource) {
	if src == nil {
		in.Connection = "not connected: settings from " + describeFiles(in.OptionFiles) + " and the command line"
		return
	}
	l, err := src.Live(ctx, in)
	if err != nil {
		in.Connection = "not connected (" + err.Error() + "): settings from " + describeFiles(in.OptionFiles) +
			" and the command line, which may differ from the running server"
		in.gap("settings over SQL", err.Error())
		return
	}
	in.Connected, in.Connection = true, l.As
	in.setVersion(l.Version)
	for k, v := range l.Variables {
		in.Settings.set(k, v, FromServer, "")
	}
	in.Status, in.PerfSchemaMemory = l.Status, l.PerfSchema
}

// readProcess reads the server process, its smaps (one process: the
// buffer pool mapping), credentials, memlock limit and cgroup.
func (in *Instance) readProcess(fs linux.FS, opt Options) error {
	m := opt.Method
	if m == measure.Auto { // one process: smaps_rollup, as the fast path saves one walk only
		m = measure.Smaps
	}
	p, gaps, err := linux.ReadProcess(fs, in.PID, m)
	if err != nil {
		return err
	}
	in.Process, in.Gaps = p, append(in.Gaps, gaps...)
	entries, err := linux.ReadSmaps(fs, in.PID, nil)
	if err != nil && !linux.IsGone(err) {
		in.gap("buffer pool mapping", "smaps of the server: "+err.Error())
	}
	pool, _ := in.Settings.Bytes("innodb_buffer_pool_size")
	if !in.Known("innodb_buffer_pool_size") {
		pool = 0 // the pool is found by its size: another cache of the default size would pass for it
	}
	in.Memory = measureMemory(p, entries, pool)
	switch {
	case err == nil && pool == 0:
		in.gap("buffer pool mapping", "innodb_buffer_pool_size unknown (an option file could not be read and there is no connection): the pool is found by its size")
	case err == nil && in.Memory.BufferPool == nil:
		in.gap("buffer pool mapping", fmt.Sprintf("no anonymous mapping of about %d bytes in the server's smaps", pool))
	}
	if c, err := linux.ReadCreds(fs, in.PID); err == nil {
		in.Creds = &c
	}
	if l, err := linux.ReadLimits(fs, in.PID); err != nil {
		in.gap("memlock limit", err.Error())
	} else if m, ok := l.Memlock(); ok {
		in.Memlock = &m
	}
	if cg, g, err := linux.ReadCgroupInfo(fs, in.PID, opt.PageSizes); err == nil {
		in.Cgroup, in.Gaps = &cg, append(in.Gaps, g...)
	}
	in.Unit, in.NoUnit = RunningUnit(fs, in)
	return nil
}

// cmdLine is the server's command line: --key=value options in order.
type cmdLine struct {
	Options   map[string]string
	HasValue  map[string]bool
	Order     []string
	NoDefault bool
}

// parseCommandLine reads "--key=value", "--key value" is not accepted by
// mysqld for most options, so only the '=' form and bare flags are taken.
func parseCommandLine(args []string) cmdLine {
	c := cmdLine{Options: map[string]string{}, HasValue: map[string]bool{}}
	for _, a := range args {
		rest, ok := strings.CutPrefix(a, "--")
		if !ok {
			continue
		}
		k, v, has := strings.Cut(rest, "=")
		k = strings.TrimPrefix(NormalizeName(k), "loose_")
		if k == "no_defaults" {
			c.NoDefault = true
		}
		if _, seen := c.Options[k]; !seen {
			c.Order = append(c.Order, k)
		}
		c.Options[k], c.HasValue[k] = v, has
	}
	return c
}

// optionFiles lists the option files the server read, in order, and which
// of them must exist (those named on the command line).
func (c cmdLine) optionFiles() ([]string, map[string]bool) {
	req := map[string]bool{}
	if c.NoDefault {
		return nil, req
	}
	if f := c.Options["defaults_file"]; f != "" {
		req[f] = true
		return []string{f}, req
	}
	files := []string{"/etc/my.cnf", "/etc/mysql/my.cnf"}
	if f := c.Options["defaults_extra_file"]; f != "" {
		req[f] = true
		files = append(files, f)
	}
	return files, req
}
