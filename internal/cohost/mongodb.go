package cohost

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"syscall"

	"github.com/dbmem/dbmem/internal/linux"
)

// DefaultMongoLog is where the distributions' packages have mongod log.
const DefaultMongoLog = "/var/log/mongodb/mongod.log"

// logWindow bounds what is read of a log: its first and its last bytes.
const logWindow = 1 << 20

// mongoVersion reads mongod's version from the Build Info line its log
// holds from each start (the last start's wins). The log is named by the
// server's --logpath or its configuration file's systemLog.path, else the
// packages' default; paths come from the process's arguments (untrusted):
// only absolute paths, no symbolic link at the end, a regular file, and
// only a version number is taken from it.
func mongoVersion(fs linux.FS, s *Software, procs []Proc) []linux.Gap {
	var args []string
	for _, p := range procs {
		if p.PID == s.PIDs[0] {
			args = p.Args
		}
	}
	logPath := mongoLogPath(fs, args)
	b, err := readWindow(fs, logPath)
	if err != nil {
		return []linux.Gap{{What: "MongoDB's version (" + s.String() + ")", Why: fmt.Sprintf("its log %s: %v", logPath, err)}}
	}
	major, minor, ok := ParseMongoVersion(b)
	if !ok {
		return []linux.Gap{{What: "MongoDB's version (" + s.String() + ")",
			Why: "no Build Info line in the first and last MiB of " + logPath + " (rotated since the start?)"}}
	}
	s.Major, s.Minor, s.VersionFrom = major, minor, "Build Info line of "+logPath
	return nil
}

// mongoLogPath is --logpath, else systemLog.path of --config / -f, else
// the default.
func mongoLogPath(fs linux.FS, args []string) string {
	conf := ""
	for i := 1; i < len(args); i++ {
		a := args[i]
		name, val, eq := strings.Cut(a, "=")
		if !eq && i+1 < len(args) {
			val = args[i+1]
		}
		switch name {
		case "--logpath":
			if strings.HasPrefix(val, "/") {
				return val
			}
		case "--config", "-f":
			conf = val
		}
	}
	if strings.HasPrefix(conf, "/") {
		if b, err := readWindow(fs, conf); err == nil {
			if p := ConfLogPath(b); strings.HasPrefix(p, "/") {
				return p
			}
		}
	}
	return DefaultMongoLog
}

// ConfLogPath reads systemLog.path from a mongod.conf (YAML): the "path:"
// key indented under the top-level "systemLog:" key.
func ConfLogPath(conf []byte) string {
	in := false
	sc := bufio.NewScanner(bytes.NewReader(conf))
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), " \t\r")
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if line[0] != ' ' && line[0] != '\t' {
			in = trimmed == "systemLog:"
			continue
		}
		if v, ok := strings.CutPrefix(trimmed, "path:"); ok && in {
			v, _, _ = strings.Cut(v, " #")
			return strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	return ""
}

var (
	buildInfo  = regexp.MustCompile(`"msg":"Build Info".*?"version":"(\d+)\.(\d+)`)
	oldVersion = regexp.MustCompile(`db version v(\d+)\.(\d+)`)
)

// ParseMongoVersion finds the last version a mongod log states: the Build
// Info line (4.4+, JSON) or "db version vX.Y" (before 4.4).
func ParseMongoVersion(log []byte) (major, minor int, ok bool) {
	for _, re := range []*regexp.Regexp{buildInfo, oldVersion} {
		all := re.FindAllSubmatch(log, -1)
		if len(all) == 0 {
			continue
		}
		m := all[len(all)-1]
		major, err1 := strconv.Atoi(string(m[1]))
		minor, err2 := strconv.Atoi(string(m[2]))
		if err1 == nil && err2 == nil && major > 0 {
			return major, minor, true
		}
	}
	return 0, 0, false
}

// readWindow reads the first and the last logWindow bytes of a regular
// file under fs's root, refusing a symbolic link (O_NOFOLLOW). With a Tap,
// what was read is recorded, so a capture replays the same answer.
func readWindow(fs linux.FS, abs string) ([]byte, error) {
	p := fs.HostPath(abs)
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file")
	}
	head := make([]byte, min(st.Size(), logWindow))
	if _, err := io.ReadFull(f, head); err != nil {
		return nil, err
	}
	b := head
	if st.Size() > 2*logWindow {
		tail := make([]byte, logWindow)
		if _, err := f.ReadAt(tail, st.Size()-logWindow); err != nil {
			return nil, err
		}
		b = append(append(head, '\n'), tail...)
	} else if st.Size() > logWindow {
		rest, err := io.ReadAll(io.LimitReader(f, logWindow))
		if err != nil {
			return nil, err
		}
		b = append(head, rest...)
	}
	if fs.Tap != nil {
		fs.Tap.File(p, b)
	}
	return b, nil
}
