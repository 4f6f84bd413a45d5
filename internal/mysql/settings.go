package mysql

import (
	"strconv"
)

// Source says where a setting's value came from.
type Source string

// Sources, weakest first.
const (
	FromDefault     Source = "default"
	FromConfigFile  Source = "config file"
	FromCommandLine Source = "command line"
	FromServer      Source = "server" // SHOW GLOBAL VARIABLES
)

// Setting is one server variable.
type Setting struct {
	Value  string `json:"value"`
	Source Source `json:"source"`
	File   string `json:"file,omitempty"` // the option file, for FromConfigFile
}

// Settings are server variables by normalised name (NormalizeName).
type Settings map[string]Setting

func (s Settings) set(name, value string, src Source, file string) {
	s[NormalizeName(name)] = Setting{Value: value, Source: src, File: file}
}

// String returns a variable's value.
func (s Settings) String(name string) (string, bool) {
	v, ok := s[name]
	return v.Value, ok
}

// Bytes returns a size variable in bytes ("1G" or "1073741824").
func (s Settings) Bytes(name string) (uint64, bool) {
	v, ok := s[name]
	if !ok {
		return 0, false
	}
	b, err := ParseBytes(v.Value)
	return b, err == nil
}

// Int returns an integer variable.
func (s Settings) Int(name string) (int64, bool) {
	v, ok := s[name]
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(v.Value, 10, 64)
	return n, err == nil
}

// Bool returns an ON/OFF variable.
func (s Settings) Bool(name string) (bool, bool) {
	v, ok := s[name]
	if !ok {
		return false, false
	}
	b, err := ParseBool(v.Value)
	return b, err == nil
}

// Defaults are the built-in values of the variables dbmem uses, for
// MariaDB 10.11 and MySQL 8.0/8.4 (from their documentation), used when
// neither the server nor a config file says otherwise.
func Defaults(flavor Flavor) Settings {
	s := Settings{}
	common := map[string]string{
		"innodb_buffer_pool_size": "134217728", "innodb_log_buffer_size": "16777216",
		"tmp_table_size": "16777216", "max_heap_table_size": "16777216", "max_connections": "151",
		"join_buffer_size": "262144", "read_buffer_size": "131072", "read_rnd_buffer_size": "262144",
		"binlog_cache_size": "32768", "binlog_stmt_cache_size": "32768", "net_buffer_length": "16384",
		"large_pages": "OFF", "innodb_buffer_pool_chunk_size": "134217728", "port": "3306",
	}
	own := map[Flavor]map[string]string{
		MariaDB: {"key_buffer_size": "134217728", "query_cache_size": "1048576", "query_cache_type": "OFF",
			"sort_buffer_size": "2097152", "thread_stack": "299008", "max_allowed_packet": "16777216",
			"performance_schema": "OFF", "aria_pagecache_buffer_size": "134217728"},
		MySQL: {"key_buffer_size": "8388608", "sort_buffer_size": "262144", "thread_stack": "1048576",
			"max_allowed_packet": "67108864", "performance_schema": "ON"},
	}
	for k, v := range common {
		s.set(k, v, FromDefault, "")
	}
	for k, v := range own[flavor] {
		s.set(k, v, FromDefault, "")
	}
	return s
}
