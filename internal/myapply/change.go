package myapply

import (
	"fmt"
	"regexp"
	"strings"
)

// dynamic are the variables dbmem sets with SET GLOBAL: those its plans
// propose that the server changes without a restart (and only those: the
// name is written into the statement, so it comes from this list).
var dynamic = map[string]bool{
	"max_connections": true, "sort_buffer_size": true, "join_buffer_size": true, "read_buffer_size": true,
	"read_rnd_buffer_size": true, "tmp_table_size": true, "max_heap_table_size": true, "binlog_cache_size": true,
	"temptable_max_ram": true, "connection_memory_limit": true, "global_connection_memory_tracking": true,
}

// value accepts a number (bytes or a count) or ON/OFF: nothing else is
// written into a statement.
var value = regexp.MustCompile(`^([0-9]{1,20}|ON|OFF)$`)

// Change is one variable: its value before, the value asked for, and what
// the server showed after.
type Change struct {
	Name string `json:"name"`
	Old  string `json:"old"`
	New  string `json:"new"`
	Got  string `json:"got,omitempty"`
	Done bool   `json:"done"`
}

// Plan splits settings (name=value) into the changes made live and the
// variables that need a restart (those read only at start, and any dbmem
// does not set live: the [mysqld] drop-in carries them); a value of a
// dynamic variable that is not a number or ON/OFF is refused, naming it.
func Plan(settings map[string]string) (live []Change, restart []string, err error) {
	for _, name := range sortedNames(settings) {
		v := strings.ToUpper(strings.TrimSpace(settings[name]))
		n := strings.ToLower(strings.ReplaceAll(name, "-", "_"))
		switch {
		case dynamic[n] && !value.MatchString(v):
			return nil, nil, fmt.Errorf("mysql %s=%q: not a number of bytes or ON/OFF: give the value in bytes (134217728, not 128M)", name, settings[name])
		case dynamic[n]:
			live = append(live, Change{Name: n, New: v})
		default:
			restart = append(restart, n)
		}
	}
	return live, restart, nil
}
