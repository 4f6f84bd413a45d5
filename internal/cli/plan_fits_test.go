package cli

import (
	"strings"
	"testing"
)

// TestPlanRefusesWhatCannotStart runs the built binary: a what-if whose
// shared_buffers is at or above RAM, or whose servers' memory allocated at
// start takes all of RAM, is a usage error with the arithmetic; one that
// fits is planned.
func TestPlanRefusesWhatCannotStart(t *testing.T) {
	env := []string{"PATH=/usr/bin:/bin"}
	for _, c := range []struct {
		args []string
		code int
		says []string
	}{
		{[]string{"plan", "--ram", "8GiB", "--shared-buffers", "16GiB"}, ExitUsage,
			[]string{"shared_buffers 16 GiB is at or above the 8 GiB of RAM (--ram)", "cannot start"}},
		{[]string{"plan", "--ram", "8GiB", "--shared-buffers", "8GiB"}, ExitUsage, []string{"at or above the 8 GiB of RAM"}},
		{[]string{"plan", "--ram", "8GiB", "--shared-buffers", "5GiB", "--innodb-buffer-pool-size", "4GiB", "--mysql-version", "10.11"}, ExitUsage,
			[]string{"postgresql", "+", "mariadb 10.11 (what-if)", "at or above the 8 GiB of RAM", "cannot start"}},
		{[]string{"plan", "--ram", "8GiB", "--shared-buffers", "2GiB"}, ExitOK, []string{"vm.nr_hugepages"}},
	} {
		code, out, stderr := runAs(t, nil, env, c.args...)
		if code != c.code {
			t.Errorf("dbmem %v: exit %d, want %d\n%s%s", c.args, code, c.code, out, stderr)
			continue
		}
		for _, w := range c.says {
			if !strings.Contains(out+stderr, w) {
				t.Errorf("dbmem %v does not say %q:\n%s%s", c.args, w, out, stderr)
			}
		}
	}
}
