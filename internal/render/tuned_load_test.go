package render

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// tunedLoad merges a profile with what it includes using tuned's own
// profile loader (the tuned package's Python library), without the daemon:
// nothing is applied to this host. It prints unit.option=value.
const tunedLoad = `
import sys
sys.path.insert(0, "/usr/lib/python3/dist-packages")
import tuned.profiles.loader, tuned.profiles.locator, tuned.profiles.factory
import tuned.profiles.merger, tuned.profiles.variables, tuned.utils.global_config
loc = tuned.profiles.locator.Locator(["/usr/lib/tuned", sys.argv[1]])
loader = tuned.profiles.loader.Loader(loc, tuned.profiles.factory.Factory(), tuned.profiles.merger.Merger(),
    tuned.utils.global_config.GlobalConfig(), tuned.profiles.variables.Variables())
p = loader.load([sys.argv[2]])
for name, unit in p.units.items():
    for k, v in unit.options.items():
        print("%s.%s=%s" % (name, k, v))
`

// TestTunedProfileLoads feeds the profile to tuned's loader: the stock
// profile it includes exists and is merged in (its cpu settings appear),
// and every value dbmem sets wins over the included one.
func TestTunedProfileLoads(t *testing.T) {
	if _, err := os.Stat("/usr/lib/tuned/postgresql/tuned.conf"); err != nil {
		t.Skip("tuned is not installed (Debian package tuned): its profile loader cannot check the profile here")
	}
	o := opts()
	o.TunedInclude = TunedIncludeFor([]string{"postgresql"})
	out, err := Format("tuned", plan(), o)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "dbmem"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "dbmem", "tuned.conf"), []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := exec.Command("python3", "-c", tunedLoad, dir, "dbmem").CombinedOutput()
	if err != nil {
		t.Fatalf("tuned's loader refused the profile: %v\n%s\n%s", err, b, out)
	}
	merged := string(b)
	for _, want := range []string{
		"cpu.force_latency=1",         // from tuned's postgresql profile: the include is merged
		"sysctl.vm.nr_hugepages=8406", // dbmem's values win
		"sysctl.vm.swappiness=1",      // over throughput-performance's 10
		"sysctl.vm.overcommit_memory=2",
		"vm.transparent_hugepages=never",
	} {
		if !strings.Contains(merged, want+"\n") {
			t.Errorf("merged profile lacks %s:\n%s", want, merged)
		}
	}
	if TunedIncludeFor([]string{"postgresql", "mariadb"}) != "throughput-performance" || TunedIncludeFor(nil) != "throughput-performance" {
		t.Errorf("the postgresql profile is for hosts where PostgreSQL is the only engine")
	}
}
