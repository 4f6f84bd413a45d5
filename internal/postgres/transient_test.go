package postgres

import (
	"strings"
	"testing"
)

func TestIsTransient(t *testing.T) {
	for _, c := range []struct {
		cmd  string
		want bool
	}{
		{"/usr/lib/postgresql/15/bin/postgres -D /var/lib/postgresql/15/main -c config_file=/etc/postgresql/15/main/postgresql.conf", false},
		{"postgres -D /data -p 5433 -c shared_buffers=1GB", false},
		{"/usr/lib/postgresql/15/bin/postgres --boot -F -c log_checkpoints=false -X 1048576 -k", true},
		{"postgres --single -F -O -j -c search_path=pg_catalog -c exit_on_error=true -D /d template1", true},
		{"postgres --check -D /data", true},
		{"postgres --describe-config", true},
		{"postgres -D /data -C shared_memory_size_in_huge_pages", true},
		{"postgres -C shared_buffers -D /data", true},
		{"postgres -Cshared_buffers -D /data", true},
		{"postgres -V", true},
		// A -C inside a value is a setting, not the option.
		{"postgres -D /data -c cluster_name=-Cx", false},
		{"postgres -D -Cdata", false},
		{"postgres --config-file=/etc/pg.conf -D /data", false},
		{"postgres", false},
	} {
		if got := isTransient(strings.Fields(c.cmd)); got != c.want {
			t.Errorf("%q: transient %v, want %v", c.cmd, got, c.want)
		}
	}
}
