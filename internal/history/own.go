package history

import (
	"bytes"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"syscall"
)

// ApplicationID marks an SQLite file as dbmem's history (PRAGMA
// application_id, bytes 68-71 of the file header): "dbmh".
const ApplicationID = 0x64626d68

// sqliteMagic starts every SQLite 3 database file.
var sqliteMagic = []byte("SQLite format 3\x00")

// checkOwn refuses to record into a file that is not dbmem's: a file that
// is not SQLite, an SQLite file another application marked as its own, or
// one that holds tables other than dbmem's. A missing or empty file, an
// empty database and a dbmem history (marked, or with dbmem's meta table)
// are fine. It only reads: a refused file is left byte for byte as it was.
func checkOwn(f historyFile) error {
	head, err := readHeader(f.path)
	if err == nil && len(head) == 0 {
		return nil
	}
	if err != nil {
		return fmt.Errorf("history file %s: %w", f.path, err)
	}
	if len(head) < 100 || !bytes.HasPrefix(head, sqliteMagic) {
		return foreignError(f.path, "it is not an SQLite file")
	}
	switch id := binary.BigEndian.Uint32(head[68:72]); id {
	case ApplicationID:
		return nil
	case 0:
		return checkTables(f)
	default:
		return foreignError(f.path, fmt.Sprintf("its application_id is %#x, another program's (dbmem's is %#x)", id, ApplicationID))
	}
}

// readHeader reads the first 100 bytes of the file checkPath checked (no
// link is followed).
func readHeader(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file (%s)", st.Mode().Type())
	}
	head := make([]byte, 100)
	n, err := io.ReadFull(f, head)
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		err = nil
	}
	return head[:n], err
}

// checkTables opens an unmarked SQLite file read-only: no tables (a new
// database) or dbmem's meta table with a dbmem schema are fine.
func checkTables(f historyFile) error {
	db, err := sql.Open("sqlite", f.uri(url.Values{"mode": {"ro"}}.Encode()))
	if err != nil {
		return fmt.Errorf("history file %s: %w", f.path, err)
	}
	defer db.Close()
	names, err := tableNames(db)
	if err != nil {
		return foreignError(f.path, "its tables cannot be read ("+err.Error()+")")
	}
	if len(names) == 0 {
		return nil
	}
	var schema string
	err = db.QueryRow(`SELECT value FROM meta WHERE key = 'schema'`).Scan(&schema)
	if err == nil && strings.HasPrefix(schema, "dbmem.history/") {
		return nil
	}
	if len(names) > 5 {
		names = append(names[:5], "...")
	}
	return foreignError(f.path, "it holds tables dbmem did not create ("+strings.Join(names, ", ")+")")
}

func tableNames(db *sql.DB) ([]string, error) {
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		names = append(names, n)
	}
	return names, rows.Err()
}

func foreignError(path, why string) error {
	return fmt.Errorf("%s is not a dbmem history file: %s; dbmem records only into its own files (name a new file with --record)", path, why)
}
