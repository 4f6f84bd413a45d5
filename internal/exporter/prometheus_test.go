package exporter

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/pgcluster"
	"github.com/dbmem/dbmem/internal/pgtest"
)

// startPrometheus runs the Debian package's prometheus on a free loopback
// port with its own configuration and storage, scraping target every
// second and evaluating the shipped alert rules. It is stopped by PID when
// the test ends. It returns the base URL of its HTTP API.
func startPrometheus(t *testing.T, target string) string {
	t.Helper()
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Fatal("prometheus not found: install the Debian package prometheus (scripts/test does)")
	}
	port, err := pgcluster.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rules, _ := filepath.Abs(filepath.Join(deployDir, "prometheus", "dbmem-alerts.yml"))
	cfg := fmt.Sprintf("global: {scrape_interval: 1s, evaluation_interval: 1s}\nrule_files: [%q]\n"+
		"scrape_configs:\n  - job_name: dbmem\n    static_configs: [{targets: [%q]}]\n", rules, target)
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	logf, _ := os.Create(filepath.Join(dir, "prometheus.log"))
	cmd := exec.Command(bin, "--config.file="+filepath.Join(dir, "prometheus.yml"), "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address=127.0.0.1:"+strconv.Itoa(port), "--log.level=warn")
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stopProcess(t, cmd); logf.Close() })
	api := "http://127.0.0.1:" + strconv.Itoa(port)
	waitFor(t, 30*time.Second, "prometheus ready", func() bool {
		resp, err := http.Get(api + "/-/ready")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil && resp.StatusCode == 200
	})
	return api
}

// stopProcess ends a process this test started: SIGTERM, then SIGKILL.
func stopProcess(t *testing.T, cmd *exec.Cmd) {
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		t.Logf("prometheus %d did not stop on SIGTERM; killing it", cmd.Process.Pid)
		cmd.Process.Kill()
		<-done
	}
}

func waitFor(t *testing.T, d time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

type apiResult struct {
	Status string `json:"status"`
	Error  string `json:"error"`
	Data   struct {
		Result []struct {
			Metric map[string]string `json:"metric"`
			Value  [2]any            `json:"value"`
		} `json:"result"`
		Groups []struct {
			Rules []struct {
				Name      string `json:"name"`
				Health    string `json:"health"`
				LastError string `json:"lastError"`
			} `json:"rules"`
		} `json:"groups"`
	} `json:"data"`
}

func getAPI(t *testing.T, u string) apiResult {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r apiResult
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	return r
}

func query(t *testing.T, api, q string) apiResult {
	return getAPI(t, api+"/api/v1/query?query="+url.QueryEscape(q))
}

func TestPrometheusScrapesExporter(t *testing.T) {
	c := pgtest.Start(t, map[string]string{"shared_buffers": "128MB", "max_connections": "25"})
	pgtest.Readers(t, c, 2, 16<<20)
	base, _ := serveLive(t, "")
	api := startPrometheus(t, strings.TrimPrefix(base, "http://"))

	q := fmt.Sprintf(`dbmem_postgres_connections{port="%d", data_dir=%q}`, c.Port, c.DataDir)
	waitFor(t, time.Minute, q+" == 2 in Prometheus", func() bool {
		r := query(t, api, q)
		return len(r.Data.Result) == 1 && r.Data.Result[0].Value[1] == "2"
	})
	for _, q := range []string{`up{job="dbmem"}`, `dbmem_scrape_collector_success{collector="status"}`} {
		if r := query(t, api, q); len(r.Data.Result) != 1 || r.Data.Result[0].Value[1] != "1" {
			t.Errorf("%s: %+v, want 1", q, r)
		}
	}
	// Every dashboard query is valid PromQL for this Prometheus.
	for _, e := range dashboardExprs(t) {
		if r := query(t, api, expandVars(e)); r.Status != "success" {
			t.Errorf("dashboard query %q: %s %s", e, r.Status, r.Error)
		}
	}
	// The shipped rules load and evaluate without error against real series.
	want := len(alertRules(t))
	waitFor(t, 30*time.Second, "every alert rule evaluated", func() bool {
		r := getAPI(t, api+"/api/v1/rules")
		n := 0
		for _, g := range r.Data.Groups {
			for _, rule := range g.Rules {
				if rule.Health == "err" {
					t.Fatalf("rule %s: %s", rule.Name, rule.LastError)
				}
				if rule.Health == "ok" {
					n++
				}
			}
		}
		return n == want
	})
}
