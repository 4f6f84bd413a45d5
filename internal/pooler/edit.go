package pooler

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/linux"
)

// Change is one pool setting to write into a pgbouncer.ini: a [pgbouncer]
// key (Database "") or a key of one [databases] entry.
type Change struct {
	Database string `json:"database,omitempty"`
	Key      string `json:"key"`
	Value    int    `json:"value"`
}

func (c Change) String() string {
	if c.Database != "" {
		return fmt.Sprintf("%s.%s=%d", c.Database, c.Key, c.Value)
	}
	return fmt.Sprintf("%s=%d", c.Key, c.Value)
}

// The keys dbmem writes: pool sizes and caps, nothing that names a file,
// a host, a user or a password.
var (
	globalKeys   = map[string]bool{"default_pool_size": true, "min_pool_size": true, "reserve_pool_size": true, "max_db_connections": true, "max_user_connections": true}
	databaseKeys = map[string]bool{"pool_size": true, "min_pool_size": true, "reserve_pool": true, "max_db_connections": true}
)

// maxPoolValue bounds what dbmem writes: PostgreSQL's own max_connections
// tops out at 262143.
const maxPoolValue = 262143

// ParseChange reads "key=N" or "database.key=N" (the database name may not
// hold a dot; such a database is not edited by name).
func ParseChange(arg string) (Change, error) {
	k, v, ok := strings.Cut(arg, "=")
	if !ok {
		return Change{}, fmt.Errorf("%q: want key=N or database.key=N", arg)
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 || n > maxPoolValue {
		return Change{}, fmt.Errorf("%q: the value must be a whole number from 0 to %d", arg, maxPoolValue)
	}
	c := Change{Key: strings.TrimSpace(k), Value: n}
	if db, key, ok := strings.Cut(c.Key, "."); ok {
		c.Database, c.Key = db, key
	}
	switch {
	case c.Database == "" && !globalKeys[c.Key]:
		return Change{}, fmt.Errorf("%q: dbmem writes only %s in [pgbouncer]", arg, keyList(globalKeys))
	case c.Database != "" && !databaseKeys[c.Key]:
		return Change{}, fmt.Errorf("%q: dbmem writes only %s of a [databases] entry", arg, keyList(databaseKeys))
	}
	return c, nil
}

func keyList(m map[string]bool) string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sortStrings(out)
	return strings.Join(out, ", ")
}

// edit is the line of a file a change rewrites (Line 0: insert after
// AfterLine, the [pgbouncer] header).
type edit struct {
	File      string
	Line      int
	AfterLine int
	Change    Change
}

