package dblog

import (
	"regexp"
	"strings"
)

// Engines a log can be from.
const (
	EnginePostgres = "postgresql"
	EngineMySQL    = "mysql"
	EngineOracle   = "oracle"
)

// Detection is what a log's content says about the engine that wrote it.
type Detection struct {
	// Engine is EnginePostgres, EngineMySQL, EngineOracle, or "" when no
	// line of the first detectLines is one of theirs.
	Engine string
	// Tried are the first non-empty lines read, for the report of a log
	// nothing recognised (as printed: print them inert).
	Tried []string
}

// detectLines bounds the lines read to detect an engine.
const detectLines = 400

var (
	pgDetectRe = regexp.MustCompile(`(?:^|[^A-Za-z])(?:LOG|ERROR|FATAL|PANIC|WARNING|DETAIL|STATEMENT|HINT|CONTEXT): {1,2}\S|^\s*\{"timestamp":|` +
		`could not setup io_uring queue|^[A-Za-z ]*MemoryContext: \d+ total in \d+ blocks?;`)
	mysqlDetectRe = regexp.MustCompile(`\[(?:Note|Warning|ERROR|System|Error)\]|mysqld_safe |\bInnoDB: |\[MY-\d{6}\]|mysqld got signal|\bmariadbd?\b.*(?:starting as process|ready for connections)`)
	oraDetectRe   = regexp.MustCompile(`\bORA-\d{5}\b|^Errors in file \S+\.trc|Instance terminated by|terminating (?:the )?instance due to error`)
)

// Detect says which engine wrote a log, from its first lines: the engine
// with the most lines of its own (PostgreSQL's severities, MySQL's
// bracketed levels and InnoDB lines, Oracle's ORA- codes and trace
// files). Nothing is assumed: a log none of them recognise has Engine "".
func Detect(text []byte) Detection {
	var d Detection
	score := map[string]int{}
	lines := strings.SplitN(string(text[:min(len(text), 256<<10)]), "\n", detectLines+1)
	for _, l := range lines[:min(len(lines), detectLines)] {
		l = strings.TrimRight(l, "\r")
		if strings.TrimSpace(l) != "" && len(d.Tried) < 3 {
			d.Tried = append(d.Tried, l[:min(len(l), 200)])
		}
		switch {
		case oraDetectRe.MatchString(l):
			score[EngineOracle] += 2 // ORA- codes are Oracle's alone
		case mysqlDetectRe.MatchString(l):
			score[EngineMySQL]++
		case pgDetectRe.MatchString(l):
			score[EnginePostgres]++
		}
	}
	best := 0
	for _, e := range []string{EnginePostgres, EngineMySQL, EngineOracle} {
		if score[e] > best {
			d.Engine, best = e, score[e]
		}
	}
	return d
}
