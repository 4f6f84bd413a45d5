package history

// Schema versions the database layout; it is stored in meta.
const Schema = "dbmem.history/v1"

// ddl creates the tables. Sample ids grow with time, so retention deletes
// a range of the points' primary key.
var ddl = []string{
	`CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
	`CREATE TABLE IF NOT EXISTS samples (
		id      INTEGER PRIMARY KEY,
		at_ms   INTEGER NOT NULL,  -- Unix time in milliseconds
		mode    TEXT NOT NULL,     -- status, discover or smaps
		cpu_ns  INTEGER NOT NULL,  -- CPU time the tick cost
		wall_ns INTEGER NOT NULL
	)`,
	`CREATE INDEX IF NOT EXISTS samples_at ON samples (at_ms)`,
	`CREATE TABLE IF NOT EXISTS series (
		id     INTEGER PRIMARY KEY,
		name   TEXT NOT NULL,      -- mem_available_bytes, private_bytes, ...
		labels TEXT NOT NULL,      -- "" or "port=5432 data_dir=/var/lib/..."
		unit   TEXT NOT NULL,      -- bytes, pages/s, count
		UNIQUE (name, labels)
	)`,
	`CREATE TABLE IF NOT EXISTS points (
		sample_id INTEGER NOT NULL,
		series_id INTEGER NOT NULL,
		value     REAL NOT NULL,
		PRIMARY KEY (sample_id, series_id)
	) WITHOUT ROWID`,
	`CREATE INDEX IF NOT EXISTS points_series ON points (series_id, sample_id)`,
	`CREATE TABLE IF NOT EXISTS findings (
		id       TEXT NOT NULL,
		subject  TEXT NOT NULL,
		severity TEXT NOT NULL,
		title    TEXT NOT NULL,
		first_ms INTEGER NOT NULL,
		last_ms  INTEGER NOT NULL,
		ticks    INTEGER NOT NULL,
		PRIMARY KEY (id, subject)
	)`,
}