// placeChanges finds, in the loaded configuration, the line each change
// rewrites: the last line that sets the key (the one PgBouncer keeps),
// else, for a [pgbouncer] key, a new line after the section's first
// header. A database must have its line.
func placeChanges(l loaded, changes []Change) ([]edit, error) {
	var out []edit
	for _, c := range changes {
		e, err := place(l, c)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

func place(l loaded, c Change) (edit, error) {
	section, last, header := "", located{}, located{}
	for _, it := range l.Items {
		switch {
		case it.Kind == itemSection:
			section = it.Name
			if section == "pgbouncer" && header.File == "" {
				header = it
			}
		case section == "pgbouncer" && c.Database == "" && it.Name == c.Key:
			last = it
		case section == "databases" && c.Database != "" && it.Name == c.Database:
			last = it
		}
	}
	switch {
	case last.File != "":
		return edit{File: last.File, Line: last.Line, Change: c}, nil
	case c.Database != "":
		return edit{}, fmt.Errorf("no [databases] entry %q in the configuration", c.Database)
	case header.File == "":
		return edit{}, fmt.Errorf("no [pgbouncer] section in the configuration")
	}
	return edit{File: header.File, AfterLine: header.Line, Change: c}, nil
}

// applyEdits rewrites one file's text: each edit's line, and new lines
// after their header. Lines are numbered as parseINI numbers them.
func applyEdits(text string, edits []edit) (string, error) {
	lines := strings.Split(text, "\n")
	insert := map[int][]string{}
	for _, e := range edits {
		if e.Line == 0 {
			insert[e.AfterLine] = append(insert[e.AfterLine], fmt.Sprintf("%s = %d", e.Change.Key, e.Change.Value))
			continue
		}
		if e.Line > len(lines) {
			return "", fmt.Errorf("line %d is past the end of the file: it changed since it was read", e.Line)
		}
		nl, err := rewriteLine(lines[e.Line-1], e.Change)
		if err != nil {
			return "", fmt.Errorf("line %d: %w", e.Line, err)
		}
		lines[e.Line-1] = nl
	}
	var out []string
	for i, l := range lines {
		out = append(out, l)
		for _, n := range insert[i+1] {
			if strings.HasSuffix(l, "\r") {
				n += "\r" // the file's line ends
			}
			out = append(out, n)
		}
	}
	return strings.Join(out, "\n"), nil
}

// rewriteLine sets the change's value on its line, leaving the rest of
// the line (other keys of a connection string, a password) as it is.
func rewriteLine(line string, c Change) (string, error) {
	cr := strings.HasSuffix(line, "\r")
	line = strings.TrimSuffix(line, "\r")
	out, err := rewrite(line, c)
	if cr {
		out += "\r"
	}
	return out, err
}

func rewrite(line string, c Change) (string, error) {
	s := strings.TrimLeft(line, " \t\v\f\r")
	if strings.HasPrefix(s, "[") {
		if end := strings.IndexByte(s, ']'); end >= 0 {
			s = strings.TrimLeft(s[end+1:], " \t\v\f\r") // "[pgbouncer] key = value"
		}
	}
	_, rest, ok := cutKey(s)
	eq := strings.IndexByte(rest, '=')
	if !ok || eq < 0 || strings.TrimSpace(rest[:eq]) != "" {
		return "", fmt.Errorf("not a key = value line")
	}
	head := line[:len(line)-len(rest)+eq+1]
	value := rest[eq+1:]
	if c.Database == "" {
		return head + " " + strconv.Itoa(c.Value), nil
	}
	nv, err := setConnValue(value, c.Key, strconv.Itoa(c.Value))
	if err != nil {
		return "", err
	}
	return head + nv, nil
}

// setConnValue replaces the value of key in a connection string (its last
// occurrence: the one PgBouncer keeps), or appends key=value.
func setConnValue(s, key, value string) (string, error) {
	start, end, err := lastValueSpan(s, key)
	if err != nil {
		return "", err
	}
	if start < 0 {
		return strings.TrimRight(s, " \t") + " " + key + "=" + value, nil
	}
	return s[:start] + value + s[end:], nil
}

// lastValueSpan finds the byte span of key's last value (-1 when absent),
// reading pairs as parseConnString does.
func lastValueSpan(s, key string) (int, int, error) {
	start, end := -1, -1
	for i := 0; ; {
		for i < len(s) && strings.IndexByte(" \t\r\n\v\f", s[i]) >= 0 {
			i++
		}
		if i >= len(s) {
			return start, end, nil
		}
		eq := strings.IndexByte(s[i:], '=')
		if eq <= 0 {
			return 0, 0, fmt.Errorf("expected key=value at %q", clip(s[i:]))
		}
		k := strings.TrimRight(s[i:i+eq], " \t")
		j := i + eq + 1
		for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
			j++
		}
		_, rest, err := connValue(s[j:])
		if err != nil {
			return 0, 0, fmt.Errorf("%s: %w", k, err)
		}
		if k == key {
			start, end = j, len(s)-len(rest)
		}
		i = len(s) - len(rest)
	}
}

// FileEdit is one configuration file to rewrite: what the pooler's
// account read, and the edits to make.
type FileEdit struct {
	File  string
	Read  string // the text as read with the pooler's rights
	edits []edit
}

// Render makes the file's new text from its current text (what apply read
// as root, which must be what the pooler's account read: else the file
// changed meanwhile). The result must still parse.
func (f FileEdit) Render(current string) (string, error) {
	if current != f.Read {
		return "", fmt.Errorf("%s changed since it was read: run again", f.File)
	}
	text, err := applyEdits(current, f.edits)
	if err != nil {
		return "", fmt.Errorf("%s: %w", f.File, err)
	}
	for _, it := range parseINI(text) {
		if it.Kind == itemBad {
			return "", fmt.Errorf("%s: the edit would leave line %d malformed (%s): not written", f.File, it.Line, it.Value)
		}
	}
	return text, nil
}

// PlanEdits reads the pooler's configuration again with its own rights
// and places each change: the line that sets the key now (in pgbouncer.ini
// or the include that sets it) is rewritten, a [pgbouncer] key set
// nowhere gets a line after the section's header. A configuration
// PgBouncer would not load is not edited.
func PlanEdits(ctx context.Context, fs linux.FS, p *Pooler, changes []Change) ([]FileEdit, error) {
	if p.Kind != PgBouncer {
		return nil, fmt.Errorf("%s %d: dbmem writes only PgBouncer's pgbouncer.ini", p.Kind, p.PID)
	}
	if p.ConfigFile == "" {
		return nil, fmt.Errorf("pgbouncer %d: its configuration file is not known", p.PID)
	}
	rec := &recorder{}
	afs := fs.As(linux.AccountOf(fs, p.PID))
	afs.Tap = rec
	l := loadINI(ctx, afs, p.ConfigFile, p.Cwd, Budget)
	if _, probs := parsePgBouncer(l); l.Refused || len(probs) > 0 {
		return nil, fmt.Errorf("pgbouncer %d: its configuration would not load as it stands (%s): fix it first",
			p.PID, problemsText(&Pooler{Problems: append(l.Problems, probs...)}))
	}
	edits, err := placeChanges(l, changes)
	if err != nil {
		return nil, fmt.Errorf("pgbouncer %d: %w", p.PID, err)
	}
	var out []FileEdit
	for _, e := range edits {
		if len(out) == 0 || out[len(out)-1].File != e.File {
			out = append(out, FileEdit{File: e.File, Read: string(rec.files[afs.HostPath(e.File)])})
		}
		out[len(out)-1].edits = append(out[len(out)-1].edits, e)
	}
	return mergeByFile(out), nil
}

// mergeByFile joins the edits of one file into one FileEdit.
func mergeByFile(in []FileEdit) []FileEdit {
	var out []FileEdit
	idx := map[string]int{}
	for _, f := range in {
		if i, ok := idx[f.File]; ok {
			out[i].edits = append(out[i].edits, f.edits...)
			continue
		}
		idx[f.File] = len(out)
		out = append(out, f)
	}
	return out
}

// recorder keeps what a load read (a linux.Tap).
type recorder struct{ files map[string][]byte }

func (r *recorder) File(path string, data []byte) {
	if r.files == nil {
		r.files = map[string][]byte{}
	}
	r.files[path] = data
}
func (r *recorder) Dir(string, []string) {}
func (r *recorder) Link(string, string)  {}
