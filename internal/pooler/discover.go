package pooler

import (
	"context"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/servertrust"
)

// ConsoleSource asks a pooler's admin console (a Connector on a live
// host, a capture's record for a bundle).
type ConsoleSource interface {
	Console(ctx context.Context, p *Pooler) (*Console, string, error)
}

// Options control discovery.
type Options struct {
	// Console reads SHOW POOLS/DATABASES/CONFIG; nil reads files only.
	Console ConsoleSource
}

// Discover finds every pooler process under fs and reads its
// configuration (with the process's own rights) and, when Console is
// set, its admin console. Only an unreadable process list is an error.
func Discover(ctx context.Context, fs linux.FS, opt Options) ([]*Pooler, []linux.Gap, error) {
	pids, err := linux.ListPIDs(fs)
	if err != nil {
		return nil, nil, err
	}
	var out []*Pooler
	var gaps []linux.Gap
	for _, pid := range pids {
		st, err := linux.ReadStat(fs, pid)
		if err != nil || st.State == "Z" || st.State == "X" {
			continue
		}
		kind, ok := kindOfComm(st.Comm)
		if !ok {
			continue
		}
		p, err := discoverOne(ctx, fs, pid, kind, opt)
		switch {
		case err == errTransient || linux.IsGone(err):
		case err != nil:
			gaps = append(gaps, linux.Gap{What: fmt.Sprintf("%s %d", kind, pid), Why: err.Error(), Kind: linux.KindOf(err)})
		default:
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].PID < out[j].PID })
	return out, gaps, nil
}

// errTransient marks a run that prints and exits (--version, --help).
var errTransient = fmt.Errorf("a run that prints and exits, not a pooler")

func discoverOne(ctx context.Context, fs linux.FS, pid int, kind Kind, opt Options) (*Pooler, error) {
	args, err := linux.ReadCmdline(fs, pid)
	if err != nil {
		return nil, err
	}
	if len(args) == 0 {
		return nil, errTransient // exiting
	}
	conf, transient := configArg(kind, args[1:])
	if transient {
		return nil, errTransient
	}
	p := &Pooler{Kind: kind, PID: pid}
	if c, err := linux.ReadCreds(fs, pid); err == nil {
		p.UID = c.EUID
		p.Account = servertrust.AccountOf(c.EUID).String()
	}
	cwd, cwdErr := linux.ReadLink(fs, pid, "cwd")
	p.Cwd, p.ConfigFile = cwd, absConfig(conf, cwd)
	if p.ConfigFile == "" {
		p.gap("configuration file", fmt.Sprintf("%q is relative and the working directory is unreadable: %v", conf, cwdErr))
		p.Refused = true
	} else {
		p.readConfig(ctx, fs.As(linux.AccountOf(fs, pid)), cwd)
	}
	p.askConsole(ctx, opt.Console)
	return p, nil
}

// absConfig makes the configuration path absolute from the process's
// working directory ("" when it is relative and cwd unknown).
func absConfig(conf, cwd string) string {
	switch {
	case path.IsAbs(conf):
		return path.Clean(conf)
	case cwd == "" || !path.IsAbs(cwd):
		return ""
	}
	return path.Join(cwd, conf)
}

// configArg finds the configuration file a command line names, and
// whether the run only prints and exits.
func configArg(kind Kind, args []string) (conf string, transient bool) {
	valued := map[Kind]string{PgBouncer: "u", PgCat: "lF", Odyssey: ""}[kind]
	long := map[Kind][]string{PgBouncer: {"--user"}, PgCat: {"--log-level", "--log-format"}}[kind]
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--help" || a == "--version" || a == "-h" || a == "-V" || a == "-?":
			return "", true
		case a == "--":
			if i+1 < len(args) && conf == "" {
				conf = args[i+1]
			}
			i = len(args)
		case strings.HasPrefix(a, "--"):
			if slices.Contains(long, a) {
				i++ // --user NAME
			}
		case len(a) > 1 && a[0] == '-':
			skip, tr := shortOptions(a[1:], valued)
			if tr && kind != Odyssey {
				return "", true
			}
			if skip {
				i++ // -u NAME: the value is the next argument
			}
		case conf == "":
			conf = a
		}
	}
	if conf == "" && kind == PgCat {
		conf = "pgcat.toml" // pgcat's default, from its working directory
	}
	return conf, false
}

// shortOptions reads a cluster of short options ("-dv", "-uNAME"): skip
// says the next argument is the value of its last one, transient that it
// asks for help or the version.
func shortOptions(cluster, valued string) (skip, transient bool) {
	for i := 0; i < len(cluster); i++ {
		c := cluster[i]
		switch {
		case strings.IndexByte(valued, c) >= 0:
			return i == len(cluster)-1, false // the rest of the cluster is its value
		case c == 'h' || c == 'V':
			return false, true
		}
	}
	return false, false
}

// askConsole reads the admin console through src (nil: not connected).
func (p *Pooler) askConsole(ctx context.Context, src ConsoleSource) {
	if src == nil {
		p.Connection = "not connected: pools from the configuration files only"
		return
	}
	con, how, err := src.Console(ctx, p)
	if err != nil {
		p.Connection = "not connected (" + err.Error() + "): pools from the configuration files only"
		p.gap("admin console", err.Error())
		return
	}
	p.Console, p.Connection = con, "connected "+how
}
