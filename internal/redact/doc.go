// Package redact removes secrets from text that leaves the host or reaches
// a screen: other processes' command lines (Args, Cmdline), configuration
// files and SQL (Secrets). Database logs are redacted by internal/logredact
// on top of it; redact itself imports no log parser, so linux may use it.
//
// It is the one redaction used everywhere: a process title in report,
// check, watch and the exporter (linux.ReadProcess keeps it redacted), the
// JSON outputs, and capture's bundle. Each function applied twice changes
// nothing more, so a redacted bundle replays to the same titles.
package redact
