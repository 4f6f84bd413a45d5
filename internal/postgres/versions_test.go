package postgres_test

import (
	"testing"

	"github.com/dbmem/dbmem/internal/postgres"
)

// TestVersionsTitles reads the process titles PostgreSQL 16, 17 and 18 set
// (recorded from the servers internal/snapshot's TestVersionsSnapshot
// starts, trailing padding included) without pg_stat_activity.
func TestVersionsTitles(t *testing.T) {
	tests := []struct {
		title string
		role  postgres.Role
	}{
		{"postgres: logger  ", postgres.RoleLogger},
		{"postgres: 16/main: logger ", postgres.RoleLogger},
		{"postgres: logger process   ", postgres.RoleLogger},
		{"postgres: io worker 2 ", postgres.RoleIOWorker},
		{"postgres: walsummarizer   ", postgres.RoleWalSummary},
		{"postgres: checkpointer   ", postgres.RoleCheckpointer},
		{"postgres: archiver last was 000000010000000000000001", postgres.RoleArchiver},
		{"postgres: logical replication launcher ", postgres.RoleLRLauncher},
		{"postgres: slotsync worker ", postgres.RoleSlotSync},
		// A role's name must be a whole word: these are client backends.
		{"postgres: loggerapp shop [local] idle", postgres.RoleClient},
		{"postgres: startups crm 10.0.0.7(41234) idle", postgres.RoleClient},
	}
	for _, tc := range tests {
		if got := postgres.ParseTitle(tc.title, ""); got.Role != tc.role {
			t.Errorf("ParseTitle(%q) = %+v, want role %q", tc.title, got, tc.role)
		}
	}
}
