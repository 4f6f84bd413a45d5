package advise

import (
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/servertrust"
)

// nobodys is an instance's owners as ReadOwnership records a fake that
// nobody runs from its own directory.
func nobodys() *servertrust.Ownership {
	nobody := servertrust.Account{UID: 65534, Name: "nobody"}
	return &servertrust.Ownership{Process: nobody, Binary: &servertrust.FileOwner{Path: "/tmp/x/postgres", Owner: nobody, Perm: 0o755},
		DataDir: &servertrust.FileOwner{Path: "/tmp/x/data", Owner: nobody, Perm: 0o700}}
}

// TestUntrustedInstanceInCheck: findings about an instance nobody runs
// stand, but it shapes no host-wide advice: no vm.nr_hugepages grown for
// it, and the host-wide sum beside the pools says it left it out; with
// --server-account nobody it counts again.
func TestUntrustedInstanceInCheck(t *testing.T) {
	s := hostSnap(24 * GiB)
	pool(50, 50, 0)(s)
	in := pgInstance(143*MiB, basePage, postgres.Settings{"shared_memory_size_in_huge_pages": pgSet("72")})
	in.Owners = nobodys()
	s.Postgres = []*postgres.Instance{in}
	f, ok := find(Check(s, Options{}), "hugepages.pool_too_small")
	if !ok || len(f.Settings) != 0 || !strings.Contains(evidence(f, "host-wide settings"), "run by nobody") {
		t.Errorf("nobody's instance: pool_too_small %+v", f)
	}
	trusting := Options{Trust: servertrust.Policy{Accounts: []string{"nobody"}}}
	if f, _ := find(Check(s, trusting), "hugepages.pool_too_small"); len(f.Settings) != 1 || f.Settings[0].Value != "72" {
		t.Errorf("with --server-account nobody: %+v", f)
	}

	s, my := small1G("ON")
	s.Host.HugePools[0].Total, s.Host.HugePools[0].Free = 400, 16
	s.Host.Meminfo.MemAvailableBytes = new(150 * MiB)
	my.Owners = nobodys()
	f, ok = find(Check(s, Options{}), "hugepages.pool_starves_host")
	need := evidence(f, "needed beside the pools")
	if !ok || strings.Contains(need, MySQLSubject(my)+":") || !strings.Contains(need, "left out, not trusted: "+MySQLSubject(my)) {
		t.Errorf("nobody's MariaDB counted beside the pools: %q", need)
	}
	if f, _ = find(Check(s, trusting), "hugepages.pool_starves_host"); !strings.Contains(evidence(f, "needed beside the pools"), MySQLSubject(my)+":") {
		t.Errorf("with --server-account nobody, MariaDB is not counted: %+v", f)
	}
}

// evidence is the value of a finding's evidence named name.
func evidence(f finding.Finding, name string) string {
	for _, e := range f.Evidence {
		if e.Name == name {
			return e.Value
		}
	}
	return ""
}
