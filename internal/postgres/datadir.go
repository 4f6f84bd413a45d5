package postgres

import (
	"github.com/dbmem/dbmem/internal/units"

	"fmt"
	"strconv"
	"strings"
)

// PIDFile is postmaster.pid in the data directory: the postmaster's own
// record of where it listens and which shared memory key it holds.
type PIDFile struct {
	PID        int    `json:"pid"`
	DataDir    string `json:"data_dir"`
	StartEpoch int64  `json:"start_epoch"`
	Port       int    `json:"port"`
	SocketDir  string `json:"socket_dir,omitempty"`
	ListenAddr string `json:"listen_addr,omitempty"`
	ShmemKey   string `json:"shmem_key,omitempty"`
	Status     string `json:"status,omitempty"` // "ready", "starting", "stopping" (10+)
}

// parsePIDFile parses postmaster.pid. Lines beyond the PID may be missing on
// old versions or while the server starts.
func parsePIDFile(s string) (PIDFile, error) {
	lines := strings.Split(s, "\n")
	var p PIDFile
	pid, err := strconv.Atoi(strings.TrimSpace(lines[0]))
	if err != nil {
		return p, fmt.Errorf("postmaster.pid: first line %q is not a PID", units.Trunc(lines[0], 30))
	}
	p.PID = pid
	at := func(i int) string {
		if i < len(lines) {
			return strings.TrimSpace(lines[i])
		}
		return ""
	}
	p.DataDir = at(1)
	p.StartEpoch, _ = strconv.ParseInt(at(2), 10, 64)
	p.Port, _ = strconv.Atoi(at(3))
	p.SocketDir, p.ListenAddr = at(4), at(5)
	p.ShmemKey = strings.Join(strings.Fields(at(6)), " ")
	p.Status = at(7)
	return p, nil
}

// cmdOptions are the settings given on the postmaster's command line.
type cmdOptions struct {
	DataDir  string
	Settings map[string]string
}

// parseCommandLine reads postgres/postmaster arguments: -D dir, -c name=value,
// --name=value, -B buffers, -N connections, -p port.
func parseCommandLine(args []string) cmdOptions {
	o := cmdOptions{Settings: map[string]string{}}
	short := map[string]string{"-B": "shared_buffers", "-N": "max_connections", "-p": "port"}
	for i := 0; i < len(args); i++ {
		a := args[i]
		next := func() string {
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		switch {
		case a == "-D":
			o.DataDir = next()
		case strings.HasPrefix(a, "-D") && len(a) > 2:
			o.DataDir = a[2:]
		case a == "-c":
			o.addKV(next())
		case strings.HasPrefix(a, "--") && strings.Contains(a, "="):
			o.addKV(a[2:])
		case short[a] != "":
			o.Settings[short[a]] = next()
		}
	}
	return o
}

func (o cmdOptions) addKV(kv string) {
	k, v, ok := strings.Cut(kv, "=")
	if ok && k != "" {
		o.Settings[strings.ReplaceAll(strings.ToLower(k), "-", "_")] = v
	}
}
