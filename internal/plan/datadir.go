package plan

import (
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path"
	"path/filepath"
	"syscall"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/servertrust"
)

// dataDir is a stopped server's directory as --data-dir gave it: a data
// directory, or a configuration directory (Debian's /etc/postgresql/15/main)
// whose postgresql.conf names the data directory.
type dataDir struct {
	given, data string
	major       int
	owner       servertrust.Account
	gid         uint32
	// dataOwner owns data (PostgreSQL runs as it); owner owns given.
	dataOwner servertrust.Account
}

// readDataDir finds the owner, the data directory and its major version
// (PG_VERSION) without running anything: a configuration directory's
// postgresql.conf is read with its owner's rights.
func readDataDir(given string) (dataDir, error) {
	d := dataDir{given: given, data: given}
	st, err := statOwner(given)
	if err != nil {
		return d, fmt.Errorf("--data-dir: %w", err)
	}
	d.owner, d.gid, d.dataOwner = servertrust.AccountOf(st.Uid), st.Gid, servertrust.AccountOf(st.Uid)
	if d.major, err = readMajor(given); err == nil {
		return d, nil
	}
	s := postgres.Settings{}
	if err := postgres.ReadConfFile(d.fs(), path.Join(given, "postgresql.conf"), postgres.FromConfigFile, s); err != nil {
		return d, fmt.Errorf("%s has no PG_VERSION and its postgresql.conf cannot be read (is it a data or configuration directory?): %w", given, err)
	}
	d.data = s.String("data_directory")
	if d.data == "" || !path.IsAbs(d.data) {
		return d, fmt.Errorf("%s has no PG_VERSION and its postgresql.conf names no data_directory: is it a data or configuration directory?", given)
	}
	dst, err := statOwner(d.data)
	if err != nil {
		return d, fmt.Errorf("data_directory of %s: %w", given, err)
	}
	d.dataOwner = servertrust.AccountOf(dst.Uid)
	d.major, err = readMajor(d.data)
	return d, err
}

func statOwner(p string) (*syscall.Stat_t, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", p)
	}
	return st, nil
}

// fs reads the directory's files with its owner's rights, through no link
// that owner made.
func (d dataDir) fs() linux.FS {
	return linux.DefaultFS().As(&linux.Account{UID: d.owner.UID, GIDs: []uint32{d.gid}})
}

// untrusted says why PostgreSQL may not run as the data directory's owner
// ("" when it may): that owner, or the configuration directory's, is not a
// trusted server account.
func (d dataDir) untrusted(p servertrust.Policy) string {
	for _, c := range []struct {
		what, dir string
		owner     servertrust.Account
	}{{"data directory", d.data, d.dataOwner}, {"configuration directory", d.given, d.owner}} {
		if !p.Trusted(c.owner, "postgres") {
			return fmt.Sprintf("its %s %s is owned by %s, not a trusted server account (trusted: %s; --server-account %s trusts it)",
				c.what, c.dir, c.owner, p.TrustedList("postgres"), c.owner.Flag())
		}
	}
	return ""
}

// fileSettings layers PostgreSQL's defaults, postgresql.conf (with its
// includes) and the data directory's postgresql.auto.conf, as the server
// would at start; read with the owner's rights. An auto.conf that cannot
// be read is a note.
func (d dataDir) fileSettings() (postgres.Settings, []string, error) {
	s := postgres.Defaults(d.major)
	fs := d.fs()
	if err := postgres.ReadConfFile(fs, path.Join(d.given, "postgresql.conf"), postgres.FromConfigFile, s); err != nil {
		return nil, nil, fmt.Errorf("read the configuration of %s: %w", d.given, err)
	}
	auto := filepath.Join(d.data, "postgresql.auto.conf")
	if err := postgres.ReadConfFile(fs, auto, postgres.FromAutoConf, s); err != nil && !errors.Is(err, iofs.ErrNotExist) {
		return s, []string{fmt.Sprintf("%s not read (%v): what ALTER SYSTEM set is not in the estimate", auto, err)}, nil
	}
	return s, nil, nil
}
