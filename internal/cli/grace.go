package cli

import (
	"io"
	"time"
)

// SignalGrace is how long after SIGTERM or SIGINT the command that args
// name may take to end by itself before cmd/dbmem ends the process: a
// read blocked in the kernel (a FIFO a user planted, a stuck file system)
// does not see the context end, and SIGTERM must end every command. The
// commands that change the host (apply, rollback, lab, pooler set and
// rollback) get 0, no forced end: on a signal they restore what they
// changed, which may take longer, and a forced end would leave it to the
// journal's replay.
func SignalGrace(args []string) time.Duration {
	root := newRoot(&env{stdin: eofReader{}, stdout: io.Discard, stderr: io.Discard, rawStdout: io.Discard, rawStderr: io.Discard})
	cmd, _, err := root.Find(args)
	if err != nil || cmd == nil {
		return defaultGrace
	}
	for c := cmd; c != nil; c = c.Parent() {
		switch c.Name() {
		case "apply", "rollback", "lab":
			return 0
		case "set":
			if c.Parent() != nil && c.Parent().Name() == "pooler" {
				return 0
			}
		}
	}
	return defaultGrace
}

// defaultGrace: a command that watches its context ends within a second
// or two of a signal (watch in 10 ms, the exporter within 1 s).
const defaultGrace = 5 * time.Second

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }
