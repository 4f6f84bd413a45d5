package unitlog

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/units"
)

// Journal formats.
const (
	FormatJSON   = "json"   // journalctl -o json (one object per line)
	FormatExport = "export" // journalctl -o export (KEY=value, blank line between entries)
)

// JournalFormat says whether text is a journal export: FormatJSON,
// FormatExport or "" (text).
func JournalFormat(text []byte) string {
	head := bytes.TrimLeft(text[:min(len(text), 4096)], " \t\r\n")
	switch {
	case bytes.HasPrefix(head, []byte("{")) && (bytes.Contains(head, []byte(`"MESSAGE"`)) || bytes.Contains(head, []byte(`"__REALTIME_TIMESTAMP"`))):
		return FormatJSON
	case bytes.HasPrefix(head, []byte("__CURSOR=")) || bytes.HasPrefix(head, []byte("__REALTIME_TIMESTAMP=")):
		return FormatExport
	}
	return ""
}

// entry is one journal record: the fields dbmem reads.
type entry map[string]string

// maxField bounds a field's value; maxEntries the records converted.
const (
	maxField   = 64 << 10
	maxEntries = 1 << 20
)

// Journal turns a journalctl -o json or -o export stream into
// short-iso-precise text lines ("2026-11-22T21:29:01.123456+00:00 host
// ident[pid]: message"), which oomlog and Parse read; the kernel's lines
// get "kernel" as ident. Records that cannot be read are skipped and
// counted. Messages keep their text; line breaks inside a message become
// separate lines with the same prefix.
func Journal(r io.Reader, format string) (text []byte, skipped int, err error) {
	var out bytes.Buffer
	emit := func(e entry) { writeEntry(&out, e) }
	switch format {
	case FormatJSON:
		skipped, err = readJSON(r, emit)
	case FormatExport:
		skipped, err = readExport(r, emit)
	default:
		return nil, 0, fmt.Errorf("journal format %q: want json or export", format)
	}
	return out.Bytes(), skipped, err
}

func writeEntry(out *bytes.Buffer, e entry) {
	us, err := strconv.ParseInt(e["__REALTIME_TIMESTAMP"], 10, 64)
	if err != nil || us <= 0 {
		return
	}
	stamp := time.UnixMicro(us).UTC().Format("2006-01-02T15:04:05.000000-07:00")
	ident := e["SYSLOG_IDENTIFIER"]
	if e["_TRANSPORT"] == "kernel" {
		ident = "kernel"
	}
	if ident == "" {
		ident = units.Or(e["_COMM"], "unknown")
	}
	pid := ""
	if p := e["_PID"]; p != "" && ident != "kernel" {
		pid = "[" + p + "]"
	}
	host := strings.ReplaceAll(units.Or(e["_HOSTNAME"], "-"), " ", "_")
	message := e["MESSAGE"]
	if u := units.Or(e["UNIT"], e["USER_UNIT"]); ident == "systemd" && u != "" && !strings.HasPrefix(message, u+": ") {
		message = u + ": " + message // "Started X" names the unit only in the UNIT field
	}
	for _, msg := range strings.Split(message, "\n") {
		fmt.Fprintf(out, "%s %s %s%s: %s\n", stamp, host, ident, pid, strings.TrimRight(msg, "\r"))
	}
}

// readJSON reads one JSON object per line; a MESSAGE that is not valid
// UTF-8 is an array of byte values.
func readJSON(r io.Reader, emit func(entry)) (int, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	skipped, n := 0, 0
	for sc.Scan() && n < maxEntries {
		var raw map[string]json.RawMessage
		if json.Unmarshal(sc.Bytes(), &raw) != nil {
			skipped++
			continue
		}
		e := entry{}
		for k, v := range raw {
			e[k] = jsonField(v)
		}
		emit(e)
		n++
	}
	if err := sc.Err(); err != nil {
		return skipped, fmt.Errorf("read journal JSON: %w", err)
	}
	return skipped, nil
}

func jsonField(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s[:min(len(s), maxField)]
	}
	var b []byte
	var nums []int
	if json.Unmarshal(v, &nums) == nil {
		for _, n := range nums[:min(len(nums), maxField)] {
			b = append(b, byte(n))
		}
		return string(b)
	}
	return ""
}

// readExport reads the export format: "KEY=value" lines, or "KEY" then a
// little-endian 64-bit length, the bytes and a newline for binary values;
// a blank line ends an entry.
func readExport(r io.Reader, emit func(entry)) (int, error) {
	br := bufio.NewReader(r)
	e, skipped, n := entry{}, 0, 0
	for n < maxEntries {
		line, err := br.ReadString('\n')
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "" && err == nil:
			if len(e) > 0 {
				emit(e)
				n++
			}
			e = entry{}
		case strings.Contains(line, "="):
			k, v, _ := strings.Cut(line, "=")
			e[k] = v[:min(len(v), maxField)]
		case line != "":
			v, ok := binaryField(br)
			if !ok {
				return skipped + 1, fmt.Errorf("read journal export: field %.40q: bad binary length", line)
			}
			e[line] = v
		}
		if err == io.EOF {
			if len(e) > 0 {
				emit(e)
			}
			return skipped, nil
		}
		if err != nil {
			return skipped, fmt.Errorf("read journal export: %w", err)
		}
	}
	return skipped, nil
}

func binaryField(br *bufio.Reader) (string, bool) {
	var size uint64
	if binary.Read(br, binary.LittleEndian, &size) != nil || size > maxField {
		return "", false
	}
	b := make([]byte, size+1) // the value and its newline
	if _, err := io.ReadFull(br, b); err != nil {
		return "", false
	}
	return string(b[:size]), true
}
