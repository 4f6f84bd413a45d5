package plan

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/postgres"
)

// stopped plans this host for a stopped server's data directory, asking
// its own binaries with `postgres -D DIR -C ...`.
func stopped(ctx context.Context, a *asker, r Request) (advise.PlanInput, error) {
	in := advise.PlanInput{Source: fmt.Sprintf("host %s, stopped server %s", r.Snapshot.Host.Hostname, r.DataDir)}
	var err error
	if in.Host, in.Notes, err = hostFacts(r.Snapshot); err != nil {
		return in, err
	}
	major, err := dataDirMajor(ctx, a, r.DataDir)
	if err != nil {
		return in, err
	}
	bin := a.binFor(major)
	if bin == "" {
		return in, fmt.Errorf("no PostgreSQL %d binaries found to ask about %s: install them or give --pg-bin", major, r.DataDir)
	}
	set, err := askSettings(ctx, bin, r.DataDir, major, r.Changes)
	if err != nil {
		return in, err
	}
	pi := advise.PlannedInstance{
		Engine:  advise.Engine{Name: advise.EnginePostgres, Major: major},
		Subject: fmt.Sprintf("postgresql %d (%s, stopped)", major, r.DataDir), Unit: r.Unit,
		Changes: r.Changes, Current: currentOf(set, r.Changes), GID: -1,
	}
	if pi.Unit == "" {
		pi.Unit = advise.UnitForDataDir(strings.TrimSuffix(r.DataDir, "/"))
	}
	pi.Work = advise.PostgresWorkload(&postgres.Instance{Major: major, Settings: overlay(set, r.Changes, postgres.FromCommandLine)}, r.NodesPerQuery)
	size := r.pageSize(in.Host.DefaultHugePageBytes)
	if major >= 15 {
		pi.Need, err = askNeed(ctx, bin, r.DataDir, size, r.Changes, "postgres -D "+r.DataDir+" -C shared_memory_size_in_huge_pages")
		if err != nil {
			return in, fmt.Errorf("ask the stopped server its huge page need (is it running? then plan without --data-dir): %w", err)
		}
	} else {
		pi.Need = estimateNeed(overlay(set, r.Changes, postgres.FromCommandLine), size)
		in.Notes = append(in.Notes, fmt.Sprintf("PostgreSQL %d cannot compute shared_memory_size_in_huge_pages: estimated from settings; start it once and plan the running server for the exact size", major))
	}
	in.Instances = []advise.PlannedInstance{pi}
	return in, addMySQL(&in, r, r.Snapshot, size)
}

// dataDirMajor reads PG_VERSION, in dir or in the data_directory a
// configuration directory points to (Debian's /etc/postgresql/15/main).
func dataDirMajor(ctx context.Context, a *asker, dir string) (int, error) {
	if m, err := readMajor(dir); err == nil {
		return m, nil
	}
	bin := a.binFor(0)
	if bin == "" {
		return 0, fmt.Errorf("%s has no PG_VERSION and no PostgreSQL binaries are installed to read its data_directory", dir)
	}
	dd, err := ask(ctx, bin, dir, "data_directory", nil)
	if err != nil {
		return 0, fmt.Errorf("%s has no PG_VERSION: is it a data or configuration directory? %w", dir, err)
	}
	return readMajor(dd)
}

func readMajor(dir string) (int, error) {
	b, err := os.ReadFile(filepath.Join(dir, "PG_VERSION"))
	if err != nil {
		return 0, err
	}
	v, _, _ := strings.Cut(strings.TrimSpace(string(b)), ".")
	return strconv.Atoi(v)
}

// askSettings reads the settings the plan needs with `postgres -C`, which
// resolves includes and the command line as the server would.
func askSettings(ctx context.Context, bin, dir string, major int, changes map[string]string) (postgres.Settings, error) {
	vals := map[string]string{}
	for _, n := range append(append([]string{}, workloadNames...), sizingNames...) {
		if _, done := vals[n]; done {
			continue
		}
		v, err := ask(ctx, bin, dir, n, changes)
		if err != nil {
			if strings.Contains(err.Error(), "unrecognized configuration parameter") {
				continue // not in this version (hash_mem_multiplier < 13, huge_page_size < 14)
			}
			return nil, err
		}
		vals[n] = v
	}
	return overlay(postgres.Defaults(major), vals, postgres.FromConfigFile), nil
}
