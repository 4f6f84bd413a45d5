package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
	"github.com/dbmem/dbmem/internal/postgres"
)

// TestConnectorDropsAnswersFromAnotherServer: instance A is given B's
// port (as a guessed default port would be). Over B's socket the proof
// refuses before connecting (A does not hold it, its listener is B);
// over TCP B answers, and its backend's parent is B's postmaster, not
// A's: the answers are dropped, so B's shared_buffers is never shown as A's.
func TestConnectorDropsAnswersFromAnotherServer(t *testing.T) {
	a := pgtest.Start(t, map[string]string{"shared_buffers": "40MB"})
	b := pgtest.Start(t, map[string]string{"shared_buffers": "48MB"})
	noPasswordEnv(t)
	ctx := context.Background()
	in := discoverPG(t, a.PID)
	in.Port, in.SocketDir, in.PIDFile = b.Port, b.SocketDir, nil
	_, err := postgres.Connector{Options: postgres.ConnOptions{User: "postgres"}}.Live(ctx, in)
	t.Logf("B's socket: %v", err)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("pid %d does not listen on %s/.s.PGSQL.%d", a.PID, b.SocketDir, b.Port)) {
		t.Errorf("B's socket offered for A: %v", err)
	}
	l, err := postgres.Connector{Options: postgres.ConnOptions{User: "postgres", Host: "127.0.0.1"}}.Live(ctx, in)
	t.Logf("B over TCP: %v", err)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("the server that answered is not postmaster %d", a.PID)) ||
		!strings.Contains(err.Error(), fmt.Sprintf("has parent pid %d", b.PID)) {
		t.Errorf("B over TCP taken for A: shared_buffers %q, %v", l.Settings.String("shared_buffers"), err)
	}
	in.Port = a.Port
	if l, err := (postgres.Connector{Options: postgres.ConnOptions{User: "postgres", Host: "127.0.0.1"}}).Live(ctx, in); err != nil ||
		l.Settings.String("shared_buffers") != "40MB" || !strings.Contains(l.As, "TCP: the server's identity is not proven") {
		t.Errorf("A over TCP: %q %v", l.As, err)
	}
}
