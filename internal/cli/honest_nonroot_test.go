package cli

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
)

// TestHonestAsNobody: the built binary run as nobody, beside a throwaway
// cluster whose data directory is 0700 and whose postgresql.conf sets
// max_connections=120. Nobody cannot read its settings, PG_VERSION nor
// the postmaster's smaps: check and report must say so. No worst case on
// PostgreSQL's defaults labelled as settings (100 connections,
// hash_mem_multiplier 1, 128 MiB shared); the check is skipped with the
// settings it lacked listed; the version is "version unknown", never
// "postgresql 0"; no "0 B pages". As root, the same binary reads 120: the
// assertions would see a default.
func TestHonestAsNobody(t *testing.T) {
	binaries(t)
	c := pgtest.Start(t, map[string]string{"max_connections": "120"})
	nobody := &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}
	env := []string{"HOME=/nonexistent", "PATH=/usr/bin:/bin"}
	subject := fmt.Sprintf("postgresql (version unknown) pid %d (%s)", c.PID, c.DataDir)
	for _, cmd := range [][]string{{"check"}, {"report", "--fast"}} {
		_, text, errs := runAs(t, nobody, env, cmd...)
		honestText(t, strings.Join(cmd, " "), text+errs, c.DataDir, subject)
		_, out, _ := runAs(t, nobody, env, append(cmd, "--json")...)
		honestJSON(t, strings.Join(cmd, " ")+" --json", out, c.DataDir, subject)
	}
	_, out, _ := runAs(t, nil, env, "check", "--json", "--history", "")
	f, ok := findingOn(t, out, c.DataDir, "memory.worst_case")
	if !ok || !strings.Contains(evidenceText(f), "120 max_connections") {
		t.Errorf("as root, the worst case of the cluster does not read max_connections=120: %+v", f)
	}
}

// dishonest are the words of a default passed off as read, in a finding
// on the cluster; never is what no line may say, on any instance (as
// nobody no postmaster's smaps is readable).
var (
	dishonest = regexp.MustCompile(`100 max_connections|x 128 MiB shared|\(settings\)`)
	never     = regexp.MustCompile(`postgresql 0 |0 B pages`)
	header    = regexp.MustCompile(`\[[a-z_.]+, ([^\]]+)\]\s*$`)
)

// honestText reads the text finding by finding (a header line ends in
// "[id, subject]").
func honestText(t *testing.T, cmd, text, dataDir, subject string) {
	t.Helper()
	var current string
	for _, line := range strings.Split(text, "\n") {
		if m := header.FindStringSubmatch(line); m != nil {
			current = m[1]
		}
		if m := never.FindString(line); m != "" {
			t.Errorf("as nobody, dbmem %s says %q: %s", cmd, m, line)
		}
		if m := dishonest.FindString(line); m != "" && strings.Contains(current, dataDir) {
			t.Errorf("as nobody, dbmem %s says %q of %s: %s", cmd, m, current, line)
		}
	}
	if !strings.Contains(text, "version unknown") {
		t.Errorf("as nobody, dbmem %s does not say the version is unknown", cmd)
	}
	skipped := regexp.MustCompile(`memory\.worst_case \[` + regexp.QuoteMeta(subject) + `\]: no [^\n]*max_connections`)
	if !skipped.MatchString(strings.Join(strings.Fields(text), " ")) {
		t.Errorf("as nobody, dbmem %s does not list the worst case of %s as skipped for max_connections:\n%s", cmd, subject, text)
	}
}

func honestJSON(t *testing.T, cmd, out, dataDir, subject string) {
	t.Helper()
	var doc struct {
		Findings []finding.Finding
		Skipped  []advise.Skipped
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("dbmem %s: %v\n%s", cmd, err, out)
	}
	for _, f := range doc.Findings {
		if !strings.Contains(f.Subject, dataDir) {
			continue
		}
		if f.Subject != subject {
			t.Errorf("dbmem %s: subject %q, want %q", cmd, f.Subject, subject)
		}
		if f.ID == "memory.worst_case" || f.ID == "pagetables.projected" || f.ID == "memory.cache_share" {
			t.Errorf("dbmem %s: %s on settings that were not read: %s", cmd, f.ID, f.Title)
		}
		if m := dishonest.FindString(f.Title+evidenceText(f)) + never.FindString(f.Title+evidenceText(f)); m != "" {
			t.Errorf("dbmem %s: %s says %q", cmd, f.ID, m)
		}
	}
	for _, s := range doc.Skipped {
		if s.ID == "memory.worst_case" && s.Subject == subject && strings.Contains(strings.Join(s.Missing, " "), "max_connections") {
			return
		}
	}
	t.Errorf("dbmem %s: memory.worst_case of %s not in skipped with max_connections missing: %+v", cmd, subject, doc.Skipped)
}

func findingOn(t *testing.T, out, dataDir, id string) (finding.Finding, bool) {
	t.Helper()
	var doc struct{ Findings []finding.Finding }
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("check --json: %v", err)
	}
	for _, f := range doc.Findings {
		if f.ID == id && strings.Contains(f.Subject, dataDir) {
			return f, true
		}
	}
	return finding.Finding{}, false
}

func evidenceText(f finding.Finding) string {
	var b strings.Builder
	for _, e := range f.Evidence {
		fmt.Fprintf(&b, "%s: %s (%s)\n", e.Name, e.Value, e.Source)
	}
	return b.String()
}
