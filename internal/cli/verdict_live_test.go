package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/throwaway"
)

// TestOneVerdictLive runs the built binary on this host: check, then 6
// ticks of watch (discovery, smaps and at least one status tick) and 5 scrapes of the
// exporter, then check again. Every tick and every scrape must give
// check's verdict: the same findings (id, severity, subject), and for
// watch the same advice and the same evidence lines. On this host Redis
// and RabbitMQ run beside PostgreSQL: before the fix, the status ticks
// and the scrapes after the first advised vm.overcommit_memory=2 and
// lost the units' OOMPolicy findings.
//
// Other tests start throwaway servers meanwhile (under the temporary
// directory): their findings are left out, and a round in which the two
// checks differ (the host changed) is tried again, at most 3 times. It
// reads the host only, without connecting to its servers (--no-connect).
func TestOneVerdictLive(t *testing.T) {
	if testing.Short() {
		t.Skip("builds dbmem and watches the host for about 10 s")
	}
	bin := buildDbmem(t)
	for round := 1; round <= 3; round++ {
		before := liveCheck(t, bin)
		ticks, status := liveWatch(t, bin, 6)
		if status == 0 {
			t.Logf("round %d: every watch tick was a discovery (postgres processes came and went): trying again", round)
			continue
		}
		scrapes := liveScrapes(t, bin, 5)
		if after := liveCheck(t, bin); !cmp.Equal(verdictKeys(before), verdictKeys(after)) {
			t.Logf("round %d: the host changed between the checks, trying again:\n%s", round, cmp.Diff(verdictKeys(before), verdictKeys(after)))
			continue
		}
		if len(before) == 0 {
			t.Fatal("check found nothing on this host: nothing to compare")
		}
		for i, got := range ticks {
			if d := cmp.Diff(liveView(before), liveView(got)); d != "" {
				t.Errorf("watch tick %d differs from check (-check +watch):\n%s", i+1, d)
			}
		}
		for i, got := range scrapes {
			if d := cmp.Diff(verdictKeys(before), got); d != "" {
				t.Errorf("exporter scrape %d differs from check (-check +exporter):\n%s", i+1, d)
			}
		}
		if !t.Failed() {
			t.Logf("round %d: %d findings, identical in 6 watch ticks and 5 scrapes", round, len(before))
		}
		return
	}
	t.Skip("the host changed in each of 3 rounds (other tests' servers came and went): nothing stable to compare")
}

// throwawayDir is where other tests' servers live: their findings come and go.
var throwawayDir = "(" + strings.TrimSuffix(os.TempDir(), "/") + "/"

func stable(fs []finding.Finding) []finding.Finding {
	var out []finding.Finding
	for _, f := range fs {
		if !strings.Contains(f.Subject, throwawayDir) {
			out = append(out, f)
		}
	}
	return out
}

func verdictKeys(fs []finding.Finding) []string {
	return labelsOf(stable(fs))
}

// liveView is what must not change from one moment to the next: the
// finding, its advice and its evidence lines (their values are measured
// anew). The OOM ranking's evidence is the live ranking of every process
// on the host, this test's own among them: only its finding counts.
func liveView(fs []finding.Finding) []string {
	out := []string{}
	for _, f := range stable(fs) {
		line := f.ID + " " + f.Severity.String() + " " + f.Subject
		if f.ID != "oom.ranking" {
			var names []string
			for _, e := range f.Evidence {
				names = append(names, e.Name)
			}
			line += " | " + strings.Join(names, ", ") + " | " + f.Fix
		}
		out = append(out, line)
	}
	sort.Strings(out)
	return out
}

func liveCheck(t *testing.T, bin string) []finding.Finding {
	t.Helper()
	out, err := exec.Command(bin, "--no-connect", "check", "--json", "--history", "").Output()
	if err != nil {
		t.Fatalf("dbmem check: %v", err)
	}
	var doc struct{ Findings []finding.Finding }
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Findings
}

// liveWatch returns each tick's findings and the number of status ticks:
// a status tick is judged on what the last discovery read, the case that
// used to differ. A postgres process that appears (another test's initdb)
// makes a tick a discovery.
func liveWatch(t *testing.T, bin string, n int) ([][]finding.Finding, int) {
	t.Helper()
	out, err := exec.Command(bin, "--no-connect", "watch", "--json", "--count", strconv.Itoa(n), "--interval", "1s", "--smaps-interval", "1h").Output()
	if err != nil {
		t.Fatalf("dbmem watch: %v", err)
	}
	var ticks [][]finding.Finding
	modes := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var f struct {
			Mode     string
			Findings []finding.Finding
		}
		if err := json.Unmarshal([]byte(line), &f); err != nil {
			t.Fatalf("watch frame: %v", err)
		}
		modes[f.Mode]++
		ticks = append(ticks, f.Findings)
	}
	if len(ticks) != n {
		t.Fatalf("watch gave %d frames (%v), want %d", len(ticks), modes, n)
	}
	t.Logf("watch ticks: %v", modes)
	return ticks, modes["status"]
}

var findingLine = regexp.MustCompile(`(?m)^dbmem_finding\{id="([^"]*)",severity="([^"]*)",subject="([^"]*)"\} 1$`)

// liveScrapes runs the exporter on a free port and scrapes it n times, a
// second apart; each scrape's dbmem_finding series become id severity
// subject lines (throwaway servers' left out).
func liveScrapes(t *testing.T, bin string, n int) [][]string {
	t.Helper()
	port, err := throwaway.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	cmd := exec.Command(bin, "--no-connect", "exporter", "--web.listen-address", addr, "--smaps-interval", "0")
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer stopAndWait(t, "exporter", cmd)
	var out [][]string
	for deadline := time.Now().Add(2 * time.Minute); len(out) < n; time.Sleep(time.Second) {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d scrapes within two minutes", len(out), n)
		}
		body, err := getMetrics("http://" + addr + "/metrics")
		if err != nil {
			continue
		}
		got := []string{}
		for _, m := range findingLine.FindAllStringSubmatch(body, -1) {
			if !strings.Contains(m[3], throwawayDir) {
				got = append(got, m[1]+" "+m[2]+" "+m[3])
			}
		}
		sort.Strings(got)
		out = append(out, got)
	}
	return out
}

func getMetrics(url string) (string, error) {
	resp, err := http.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("%s: %s", url, resp.Status)
	}
	return string(b), err
}
