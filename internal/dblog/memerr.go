package dblog

import "time"

// MemoryError is an allocation a MySQL/MariaDB or Oracle server could not
// make, as its log says: InnoDB's buffer pool mmap failing with errno 12,
// "Out of memory (Needed N bytes)", ORA-04030/04031/04036, ORA-27102,
// ORA-27300 with its errno. Figures the log did not print are nil.
type MemoryError struct {
	Engine string
	// Code: "buffer-pool", "mmap", "out-of-memory" (MySQL/MariaDB); the
	// ORA- code (Oracle).
	Code      string
	Time      time.Time
	TimeRaw   string
	ZoneKnown bool
	// RequestBytes is the size asked for; nil when not printed (or
	// printed blank, as some ORA-04030 lines are).
	RequestBytes *uint64
	// Errno is the operating system's error (12 is ENOMEM).
	Errno *int
	// Area is where the memory was for: "buffer pool"; Oracle's heap
	// ("pga heap,ksm stack"), pool ("shared pool"), limit
	// ("PGA_AGGREGATE_LIMIT of 2048 MB") or OS call ("fork: Not enough
	// space").
	Area string
	// Process names the Oracle process from its trace file (ckpt, psp0,
	// ora for a server process), PID its OS pid; TraceFile and Incident
	// as printed.
	Process   string
	PID       *int
	TraceFile string
	Incident  string
	// StartupFailed: the server gave up starting after it ("Aborting",
	// "Shutdown complete" before "ready for connections").
	StartupFailed bool
	Message       string
	Lines         []string
}

// Termination is an Oracle instance ended by one of its processes.
type Termination struct {
	Time      time.Time
	TimeRaw   string
	ZoneKnown bool
	// By is the process that ended it (PMON, CKPT, LGWR ...), PID its pid.
	By  string
	PID *int
	// Error is the ORA- code it names ("ORA-04030").
	Error string
	Lines []string
}
