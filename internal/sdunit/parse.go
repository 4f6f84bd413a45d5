package sdunit

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// Assignment is one "Key=value" of a section, and the file it came from.
type Assignment struct {
	Section, Key, Value, File string
}

// maxLine bounds a unit file's logical line (continuations joined).
const maxLine = 64 << 10

// Parse reads a unit file or drop-in: [Section] headers, Key=value lines
// (blanks around "=" allowed), "#" and ";" comments, a trailing "\"
// continuing the line. file names where the assignments came from.
func Parse(r io.Reader, file string) ([]Assignment, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	var out []Assignment
	section, cont := "", ""
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if cont != "" {
			line, cont = cont+" "+line, ""
		}
		if strings.HasSuffix(line, "\\") && len(line) < maxLine {
			cont = strings.TrimSuffix(line, "\\")
			continue
		}
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
		case line[0] == '[' && strings.HasSuffix(line, "]"):
			section = line[1 : len(line)-1]
		default:
			k, v, ok := strings.Cut(line, "=")
			if ok && section != "" {
				out = append(out, Assignment{Section: section, Key: strings.TrimSpace(k), Value: strings.TrimSpace(v), File: file})
			}
		}
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("read %s: %w", file, err)
	}
	return out, nil
}

// ParseShow reads `systemctl show` output: "Key=value" lines; several
// units are separated by a blank line (one map each).
func ParseShow(r io.Reader) ([]map[string]string, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	var out []map[string]string
	cur := map[string]string{}
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			if len(cur) > 0 {
				out = append(out, cur)
				cur = map[string]string{}
			}
			continue
		}
		if k, v, ok := strings.Cut(line, "="); ok && k != "" && !strings.ContainsAny(k, " \t") {
			cur[k] = v
		}
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("read systemctl show output: %w", err)
	}
	return out, nil
}
