package lab

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/dbmem/dbmem/internal/hostchange"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/memcg"
	"github.com/dbmem/dbmem/internal/pgcluster"
)

// sandbox is a throwaway cluster inside a memory cgroup, both journaled
// before they are made, so that a killed run's are removed by the next
// lab run (hostchange.Replay).
type sandbox struct {
	fs linux.FS
	jr *hostchange.Journal
	g  *memcg.Group
	c  *pgcluster.Cluster
}

// createCgroup plans the memory cgroup, journals it, then makes it.
func (s *sandbox) createCgroup(limit uint64) error {
	g, err := memcg.Plan(s.fs.Sys, CgroupPrefix+strconv.Itoa(os.Getpid()), limit)
	if err != nil {
		return err
	}
	entry := &hostchange.Cgroup{Dir: g.Dir, Parent: g.ParentDir}
	if err := s.jr.Add(hostchange.Entry{Cgroup: entry}); err != nil {
		return err
	}
	if err := g.Make(); err != nil {
		return err
	}
	s.g = g
	if err := entry.Made(); err != nil {
		return err
	}
	return s.jr.Save()
}

// createCluster runs initdb and journals the cluster's directory.
func (s *sandbox) createCluster(ctx context.Context, bin, base string, settings map[string]string) error {
	c, err := pgcluster.Create(ctx, pgcluster.Options{Bin: bin, BaseDir: base, Settings: settings, Journal: journalCluster(s.jr)})
	if err != nil {
		return err
	}
	s.c = c
	return nil
}

// start starts the server and moves it into the cgroup.
func (s *sandbox) start(ctx context.Context) error {
	if err := s.c.Start(ctx); err != nil {
		return err
	}
	return s.moveIn()
}

// moveIn moves the postmaster and its children into the cgroup, until
// none is left outside (children forked meanwhile are born inside once
// the postmaster is in).
func (s *sandbox) moveIn() error {
	for i := 0; i < 20; i++ {
		in := map[int]bool{}
		for _, p := range s.g.Procs() {
			in[p] = true
		}
		moved := 0
		for _, p := range tree(s.fs, s.c.PID) {
			if in[p] {
				continue
			}
			if err := s.g.Add(p); err != nil && !errors.Is(err, syscall.ESRCH) && pgcluster.Alive(p) {
				return fmt.Errorf("move PID %d of the cluster into the memory cgroup: %w", p, err)
			}
			moved++
		}
		if moved == 0 {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return errors.New("the cluster's processes kept changing while the lab moved them into the memory cgroup")
}

// teardown removes the cluster, then the cgroup, and says what it
// restored.
func (s *sandbox) teardown() ([]HostChange, []error) {
	var out []HostChange
	var errs []error
	if s.c != nil {
		x := HostChange{What: "cluster " + s.c.Dir, Before: "absent", Set: "created", After: "absent", OK: true}
		if err := s.c.Remove(); err != nil {
			x.OK, x.After, x.Error = false, "present", err.Error()
			errs = append(errs, fmt.Errorf("remove cluster %s: %w", s.c.Dir, err))
		}
		out = append(out, x)
	}
	if s.g != nil {
		x := HostChange{What: "memory cgroup " + s.g.Dir, Before: "absent", Set: "created", After: "absent", OK: true}
		if err := s.g.Remove(15 * time.Second); err != nil {
			x.OK, x.After, x.Error = false, "present", err.Error()
			errs = append(errs, err)
		}
		out = append(out, x)
	}
	return out, errs
}
