package pooler

import (
	"context"

	"github.com/dbmem/dbmem/internal/linux"
)

// readConfig reads the pooler's configuration files with fs (the pooler's
// own rights) and cwd (its working directory, for relative includes).
func (p *Pooler) readConfig(ctx context.Context, fs linux.FS, cwd string) {
	switch p.Kind {
	case PgBouncer:
		l := loadINI(ctx, fs, p.ConfigFile, cwd, Budget)
		c, probs := parsePgBouncer(l)
		p.Files, p.Problems, p.Refused = l.Files, append(l.Problems, probs...), l.Refused || len(probs) > 0
		p.PgBouncer = &c
		p.NotRead = []string{"auth_file and auth_query (credentials: never read)", "[peers] (cancel requests between PgBouncers)"}
	case PgCat:
		p.readPgCat(fs)
	case Odyssey:
		b := Budget
		b.Depth = 16 // Odyssey's own OD_CFG_MAX_INCLUDE_DEPTH
		l := newLoader(ctx, fs, cwd, b)
		nodes := l.odysseyFile(p.ConfigFile, 0, "")
		c, probs := interpretOdyssey(nodes)
		p.Files, p.Problems, p.Refused = l.out.Files, append(l.out.Problems, probs...), l.out.Refused || len(probs) > 0
		p.Odyssey = &c
		p.NotRead = []string{"shared pools (pool_shared)", "LDAP and rule-specific storages (ldap_storage_credentials)",
			"client_max (clients, not server connections)", "its console (needs a password: dbmem sends none)"}
	}
}

// readPgCat reads one pgcat.toml (pgcat has no includes).
func (p *Pooler) readPgCat(fs linux.FS) {
	b, err := fs.ReadFileMax(fs.HostPath(p.ConfigFile), Budget.FileBytes)
	if err != nil {
		p.Problems, p.Refused = append(p.Problems, Problem{File: p.ConfigFile, What: err.Error()}), true
		return
	}
	p.Files = []string{p.ConfigFile}
	keys, err := parseTOML(string(b))
	if err != nil {
		p.Problems, p.Refused = append(p.Problems, Problem{File: p.ConfigFile, What: err.Error() + ": pgcat refuses the file"}), true
	}
	c, probs := parsePgCat(p.ConfigFile, keys)
	p.Problems = append(p.Problems, probs...)
	p.Refused = p.Refused || len(probs) > 0
	p.PgCat = &c
	p.NotRead = []string{"mirrors (their connections are not in the pools)", "auth_query passthrough",
		"the CONFIG_FILE environment variable (dbmem reads no environments; the command line's file is read)",
		"its admin console (needs a password: dbmem sends none)"}
}

// odysseyFile reads one Odyssey file and, in place, its include "file"
// statements, within the loader's budget.
func (l *loader) odysseyFile(name string, line int, from string) []odNode {
	b, ok := l.enter(name, line, from)
	if !ok {
		return nil
	}
	defer l.r.Leave()
	nodes, err := parseOdyssey(name, string(b))
	if err != nil {
		l.refuse(name, 0, err.Error()+": Odyssey refuses the file")
		return nil
	}
	var out []odNode
	for _, n := range nodes {
		if n.Key != "include" {
			out = append(out, n)
			continue
		}
		// Odyssey opens the path as written: from its working directory.
		out = append(out, l.odysseyFile(l.resolve(arg(n, 0)), n.Line, name)...)
		if l.out.Refused {
			return out
		}
	}
	return out
}
