package history

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"time"
)

// TimePoint is one value at one time.
type TimePoint struct {
	At    time.Time `json:"at"`
	Value float64   `json:"value"`
}

// Series is one recorded quantity over time.
type Series struct {
	Name   string      `json:"name"`
	Labels string      `json:"labels,omitempty"`
	Unit   string      `json:"unit"`
	Points []TimePoint `json:"points"`
}

// FindingSpan is a finding with the first and last tick it was seen on.
type FindingSpan struct {
	ID       string    `json:"id"`
	Subject  string    `json:"subject"`
	Severity string    `json:"severity"`
	Title    string    `json:"title"`
	First    time.Time `json:"first"`
	Last     time.Time `json:"last"`
	Ticks    int       `json:"ticks"`
}

// TickCost is what the ticks of one mode cost.
type TickCost struct {
	Mode    string        `json:"mode"`
	Ticks   int           `json:"ticks"`
	AvgCPU  time.Duration `json:"avg_cpu_ns"`
	MaxCPU  time.Duration `json:"max_cpu_ns"`
	AvgWall time.Duration `json:"avg_wall_ns"`
}

// History is a recorded time range.
type History struct {
	Schema   string        `json:"schema"`
	Path     string        `json:"path"`
	From     time.Time     `json:"from"`
	To       time.Time     `json:"to"`
	Samples  int           `json:"samples"`
	Costs    []TickCost    `json:"costs"`
	Series   []Series      `json:"series"`
	Findings []FindingSpan `json:"findings"`
	// Growing is what Growth found, when the caller asked (dbmem history
	// does): Text and HTML show it.
	Growing []Growing `json:"growing,omitempty"`
	// GrowthWindow is the window Growing was measured over.
	GrowthWindow time.Duration `json:"growth_window_ns,omitempty"`
}

// Load reads what was recorded between from and to (zero times: no bound).
func Load(ctx context.Context, path string, from, to time.Time) (*History, error) {
	f, err := checkPath(path, false)
	if err != nil {
		return nil, err
	}
	if head, err := readHeader(f.path); err == nil && isWAL(head) {
		if err := f.claimSidecars(); err != nil {
			return nil, err
		}
	}
	db, err := openDB(f, true)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	lo, hi := int64(0), int64(1)<<62
	if !from.IsZero() {
		lo = from.UnixMilli()
	}
	if !to.IsZero() {
		hi = to.UnixMilli()
	}
	h := &History{Schema: Schema, Path: path}
	for _, step := range []func(context.Context, *sql.DB, int64, int64) error{h.loadSamples, h.loadSeries, h.loadFindings} {
		if err := step(ctx, db, lo, hi); err != nil {
			return nil, fmt.Errorf("read history %s: %w", path, err)
		}
	}
	return h, nil
}

func (h *History) loadSamples(ctx context.Context, db *sql.DB, lo, hi int64) error {
	var first, last sql.NullInt64
	err := db.QueryRowContext(ctx, `SELECT count(*), min(at_ms), max(at_ms) FROM samples WHERE at_ms BETWEEN ? AND ?`, lo, hi).
		Scan(&h.Samples, &first, &last)
	if err != nil {
		return err
	}
	if first.Valid {
		h.From, h.To = time.UnixMilli(first.Int64).UTC(), time.UnixMilli(last.Int64).UTC()
	}
	return eachRow(ctx, db, `SELECT mode, count(*), avg(cpu_ns), max(cpu_ns), avg(wall_ns)
		FROM samples WHERE at_ms BETWEEN ? AND ? GROUP BY mode ORDER BY mode DESC`, []any{lo, hi}, func(scan scanFunc) error {
		var c TickCost
		var avg, avgWall float64
		var maxCPU int64
		if err := scan(&c.Mode, &c.Ticks, &avg, &maxCPU, &avgWall); err != nil {
			return err
		}
		c.AvgCPU, c.MaxCPU, c.AvgWall = time.Duration(avg), time.Duration(maxCPU), time.Duration(avgWall)
		h.Costs = append(h.Costs, c)
		return nil
	})
}

func (h *History) loadSeries(ctx context.Context, db *sql.DB, lo, hi int64) error {
	err := eachRow(ctx, db, `SELECT r.name, r.labels, r.unit, s.at_ms, p.value
		FROM points p JOIN samples s ON s.id = p.sample_id JOIN series r ON r.id = p.series_id
		WHERE s.at_ms BETWEEN ? AND ? ORDER BY r.id, s.at_ms`, []any{lo, hi}, func(scan scanFunc) error {
		var name, labels, unit string
		var at int64
		var v float64
		if err := scan(&name, &labels, &unit, &at, &v); err != nil {
			return err
		}
		n := len(h.Series)
		if n == 0 || h.Series[n-1].Name != name || h.Series[n-1].Labels != labels {
			h.Series = append(h.Series, Series{Name: name, Labels: labels, Unit: unit})
			n++
		}
		h.Series[n-1].Points = append(h.Series[n-1].Points, TimePoint{time.UnixMilli(at).UTC(), v})
		return nil
	})
	sort.SliceStable(h.Series, func(i, j int) bool { return seriesOrder(h.Series[i]) < seriesOrder(h.Series[j]) })
	return err
}

func (h *History) loadFindings(ctx context.Context, db *sql.DB, lo, hi int64) error {
	return eachRow(ctx, db, `SELECT id, subject, severity, title, first_ms, last_ms, ticks
		FROM findings WHERE last_ms >= ? AND first_ms <= ? ORDER BY first_ms, id`, []any{lo, hi}, func(scan scanFunc) error {
		var f FindingSpan
		var first, last int64
		if err := scan(&f.ID, &f.Subject, &f.Severity, &f.Title, &first, &last, &f.Ticks); err != nil {
			return err
		}
		f.First, f.Last = time.UnixMilli(first).UTC(), time.UnixMilli(last).UTC()
		h.Findings = append(h.Findings, f)
		return nil
	})
}

// scanFunc is sql.Rows.Scan of the current row.
type scanFunc func(dest ...any) error

// eachRow runs query and calls fn for each row, stopping at its first error.
func eachRow(ctx context.Context, db *sql.DB, query string, args []any, fn func(scan scanFunc) error) error {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows.Scan); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Find returns the series with the name and labels.
func (h *History) Find(name, labels string) (Series, bool) {
	for _, s := range h.Series {
		if s.Name == name && s.Labels == labels {
			return s, true
		}
	}
	return Series{}, false
}
