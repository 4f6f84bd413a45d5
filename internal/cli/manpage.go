package cli

import "github.com/spf13/cobra"

// ExitCode is one exit status of a command and what it means.
type ExitCode struct {
	Code    int
	Meaning string
}

// exitMeanings are the exit codes every command shares, and those of the
// commands that have more (the man pages' EXIT STATUS).
var (
	commonExits = []ExitCode{
		{ExitOK, "success"},
		{ExitError, "error: what failed is said on standard error"},
		{ExitUsage, "usage error: an unknown flag, a missing or invalid value"},
	}
	moreExits = map[string][]ExitCode{
		"dbmem check":           {{ExitFindings, "a finding at or above the severity given with --exit-code"}},
		"dbmem lab budget":      {{ExitFindings, "a check failed: the dbmem run had an OOM kill, a peak above its budget, no fewer temp bytes than uniform-small, or a refused connection or failed query"}},
		"dbmem apply":           {{ExitRefused, "refused: a change would make the host worse, or another apply or rollback holds the lock; nothing was changed"}},
		"dbmem pooler":          {{ExitRefused, "pooler set, pooler rollback: refused, another apply or rollback runs; nothing was changed"}},
		"dbmem pooler set":      {{ExitRefused, "refused: another apply or rollback holds the lock; nothing was changed"}},
		"dbmem pooler rollback": {{ExitRefused, "refused: another apply or rollback holds the lock; nothing was changed"}},
		"dbmem rollback":        {{ExitRefused, "refused: a value or file cannot be restored safely, or another apply or rollback holds the lock; nothing was changed"}},
	}
	// rootExits are the codes only some commands use, on dbmem's own page.
	rootExits = []ExitCode{
		{ExitFindings, "check: a finding at or above the severity given with --exit-code; lab budget: a check failed"},
		{ExitRefused, "apply, rollback, pooler set, pooler rollback: refused, nothing was changed"},
	}
)

// ExitCodes are the exit statuses of cmd; dbmem's own page lists every
// command's.
func ExitCodes(cmd *cobra.Command) []ExitCode {
	out := append([]ExitCode(nil), commonExits...)
	if !cmd.HasParent() {
		return append(out, rootExits...)
	}
	return append(out, moreExits[cmd.CommandPath()]...)
}

// examples are the EXAMPLES of the commands that do not carry their own
// (cobra's Example, shown by --help too).
var examples = map[string]string{
	"dbmem": `  dbmem report                 # where the memory goes, per instance and process
  dbmem check --exit-code warning
  dbmem plan && dbmem apply    # what to set, then the changes it would make
  dbmem watch --record /var/lib/dbmem/watch.db`,
	"dbmem report": `  dbmem report
  dbmem report --top 20 --method smaps
  dbmem report --json > report.json
  dbmem report --from dbmem-db1-20250301T120000Z.tar.gz`,
	"dbmem check": `  dbmem check
  dbmem check --min-severity warning
  dbmem check --exit-code critical || echo "fix this host first"
  dbmem check --shared-host --json`,
	"dbmem watch": `  dbmem watch
  dbmem watch --interval 5s --top 20
  dbmem watch --count 60 --interval 1s --json > ticks.json
  dbmem watch --record /var/lib/dbmem/watch.db --retention 168h`,
	"dbmem history": `  dbmem history /var/lib/dbmem/watch.db
  dbmem history --since 2h /var/lib/dbmem/watch.db
  dbmem history --since 2025-03-01T10:00:00Z --until 2025-03-01T11:00:00Z --html incident.html watch.db`,
	"dbmem exporter": `  dbmem exporter
  dbmem exporter --web.listen-address=:9815 --web.config.file=/etc/dbmem/web-config.yml
  dbmem exporter --smaps-interval=1m --oom-top=10
  curl -s localhost:9815/metrics | grep ^dbmem_postgres`,
	"dbmem postmortem": `  dbmem postmortem
  dbmem postmortem --since 24h --last 3
  dbmem postmortem --kernel-log /var/log/kern.log --db-log /var/log/postgresql/postgresql-15-main.log
  dbmem postmortem --from dbmem-db1-20250301T120000Z.tar.gz`,
	"dbmem pooler": `  dbmem report                 # the POOLERS section: pools and the server connections they may open
  dbmem pooler set default_pool_size=15
  dbmem pooler set default_pool_size=15 --yes
  dbmem pooler rollback --yes`,
	"dbmem pooler rollback": `  dbmem pooler rollback
  dbmem pooler rollback --yes
  dbmem pooler rollback --pid 4242 --id 20250301T120000.000Z --yes`,
	"dbmem capture": `  dbmem capture
  dbmem capture -o /tmp/db1.tar.gz --fast
  dbmem report --from /tmp/db1.tar.gz`,
}

// addExamples gives the commands without examples theirs.
func addExamples(c *cobra.Command) {
	if c.Example == "" {
		c.Example = examples[c.CommandPath()]
	}
	for _, sub := range c.Commands() {
		addExamples(sub)
	}
}
