package pgcluster

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Pgbench runs pgbench against the cluster's unix socket as the "postgres"
// user on database "postgres", with args before the connection options, and
// returns its standard output.
func (c *Cluster) Pgbench(ctx context.Context, args ...string) (string, error) {
	all := append(append([]string{}, args...),
		"-h", c.SocketDir, "-p", strconv.Itoa(c.Port), "-U", "postgres", "postgres")
	return c.run(ctx, "pgbench", all...)
}

// PgbenchAccountsPerScale is the number of pgbench_accounts rows per unit of
// pgbench's scale factor.
const PgbenchAccountsPerScale = 100000

// PgbenchResult is what a pgbench run printed.
type PgbenchResult struct {
	// TPS excludes the time to establish connections.
	TPS          float64 `json:"tps"`
	Transactions int64   `json:"transactions"`
	Clients      int     `json:"clients"`
	Failed       int64   `json:"failed"`
}

// ParsePgbench reads pgbench's summary. PostgreSQL 14+ prints
// "tps = N (without initial connection time)"; older versions print one
// line "including connections establishing" and one "excluding": the
// excluding one is used.
func ParsePgbench(out string) (PgbenchResult, error) {
	var r PgbenchResult
	found := false
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		key, val, ok := strings.Cut(line, ":")
		if ok {
			parsePgbenchField(&r, key, strings.TrimSpace(val))
			continue
		}
		if tps, ok := parseTPSLine(line); ok {
			r.TPS, found = tps, true
		}
	}
	if !found {
		return r, fmt.Errorf("pgbench output has no \"tps = \" line without connection time: %q", tail(out, 200))
	}
	return r, nil
}

func parsePgbenchField(r *PgbenchResult, key, val string) {
	first, _, _ := strings.Cut(val, " ")
	switch key {
	case "number of transactions actually processed":
		n, _, _ := strings.Cut(first, "/")
		r.Transactions, _ = strconv.ParseInt(n, 10, 64)
	case "number of clients":
		r.Clients, _ = strconv.Atoi(first)
	case "number of failed transactions":
		r.Failed, _ = strconv.ParseInt(first, 10, 64)
	}
}

// parseTPSLine reads "tps = 1234.5 (without initial connection time)" or
// "tps = 1234.5 (excluding connections establishing)".
func parseTPSLine(line string) (float64, bool) {
	rest, ok := strings.CutPrefix(line, "tps = ")
	if !ok || !(strings.Contains(rest, "without initial connection") || strings.Contains(rest, "excluding")) {
		return 0, false
	}
	num, _, _ := strings.Cut(rest, " ")
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || !(v >= 0) || math.IsInf(v, 1) {
		return 0, false
	}
	return v, true
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
