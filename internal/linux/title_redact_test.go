package linux

import (
	"github.com/dbmem/dbmem/internal/measure"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestProcessTitleIsRedacted starts a real process whose command line
// holds secrets, as another user's job would, and reads it as report,
// check and watch do: the title keeps the words and loses the secrets.
func TestProcessTitleIsRedacted(t *testing.T) {
	secrets := []string{"tok-3f9a1c", "key-8d2e77", "pw-c0ffee"}
	cmd := exec.Command("sh", "-c", "sleep 300", "dbmem-test-job", "--token="+secrets[0], "--api-key", secrets[1],
		"--password="+secrets[2])
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	var p Process
	for end := time.Now().Add(2 * time.Minute); time.Now().Before(end); { // until sh has exec'd its arguments into place
		var err error
		if p, _, err = ReadProcess(DefaultFS(), cmd.Process.Pid, measure.Status); err == nil && strings.Contains(p.Title, "dbmem-test-job") {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, s := range secrets {
		if strings.Contains(p.Title, s) {
			t.Errorf("title %q holds the secret %q", p.Title, s)
		}
	}
	for _, want := range []string{"--token=REDACTED", "--api-key REDACTED", "--password=REDACTED", "dbmem-test-job"} {
		if !strings.Contains(p.Title, want) {
			t.Errorf("title %q lacks %q", p.Title, want)
		}
	}
}
