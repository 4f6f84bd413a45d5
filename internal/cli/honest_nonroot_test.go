package cli

import (
	"syscall"
	"testing"

	"github.com/dbmem/dbmem/internal/pgtest"
)

func TestExploreNobody(t *testing.T) {
	binaries(t)
	c := pgtest.Start(t, map[string]string{"max_connections": "120"})
	nobody := &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}
	env := []string{"HOME=/nonexistent", "PATH=/usr/bin:/bin"}
	for _, args := range [][]string{{"check"}, {"report", "--fast"}, {"check", "--json"}} {
		_, out, errs := runAs(t, nobody, env, args...)
		t.Logf("pid %d  dbmem %v:\n%s\nSTDERR %s", c.PID, args, out, errs)
	}
}
