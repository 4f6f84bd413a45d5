package dblog

import "flag"

// record rewrites fixtures from live captures (go test -run Live -record, as root).
var record = flag.Bool("record", false, "record live logs into testdata")

// Recording says -record was given, for the external live tests
// (package dblog_test: they start servers through internal/pgcluster/pgtest, which
// imports packages that import dblog).
func Recording() bool { return *record }
