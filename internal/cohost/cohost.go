package cohost

import (
	"fmt"

	"github.com/dbmem/dbmem/internal/inert"
	"path"
	"sort"
	"strings"
)

// Kind is a kind of software that matters to memory advice.
type Kind string

// Kinds dbmem recognises.
const (
	Redis   Kind = "redis"
	MongoDB Kind = "mongodb"
	JVM     Kind = "jvm"
	Erlang  Kind = "erlang"
	Oracle  Kind = "oracle"
	Kubelet Kind = "kubelet"
)

// Software is one program found running, with every process of it.
type Software struct {
	Kind Kind `json:"kind"`
	// Name says what runs, for people: "redis-server", "java
	// (org.elasticsearch.bootstrap.Elasticsearch)", "beam.smp (riak)",
	// "oracle (SID ORCL)". It comes from the processes' names and
	// arguments: untrusted, print it inert.
	Name string `json:"name"`
	PIDs []int  `json:"pids"`
	// Major and Minor are the version when it was read (0: unknown);
	// VersionFrom says where from.
	Major       int    `json:"major,omitempty"`
	Minor       int    `json:"minor,omitempty"`
	VersionFrom string `json:"version_from,omitempty"`
}

// Version is "8.0", or "" when unknown.
func (s Software) Version() string {
	if s.Major == 0 {
		return ""
	}
	return fmt.Sprintf("%d.%d", s.Major, s.Minor)
}

// String names the software and its first process: "redis-server (pid
// 1020)", inert (the name comes from a process's arguments).
func (s Software) String() string {
	n := inert.Text(s.Name)
	if v := s.Version(); v != "" {
		n += " " + v
	}
	if len(s.PIDs) > 0 {
		n += fmt.Sprintf(" (pid %d)", s.PIDs[0])
	}
	return n
}

// Proc is what Detect reads of one process.
type Proc struct {
	PID  int
	Comm string   // /proc/PID/stat's command name
	Args []string // /proc/PID/cmdline
}

// Detect returns the software the processes run, one entry per program
// (an Oracle instance, a JVM, ...), ordered by kind then first PID.
func Detect(procs []Proc) []Software {
	byKey := map[string]*Software{}
	var keys []string
	for _, p := range procs {
		kind, name, ok := classify(p)
		if !ok {
			continue
		}
		key := string(kind) + "\x00" + name
		s, seen := byKey[key]
		if !seen {
			s = &Software{Kind: kind, Name: name}
			byKey[key], keys = s, append(keys, key)
		}
		s.PIDs = append(s.PIDs, p.PID)
	}
	out := make([]Software, 0, len(keys))
	for _, k := range keys {
		s := byKey[k]
		sort.Ints(s.PIDs)
		out = append(out, *s)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Kind != out[j].Kind {
			return out[i].Kind < out[j].Kind
		}
		return out[i].PIDs[0] < out[j].PIDs[0]
	})
	return out
}

// classify tells what one process is. Names are matched exactly (comm is
// at most 15 bytes and set by the program; the first argument's base name
// is the executable), never as substrings of arguments.
func classify(p Proc) (Kind, string, bool) {
	comm, exe := p.Comm, ""
	if len(p.Args) > 0 {
		exe = path.Base(strings.Fields(p.Args[0] + " x")[0])
	}
	switch {
	case comm == "redis-server" || comm == "valkey-server" || comm == "keydb-server":
		return Redis, comm, true
	case comm == "mongod":
		return MongoDB, "mongod", true
	case comm == "java" || exe == "java":
		return JVM, "java" + jvmMain(p.Args), true
	case comm == "beam.smp" || comm == "beam" || exe == "beam.smp":
		return Erlang, "beam.smp" + erlangApp(p.Args), true
	case strings.HasPrefix(comm, "ora_") || strings.HasPrefix(comm, "oracle") && exe != "" && strings.HasPrefix(exe, "oracle"):
		return Oracle, oracleName(comm, p.Args), true
	case comm == "kubelet":
		return Kubelet, "kubelet", true
	}
	return "", "", false
}

// jvmMain is " (main class or jar)" from a java command line.
func jvmMain(args []string) string {
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-jar" && i+1 < len(args):
			return " (" + path.Base(args[i+1]) + ")"
		case a == "-cp" || a == "-classpath" || a == "--class-path" || a == "-p" || a == "--module-path":
			i++
		case !strings.HasPrefix(a, "-"):
			return " (" + a + ")"
		}
	}
	return ""
}

// erlangApp is " (riak)", " (rabbitmq)": the release a beam.smp runs, from
// its -root, -progname, -boot or -home arguments (RabbitMQ's is -home
// /var/lib/rabbitmq).
func erlangApp(args []string) string {
	for i := 1; i+1 < len(args); i++ {
		switch args[i] {
		case "-root", "-progname", "-boot", "-home":
			for _, app := range []string{"rabbitmq", "riak", "couchdb", "ejabberd", "emqx"} {
				if strings.Contains(args[i+1], app) {
					return " (" + app + ")"
				}
			}
		}
	}
	return ""
}

// oracleName is "oracle (SID ORCL)" from ora_pmon_ORCL, or "oracle".
func oracleName(comm string, args []string) string {
	parts := strings.SplitN(comm, "_", 3)
	if len(parts) == 3 && parts[2] != "" {
		return "oracle (SID " + parts[2] + ")"
	}
	if len(args) > 0 {
		if sid, ok := strings.CutPrefix(strings.Fields(args[0] + " x")[0], "oracle"); ok && sid != "" {
			return "oracle (SID " + sid + ")"
		}
	}
	return "oracle"
}

// OfKind returns the software of one kind.
func OfKind(all []Software, k Kind) []Software {
	var out []Software
	for _, s := range all {
		if s.Kind == k {
			out = append(out, s)
		}
	}
	return out
}
