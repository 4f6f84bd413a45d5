package postgres_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/pgcluster"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/throwaway"
)

// peerCluster starts a cluster initialised with --auth-local=peer, run by
// owner, whose superuser is named after owner (as Debian's are).
func peerCluster(t *testing.T, owner string) *pgcluster.Cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c, err := pgcluster.Create(ctx, pgcluster.Options{OSUser: owner, AuthLocal: "peer", InitdbWithoutHugePages: true,
		Settings: map[string]string{"huge_pages": "off", "shared_buffers": "48MB"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Remove(); err != nil {
			t.Errorf("remove %s: %v", c.Dir, err)
		}
	})
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	return c
}

// throwawayUser creates an OS account deleted when the test ends (after
// the servers it runs, which register their cleanup later).
func throwawayUser(t *testing.T) string {
	t.Helper()
	name, remove, err := throwaway.User("dbmemt")
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() {
		if err := remove(); err != nil {
			t.Error(err)
		}
	})
	return name
}

// TestConnectorPeerThroughHelper: as root, a cluster that only lets local
// accounts in as themselves (peer) is read through dbmem's helper running
// as the data directory's owner, the stock Debian cluster (postgres) and
// one run by a throwaway account alike. Without the helper dbmem says why
// it could not connect and what to grant.
func TestConnectorPeerThroughHelper(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the helper runs as the data directory's owner: root only")
	}
	noPasswordEnv(t)
	for _, owner := range []string{"postgres", throwawayUser(t)} {
		c := peerCluster(t, owner)
		in := discoverPG(t, c.PID)
		ctx := context.Background()
		l, err := postgres.Connector{Helper: postgres.NewHelper()}.Live(ctx, in)
		if err != nil || l.Settings.String("shared_buffers") != "48MB" || l.SessionPID == 0 ||
			!strings.Contains(l.As, "connected as "+owner+" via "+c.SocketDir) || !strings.Contains(l.As, "helper running as OS user "+owner) {
			t.Errorf("owner %s through the helper: %q, shared_buffers %q, %v", owner, l.As, l.Settings.String("shared_buffers"), err)
		}
		_, err = postgres.Connector{}.Live(ctx, in)
		t.Logf("without the helper: %v", err)
		if err == nil || !strings.Contains(err.Error(), "Peer authentication failed") ||
			!strings.Contains(err.Error(), "local all "+owner+" peer") {
			t.Errorf("owner %s without the helper: %v", owner, err)
		}
	}
}
