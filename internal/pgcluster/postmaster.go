package pgcluster

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/linux"
)

// Started records the postmaster a pg_ctl start (Start's, or a caller's
// own) left running: the pid postmaster.pid names, when the kernel says
// it is this cluster's postgres (ownsPID), and tells the journal.
func (c *Cluster) Started() error {
	pid, err := c.readPID()
	if err != nil {
		return err
	}
	if !c.ownsPID(pid) {
		return fmt.Errorf("%s names pid %d, which is not this cluster's postgres: pg_ctl started no server", filepath.Join(c.DataDir, "postmaster.pid"), pid)
	}
	c.PID = pid
	return c.setPostmaster(pid)
}

// setPostmaster records the running postmaster (0: none) in the entry.
func (c *Cluster) setPostmaster(pid int) error {
	if c.Entry == nil {
		return nil
	}
	if err := c.Entry.SetPostmaster(linux.DefaultFS(), pid); err != nil {
		return err
	}
	return c.tellJournal()
}

func (c *Cluster) tellJournal() error {
	if c.journal == nil || c.Entry == nil {
		return nil
	}
	return c.journal(c.Entry)
}

func (c *Cluster) readPID() (int, error) {
	b, err := os.ReadFile(filepath.Join(c.DataDir, "postmaster.pid"))
	if err != nil {
		return 0, fmt.Errorf("read postmaster.pid: %w", err)
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("postmaster.pid: first line %q is not a PID", first)
	}
	return pid, nil
}

// adoptPID records the postmaster a Start that was interrupted (pg_ctl
// killed when its context ended) may have left running.
func (c *Cluster) adoptPID() {
	if c.DataDir == "" {
		return
	}
	if pid, err := c.readPID(); err == nil && c.ownsPID(pid) {
		c.PID = pid
	}
}

// ownsPID reports whether pid is this cluster's postgres by what the
// kernel says (hostchange.Cluster.Runs: its owner, executable and working
// directory), never by its command line.
func (c *Cluster) ownsPID(pid int) bool {
	return c.Entry != nil && c.Entry.Runs(linux.DefaultFS(), pid, "postgres")
}
