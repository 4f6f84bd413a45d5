package postgres

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// PGPASSFILE naming a FIFO (no writer) used to block in open(2) for ever,
// and SIGTERM with it: it is now refused at once, as libpq refuses a
// password file that is not a plain file.
func TestPassfileFIFODoesNotBlock(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pgpass")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"PGPASSFILE": fifo}
	done := make(chan string, 1)
	go func() {
		s, note := lookupPassword(func(k string) string { return env[k] }, passwordQuery{host: "localhost", port: 5432, database: "postgres", user: "postgres"})
		done <- s.value + "|" + note
	}()
	select {
	case got := <-done:
		if !strings.Contains(got, "|password file "+fifo+" ignored: not a plain file") {
			t.Errorf("got %q", got)
		}
	case <-time.After(time.Minute):
		t.Fatal("lookupPassword still blocked on the FIFO after a minute")
	}
}
