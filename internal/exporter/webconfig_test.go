package exporter

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/crypto/bcrypt"
)

// The exporter-toolkit web configuration is honoured: basic auth rejects
// a scrape without the password and accepts it with.
func TestWebConfigBasicAuth(t *testing.T) {
	hash, err := bcrypt.GenerateFromPassword([]byte("s3cret"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "web.yml")
	if err := os.WriteFile(cfg, []byte("basic_auth_users:\n  prometheus: "+string(hash)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	base, _ := serveLive(t, cfg)
	for _, tc := range []struct {
		user, pass string
		want       int
	}{{"", "", 401}, {"prometheus", "wrong", 401}, {"prometheus", "s3cret", 200}} {
		req, _ := http.NewRequest("GET", base+"/metrics", nil)
		if tc.user != "" {
			req.SetBasicAuth(tc.user, tc.pass)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("user %q password %q: %s, want %d", tc.user, tc.pass, resp.Status, tc.want)
		}
	}
}
