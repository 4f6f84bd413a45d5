package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/dbmem/dbmem/internal/watch"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver, registered as "sqlite"
)

// pruneEvery is how often Add applies the retention.
const pruneEvery = 10 * time.Minute

// Store is a history file open for recording. Not safe for concurrent use.
type Store struct {
	db        *sql.DB
	path      string
	retention time.Duration
	series    map[string]int64 // name + "\x00" + labels -> id
	lastPrune time.Time
}

// Open opens (creating if needed) the history file at path. Retention,
// when positive, deletes samples older than that on open and every ten
// minutes of recording. A file that is not dbmem's (another program's
// SQLite database, or not SQLite) is refused and left untouched.
func Open(path string, retention time.Duration) (*Store, error) {
	f, err := checkPath(path, true)
	if err != nil {
		return nil, err
	}
	if err := checkOwn(f); err != nil {
		return nil, err
	}
	if err := f.claimSidecars(); err != nil {
		return nil, err
	}
	db, err := openDB(f, false)
	if err != nil {
		return nil, err
	}
	s := &Store{db: db, path: path, retention: retention, series: map[string]int64{}}
	if err := s.init(); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// openDB opens the checked file with WAL (a reader such as `dbmem history`
// does not block the recorder) and a busy timeout. A new file is made a
// WAL database with its first change journaled in memory: SQLite then
// never creates a rollback journal next to it.
func openDB(f historyFile, readOnly bool) (*sql.DB, error) {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(5000)")
	if readOnly {
		q.Add("mode", "ro")
	} else {
		if f.isNew {
			q.Add("_pragma", "journal_mode(MEMORY)")
		}
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "synchronous(NORMAL)")
		q.Add("_pragma", "auto_vacuum(INCREMENTAL)")
	}
	db, err := sql.Open("sqlite", f.uri(q.Encode()))
	if err != nil {
		return nil, fmt.Errorf("open history %s: %w", f.path, err)
	}
	db.SetMaxOpenConns(1)
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, fmt.Errorf("open history %s: %w (is it an SQLite file written by dbmem watch --record?)", f.path, err)
	}
	if err := f.sameAsOpened(); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

func (s *Store) init() error {
	for _, q := range ddl {
		if _, err := s.db.Exec(q); err != nil {
			return fmt.Errorf("create tables in %s: %w", s.path, err)
		}
	}
	var v string
	err := s.db.QueryRow(`SELECT value FROM meta WHERE key = 'schema'`).Scan(&v)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		_, err = s.db.Exec(`INSERT INTO meta (key, value) VALUES ('schema', ?), ('created', ?)`,
			Schema, time.Now().UTC().Format(time.RFC3339))
	case err == nil && v != Schema:
		return fmt.Errorf("%s holds %s, this dbmem writes %s: record into a new file", s.path, v, Schema)
	}
	if err != nil {
		return fmt.Errorf("read meta of %s: %w", s.path, err)
	}
	if _, err := s.db.Exec(fmt.Sprintf(`PRAGMA application_id = %d`, ApplicationID)); err != nil {
		return fmt.Errorf("mark %s as dbmem's: %w", s.path, err)
	}
	return s.Prune(time.Now())
}

// Close closes the file.
func (s *Store) Close() error { return s.db.Close() }

// Add records one frame in one transaction.
func (s *Store) Add(f watch.Frame) error {
	tx, err := s.db.Begin()
	if err != nil {
		return fmt.Errorf("record into %s: %w", s.path, err)
	}
	defer tx.Rollback()
	if err := s.addFrame(tx, f); err != nil {
		return fmt.Errorf("record into %s: %w", s.path, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("record into %s: %w", s.path, err)
	}
	if f.At.Sub(s.lastPrune) >= pruneEvery {
		return s.Prune(f.At)
	}
	return nil
}

func (s *Store) addFrame(tx *sql.Tx, f watch.Frame) error {
	res, err := tx.Exec(`INSERT INTO samples (at_ms, mode, cpu_ns, wall_ns) VALUES (?, ?, ?, ?)`,
		f.At.UnixMilli(), f.Mode, int64(f.Cost.CPU), int64(f.Cost.Wall))
	if err != nil {
		return err
	}
	sample, err := res.LastInsertId()
	if err != nil {
		return err
	}
	for _, p := range PointsOf(f) {
		id, err := s.seriesID(tx, p)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(`INSERT INTO points (sample_id, series_id, value) VALUES (?, ?, ?)`, sample, id, p.Value); err != nil {
			return err
		}
	}
	return addFindings(tx, f)
}

func (s *Store) seriesID(tx *sql.Tx, p Point) (int64, error) {
	k := p.Name + "\x00" + p.Labels
	if id, ok := s.series[k]; ok {
		return id, nil
	}
	_, err := tx.Exec(`INSERT INTO series (name, labels, unit) VALUES (?, ?, ?) ON CONFLICT (name, labels) DO NOTHING`,
		p.Name, p.Labels, p.Unit)
	if err != nil {
		return 0, err
	}
	var id int64
	if err := tx.QueryRow(`SELECT id FROM series WHERE name = ? AND labels = ?`, p.Name, p.Labels).Scan(&id); err != nil {
		return 0, err
	}
	s.series[k] = id
	return id, nil
}

func addFindings(tx *sql.Tx, f watch.Frame) error {
	at := f.At.UnixMilli()
	for _, fd := range f.Findings {
		_, err := tx.Exec(`INSERT INTO findings (id, subject, severity, title, first_ms, last_ms, ticks)
			VALUES (?, ?, ?, ?, ?, ?, 1)
			ON CONFLICT (id, subject) DO UPDATE SET severity = excluded.severity, title = excluded.title,
				last_ms = excluded.last_ms, ticks = ticks + 1`,
			fd.ID, fd.Subject, fd.Severity.String(), fd.Title, at, at)
		if err != nil {
			return err
		}
	}
	return nil
}

// Prune deletes what is older than the retention before now, and gives the
// freed pages back to the file system.
func (s *Store) Prune(now time.Time) error {
	s.lastPrune = now
	if s.retention <= 0 {
		return nil
	}
	cut := now.Add(-s.retention).UnixMilli()
	ctx := context.Background()
	for _, q := range []string{
		`DELETE FROM points WHERE sample_id <= (SELECT max(id) FROM samples WHERE at_ms < ?1)`,
		`DELETE FROM samples WHERE at_ms < ?1`,
		`DELETE FROM findings WHERE last_ms < ?1`,
		`DELETE FROM series WHERE id NOT IN (SELECT DISTINCT series_id FROM points)`,
		`PRAGMA incremental_vacuum`,
	} {
		if _, err := s.db.ExecContext(ctx, q, cut); err != nil {
			return fmt.Errorf("apply retention to %s: %w", s.path, err)
		}
	}
	s.series = map[string]int64{}
	return nil
}
