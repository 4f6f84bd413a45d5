// Package history records `dbmem watch` frames in an embedded SQLite
// database (modernc.org/sqlite: pure Go, no cgo) with retention, and reads
// them back as series for `dbmem history`: a text summary with sparklines
// and a self-contained HTML page of inline-SVG charts.
//
// The file is ordinary SQLite: samples (one row per tick), series (a name
// and labels), points (a value per series and sample) and findings (first
// and last time each was seen). Anyone can query it with sqlite3.
package history
