package plan

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/postgres"
)

// stopped plans this host for a stopped server's data directory: its own
// binaries asked with `postgres -D DIR -C ...` as the directory's owner
// when that is a trusted server account, else estimated from its
// configuration files without running anything, and left out of the
// host-wide settings.
func stopped(ctx context.Context, a *asker, r Request) (advise.PlanInput, error) {
	in := advise.PlanInput{Source: fmt.Sprintf("host %s, stopped server %s", r.Snapshot.Host.Hostname, r.DataDir)}
	var err error
	if in.Host, in.Notes, err = hostFacts(r.Snapshot, r.Given); err != nil {
		return in, err
	}
	d, err := readDataDir(r.DataDir)
	if err != nil {
		return in, err
	}
	size := r.pageSize(in.Host.DefaultHugePageBytes)
	var pi advise.PlannedInstance
	var notes []string
	if why := d.untrusted(r.Trust); why != "" {
		pi, notes, err = untrustedStopped(d, r, size, why)
	} else {
		pi, notes, err = askStopped(ctx, a, d, r, size)
	}
	if err != nil {
		return in, err
	}
	in.Notes = append(in.Notes, notes...)
	if n := len(r.Snapshot.Postgres) + len(r.Snapshot.MySQL); n > 0 {
		in.Notes = append(in.Notes, oneOfMany("--data-dir "+r.DataDir, n))
	}
	in.Instances = []advise.PlannedInstance{pi}
	return in, addMySQL(&in, r, r.Snapshot, size)
}

// stoppedInstance is the plan's view of a stopped server with settings set.
func stoppedInstance(d dataDir, r Request, set postgres.Settings) advise.PlannedInstance {
	pi := advise.PlannedInstance{
		Engine:  advise.Engine{Name: finding.EnginePostgres, Major: d.major},
		Subject: fmt.Sprintf("postgresql %d (%s, stopped)", d.major, d.given),
		Changes: r.Changes, Current: currentOf(set, r.Changes), GID: -1, DataDir: strings.TrimSuffix(d.given, "/"),
	}
	pi.Unit, pi.NoUnit = r.unitOr(postgres.StoppedUnit(pi.DataDir))
	pi.Ctl = postgres.Ctl("", pi.DataDir)
	pi.Work = advise.PostgresWorkload(&postgres.Instance{Major: d.major, Settings: overlay(set, r.Changes, postgres.FromCommandLine)}, r.NodesPerQuery)
	return pi
}

// askStopped asks the server's own binaries, as its (trusted) owner.
func askStopped(ctx context.Context, a *asker, d dataDir, r Request, size uint64) (advise.PlannedInstance, []string, error) {
	bin := a.binFor(d.major)
	if bin == "" {
		return advise.PlannedInstance{}, nil, fmt.Errorf("no PostgreSQL %d binaries found to ask about %s%s: install them or give --pg-bin", d.major, d.given, a.why())
	}
	cred, err := ownerOf(d.data)
	if err != nil {
		return advise.PlannedInstance{}, nil, err
	}
	s := server{bin: bin, major: d.major, dir: d.given, cred: cred}
	set, err := askSettings(ctx, s, r.Changes)
	if err != nil {
		return advise.PlannedInstance{}, nil, err
	}
	pi := stoppedInstance(d, r, set)
	var notes []string
	if d.major >= 15 {
		pi.Need, err = askNeed(ctx, s, size, r.Changes, "postgres -D "+d.given+" -C shared_memory_size_in_huge_pages")
		if err != nil {
			return pi, nil, fmt.Errorf("ask the stopped server its huge page need (is it running? then plan without --data-dir): %w", err)
		}
	} else {
		pi.Need = estimateNeed(overlay(set, r.Changes, postgres.FromCommandLine), size)
		notes = append(notes, fmt.Sprintf("PostgreSQL %d cannot compute shared_memory_size_in_huge_pages: estimated from settings; start it once and plan the running server for the exact size", d.major))
	}
	if libs := preloaded(overlay(set, r.Changes, postgres.FromCommandLine)); libs != "" {
		notes = append(notes, librariesNote(pi.Subject, libs))
	}
	return pi, notes, nil
}

// untrustedStopped estimates a stopped server of an untrusted account from
// its configuration files, read with its rights; nothing is run.
func untrustedStopped(d dataDir, r Request, size uint64, why string) (advise.PlannedInstance, []string, error) {
	set, notes, err := d.fileSettings()
	if err != nil {
		return advise.PlannedInstance{}, nil, err
	}
	pi := stoppedInstance(d, r, set)
	pi.Untrusted = why
	pi.Need = estimateNeed(overlay(set, r.Changes, postgres.FromCommandLine), size)
	note := fmt.Sprintf("%s: nothing was run for it (%s): its need is estimated from its configuration files", pi.Subject, why)
	return pi, append([]string{note}, notes...), nil
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
func askSettings(ctx context.Context, s server, changes map[string]string) (postgres.Settings, error) {
	vals := map[string]string{}
	for _, n := range append(append([]string{"shared_preload_libraries"}, workloadNames...), sizingNames...) {
		if _, done := vals[n]; done {
			continue
		}
		v, err := s.ask(ctx, n, changes)
		if err != nil {
			if strings.Contains(err.Error(), "unrecognized configuration parameter") {
				continue // not in this version (hash_mem_multiplier < 13, huge_page_size < 14)
			}
			return nil, err
		}
		vals[n] = v
	}
	return overlay(postgres.Defaults(s.major), vals, postgres.FromConfigFile), nil
}
