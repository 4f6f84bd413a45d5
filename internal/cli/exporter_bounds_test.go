package cli

import (
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/throwaway"
)

// TestExporterBoundedByHand: run by hand, outside its unit (no
// MemoryMax=256M), the exporter sets the Go runtime's soft memory limit
// itself (192 MiB, go_gc_gomemlimit_bytes); GOMEMLIMIT, when set, wins,
// and --memory-limit 0 sets none. It also reports its connection cap. The
// exporter used to run without a limit.
func TestExporterBoundedByHand(t *testing.T) {
	bin := buildDbmem(t)
	fix := filepath.Join("..", "..", "testdata", "fixtures", "pg15-hugepages-off")
	host := []string{"--proc", filepath.Join(fix, "proc"), "--sys", filepath.Join(fix, "sys"), "--root", filepath.Join(fix, "root")}
	for _, tc := range []struct {
		env   []string
		flags []string
		want  float64
	}{
		{nil, nil, 192 << 20},
		{[]string{"GOMEMLIMIT=100MiB"}, nil, 100 << 20}, // the environment wins
		{nil, []string{"--memory-limit", "0"}, math.MaxInt64},
	} {
		body := scrapeExporter(t, bin, append(host, tc.flags...), tc.env)
		m := regexp.MustCompile(`(?m)^go_gc_gomemlimit_bytes (\S+)$`).FindStringSubmatch(body)
		if m == nil {
			t.Fatalf("no go_gc_gomemlimit_bytes in the scrape:\n%s", body)
		}
		if v, _ := strconv.ParseFloat(m[1], 64); v != tc.want {
			t.Errorf("env %q flags %q: go_gc_gomemlimit_bytes %s, want %.0f", tc.env, tc.flags, m[1], tc.want)
		}
		if !regexp.MustCompile(`(?m)^dbmem_http_connections_max 256$`).MatchString(body) {
			t.Errorf("the scrape does not report the connection cap of 256")
		}
	}
}

// scrapeExporter runs the built exporter with args and env on a free
// port, scrapes it once it answers (within two minutes), stops it and
// returns the scrape.
func scrapeExporter(t *testing.T, bin string, args, env []string) string {
	t.Helper()
	port, err := throwaway.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	cmd := exec.Command(bin, append(args, "exporter", "--web.listen-address", addr, "--smaps-interval", "0")...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer stopAndWait(t, "exporter", cmd)
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == 200 {
			return string(b)
		}
	}
	t.Fatal("the exporter did not answer within two minutes")
	return ""
}
