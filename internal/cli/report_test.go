package cli

import (
	"errors"
	"testing"

	"github.com/dbmem/dbmem/internal/measure"
)

// TestReportMethod: --method values, --fast as an alias of status, and the
// contradictions that are usage errors (exit 2).
func TestReportMethod(t *testing.T) {
	for _, tc := range []struct {
		method    string
		fast, set bool
		want      measure.Method
		usage     bool
	}{
		{"auto", false, false, measure.Auto, false},
		{"smaps", false, true, measure.Smaps, false},
		{"auto", true, false, measure.Status, false},
		{"status", true, true, measure.Status, false},
		{"smaps", true, true, "", true},
		{"exact", false, true, "", true},
	} {
		got, err := reportMethod(tc.method, tc.fast, tc.set)
		var u usageError
		if got != tc.want || errors.As(err, &u) != tc.usage {
			t.Errorf("--method %s --fast=%v: %q, %v", tc.method, tc.fast, got, err)
		}
	}
}
