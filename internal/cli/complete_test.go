package cli

import (
	"slices"
	"strings"
	"testing"
)

// complete asks cobra's hidden __complete command, as the bash, zsh and
// fish scripts from 'dbmem completion' do, and returns the candidates and
// the directive line.
func complete(t *testing.T, args ...string) ([]string, string) {
	t.Helper()
	code, out, stderr := run(t, append([]string{"__complete"}, args...)...)
	if code != ExitOK {
		t.Fatalf("__complete %q: exit %d: %s", args, code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return lines[:len(lines)-1], lines[len(lines)-1]
}

func TestFlagValuesComplete(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"report", "--method", ""}, []string{"auto", "fast", "smaps", "status"}},
		{[]string{"report", "--method", "s"}, []string{"smaps", "status"}},
		{[]string{"check", "--exit-code", ""}, []string{"info", "notice", "warning", "critical"}},
		{[]string{"check", "--min-severity", "w"}, []string{"warning"}},
		{[]string{"plan", "--format", "k"}, []string{"kernel-cmdline", "kubernetes"}},
		{[]string{"plan", "--page-size", ""}, []string{"2MiB", "1GiB"}},
		{[]string{"lab", "--modes", "off,t"}, []string{"off,try"}},
	} {
		got, directive := complete(t, c.args...)
		if !slices.Equal(got, c.want) || directive != ":4" {
			t.Errorf("complete %q = %q %s, want %q :4 (no file names)", c.args, got, directive, c.want)
		}
	}
}

// Flags that name a file or a directory let the shell complete paths.
func TestPathFlagsComplete(t *testing.T) {
	for _, c := range []struct {
		args      []string
		directive string
	}{
		{[]string{"--proc", ""}, ":16"}, // ShellCompDirectiveFilterDirs
		{[]string{"report", "--root", ""}, ":16"},
		{[]string{"history", "--html", ""}, ":0"}, // files (default)
		{[]string{"report", "--from", ""}, ":0"},
		{[]string{"apply", "--journal-dir", ""}, ":16"},
	} {
		if _, d := complete(t, c.args...); d != c.directive {
			t.Errorf("complete %q: directive %s, want %s", c.args, d, c.directive)
		}
	}
}
