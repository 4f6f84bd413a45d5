package postgres

import (
	"slices"
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/units"
)

// Source says where a setting's value came from.
type Source string

// Sources, from most to least trustworthy for a running server.
const (
	FromServer      Source = "server"      // read over SQL from the running server
	FromCommandLine Source = "commandline" // postmaster -c / postmaster.opts
	FromConfigFile  Source = "config"      // postgresql.conf or an included file
	FromAutoConf    Source = "autoconf"    // postgresql.auto.conf (ALTER SYSTEM)
	FromDefault     Source = "default"     // PostgreSQL's built-in default for the version
)

// Setting is one configuration parameter.
type Setting struct {
	Value  string  `json:"value"`           // as SHOW prints it, or as written in the file
	Bytes  *uint64 `json:"bytes,omitempty"` // memory settings converted to bytes
	Source Source  `json:"source"`
	File   string  `json:"file,omitempty"` // config file and line, when from a file
}

// Settings maps parameter names to values.
type Settings map[string]Setting

// SettingNames are the parameters dbmem reads.
var SettingNames = []string{
	"server_version", "server_version_num", "cluster_name", "data_directory", "port",
	"shared_buffers", "max_connections", "superuser_reserved_connections",
	"work_mem", "hash_mem_multiplier", "maintenance_work_mem", "autovacuum_work_mem",
	"autovacuum_max_workers", "max_worker_processes", "max_parallel_workers",
	"max_parallel_workers_per_gather", "max_parallel_maintenance_workers",
	"temp_buffers", "wal_buffers", "max_locks_per_transaction", "max_pred_locks_per_transaction",
	"max_prepared_transactions", "max_wal_senders", "max_replication_slots",
	"logical_decoding_work_mem", "huge_pages", "huge_page_size", "shared_memory_type",
	"dynamic_shared_memory_type", "min_dynamic_shared_memory",
	"shared_memory_size", "shared_memory_size_in_huge_pages", "huge_pages_status",
	"jit", "shared_preload_libraries", "effective_cache_size", "update_process_title",
	"config_file", "unix_socket_directories", "listen_addresses", "log_destination", "logging_collector", "log_directory", "log_filename",
	"log_line_prefix", "log_timezone", "restart_after_crash", "io_method", "io_workers", "log_temp_files",
}

// isKnownSetting reports whether name is in SettingNames.
func isKnownSetting(name string) bool { return slices.Contains(SettingNames, name) }

// baseUnits are the units of bare numbers for memory settings.
var baseUnits = map[string]string{
	"shared_buffers": "8kB", "wal_buffers": "8kB", "temp_buffers": "8kB", "effective_cache_size": "8kB",
	"work_mem": "kB", "maintenance_work_mem": "kB", "autovacuum_work_mem": "kB",
	"logical_decoding_work_mem": "kB", "huge_page_size": "kB", "min_dynamic_shared_memory": "MB",
	"shared_memory_size": "MB",
}

// BaseUnit is the unit of a bare number for a memory setting ("8kB" for
// shared_buffers, "kB" for work_mem).
func BaseUnit(name string) (string, bool) { u, ok := baseUnits[name]; return u, ok }

// Bytes returns a memory setting in bytes.
func (s Settings) Bytes(name string) (uint64, bool) {
	v, ok := s[name]
	if !ok || v.Bytes == nil {
		return 0, false
	}
	return *v.Bytes, true
}

// Int returns an integer setting.
func (s Settings) Int(name string) (int64, bool) {
	v, err := strconv.ParseInt(strings.TrimSpace(s[name].Value), 10, 64)
	return v, err == nil
}

// Float returns a real-valued setting (hash_mem_multiplier).
func (s Settings) Float(name string) (float64, bool) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s[name].Value), 64)
	return v, err == nil
}

// Bool returns a boolean setting as PostgreSQL reads it (on/off, true/false,
// yes/no, 1/0 and unique prefixes).
func (s Settings) Bool(name string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(s[name].Value)) {
	case "on", "true", "yes", "1", "t", "y", "tr", "tru", "ye":
		return true, true
	case "off", "false", "no", "0", "f", "n", "of", "fa", "fal", "fals":
		return false, true
	}
	return false, false
}

// String returns the value as written, "" when unknown.
func (s Settings) String(name string) string { return s[name].Value }

// set stores a value, converting memory settings to bytes.
func (s Settings) set(name, value string, src Source, file string) {
	if !isKnownSetting(name) {
		return
	}
	st := Setting{Value: value, Source: src, File: file}
	if unit, ok := baseUnits[name]; ok {
		if b, err := units.ParsePG(value, unit); err == nil {
			st.Bytes = &b
		}
	}
	s[name] = st
}

// Defaults returns PostgreSQL's built-in defaults for a major version, for
// the settings dbmem reads, when nothing else sets them.
func Defaults(major int) Settings {
	d := Settings{}
	for name, v := range map[string]string{
		"shared_buffers": "128MB", "max_connections": "100", "superuser_reserved_connections": "3",
		"work_mem": "4MB", "maintenance_work_mem": "64MB", "autovacuum_work_mem": "-1",
		"autovacuum_max_workers": "3", "max_worker_processes": "8", "max_parallel_workers": "8",
		"max_parallel_workers_per_gather": "2", "max_parallel_maintenance_workers": "2",
		"temp_buffers": "8MB", "wal_buffers": "-1", "max_locks_per_transaction": "64",
		"max_pred_locks_per_transaction": "64", "max_prepared_transactions": "0",
		"max_wal_senders": "10", "max_replication_slots": "10", "logical_decoding_work_mem": "64MB",
		"huge_pages": "try", "shared_memory_type": "mmap", "dynamic_shared_memory_type": "posix",
		"jit": "on", "effective_cache_size": "4GB", "update_process_title": "on",
		"hash_mem_multiplier": hashMemDefault(major), "huge_page_size": "0", "min_dynamic_shared_memory": "0",
	} {
		d.set(name, v, FromDefault, "")
	}
	if major > 0 && major < 11 {
		d.set("jit", "off", FromDefault, "")
	}
	return d
}

// hashMemDefault: hash_mem_multiplier appeared in 13 with 1.0 and became 2.0
// in 15; before 13 hashes were bounded by work_mem alone.
func hashMemDefault(major int) string {
	if major > 0 && major < 15 {
		return "1.0"
	}
	return "2.0"
}
