package plan

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/dbmem/dbmem/internal/pgcluster"
	"github.com/dbmem/dbmem/internal/safeexec"
)

// asker finds the PostgreSQL binaries to ask, and the throwaway clusters
// it creates once per binary directory.
type asker struct {
	// bin overrides the PostgreSQL binary directory ("" finds one per major
	// version).
	bin        string
	throwaways map[string]*pgcluster.Cluster
	// refused are binary directories root may not run (pgcluster.CheckBin).
	refused []string
}

// close removes the throwaway clusters.
func (a *asker) close() {
	for _, c := range a.throwaways {
		c.Remove()
	}
}

// binFor returns a PostgreSQL binary directory of the given major version
// (0: any), or "" when none is installed that root may run.
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
		if err := pgcluster.CheckBin(b, "postgres"); err != nil {
			a.refuse(err)
			continue
		}
		if m, err := pgcluster.MajorVersion(b); err == nil && (major == 0 || m == major) {
			return b
		}
	}
	return ""
}

func (a *asker) refuse(err error) {
	if s := err.Error(); !strings.Contains(strings.Join(a.refused, "\n"), s) {
		a.refused = append(a.refused, s)
	}
}

// why says why no binary was found: the directories refused, if any.
func (a *asker) why() string {
	if len(a.refused) == 0 {
		return ""
	}
	return " (refused: " + strings.Join(a.refused, "; ") + ")"
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

// run runs s's postgres with args in a cleared environment, as s's account.
func (s server) run(ctx context.Context, args []string) (string, error) {
	if err := pgcluster.CheckBin(s.bin, "postgres"); err != nil {
		return "", err
	}
	cmd := s.command(ctx, args)
	out, errb := safeexec.NewBuffer(64<<10, true), safeexec.NewBuffer(4<<10, true) // postgres -C prints one line
	cmd.Stdout, cmd.Stderr = out, errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s %s: %w: %s", cmd.Path, strings.Join(args, " "), err, strings.TrimSpace(string(errb.Bytes())))
	}
	if out.Truncated() {
		return "", fmt.Errorf("%s %s printed %d bytes, more than a setting's value", cmd.Path, strings.Join(args, " "), out.Total())
	}
	return strings.TrimSpace(string(out.Bytes())), nil
}
