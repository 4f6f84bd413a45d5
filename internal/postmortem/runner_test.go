package postmortem

import (
	"context"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/safeexec"
)

// TestExecRunnerClearsEnvironment runs env through the runner that starts
// journalctl and dmesg, with root's environment poisoned.
func TestExecRunnerClearsEnvironment(t *testing.T) {
	t.Setenv("DBMEM_SECRET", "hunter2")
	t.Setenv("LD_PRELOAD", "/nonexistent")
	t.Setenv("PAGER", "/tmp/evil")
	out, err := ExecRunner(context.Background(), "env")
	if err != nil {
		t.Fatal(err)
	}
	env := string(out)
	for _, bad := range []string{"DBMEM_SECRET", "LD_PRELOAD", "PAGER=/tmp/evil", "hunter2"} {
		if strings.Contains(env, bad) {
			t.Errorf("the child's environment carries %s:\n%s", bad, env)
		}
	}
	for _, want := range []string{safeexec.Path + "\n", "LC_ALL=C\n", "SYSTEMD_PAGER=\n"} {
		if !strings.Contains(env, want) {
			t.Errorf("the child's environment lacks %q:\n%s", want, env)
		}
	}
}

// TestJournalOverBudgetSaysSo: a journal bigger than the output budget is
// read from its newest lines, and the log says it was cut.
func TestJournalOverBudgetSaysSo(t *testing.T) {
	run := func(ctx context.Context, name string, args ...string) ([]byte, error) {
		return safeexec.Output(ctx, safeexec.Command{Name: "seq", Args: []string{"200000"}, MaxBytes: 4096})
	}
	l := journalLog(context.Background(), run)
	if l.State != StateRead || !l.Truncated || l.SizeBytes != 1288895 {
		t.Fatalf("log %+v", l)
	}
	if !strings.HasSuffix(string(l.Text), "\n200000\n") ||
		l.ReadBytes != int64(len(l.Text)) || l.ReadBytes > 4096 {
		t.Fatalf("kept %d bytes: %q...", l.ReadBytes, l.Text[:20])
	}
	if first, _, _ := strings.Cut(string(l.Text), "\n"); len(first) != 6 {
		t.Errorf("first kept line %q is cut", first)
	}
	if !strings.Contains(l.Why, "output budget") {
		t.Errorf("why %q does not say the budget was hit", l.Why)
	}
	d := dmesgLog(context.Background(), run, l.ModTime)
	if !d.Truncated || d.State != StateRead {
		t.Fatalf("dmesg log %+v", d)
	}
}
