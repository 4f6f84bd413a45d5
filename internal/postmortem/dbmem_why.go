package postmortem

import (
	"fmt"

	"github.com/dbmem/dbmem/internal/units"
)

// memoryErrorWhy explains a MySQL or Oracle memory error in a sentence.
func memoryErrorWhy(e MemoryError) string {
	size := "a size not in the log"
	if e.RequestBytes != nil {
		size = units.Bytes(*e.RequestBytes)
	}
	errno := ""
	if e.Errno != nil {
		errno = fmt.Sprintf(" (errno %d%s)", *e.Errno, errnoName(*e.Errno))
	}
	switch e.Code {
	case "buffer-pool", "mmap":
		s := fmt.Sprintf("InnoDB could not allocate its buffer pool, %s%s", size, errno)
		if e.Code == "mmap" {
			s = fmt.Sprintf("mmap of %s failed%s", size, errno)
		}
		if e.StartupFailed {
			s += "; the server did not start"
		}
		return s + ": the kernel refused the memory (strict overcommit, a memory cgroup or ulimit -v, or not enough RAM and swap)"
	case "out-of-memory":
		return fmt.Sprintf("the server could not allocate %s: the statement failed (a server may abort where it cannot go on)", size)
	case "ORA-04030":
		return fmt.Sprintf("an Oracle process could not get %s of private memory (%s) from the OS: PGA, ulimit or vm.max_map_count, or the machine is out of memory", size, units.Or(e.Area, "(not named in the log)"))
	case "ORA-04031":
		return fmt.Sprintf("the SGA's %s had no free %s: the pool is too small or fragmented (this is the SGA, not the OS)", units.Or(e.Area, "(not named in the log)"), size)
	case "ORA-04036":
		return fmt.Sprintf("the instance's PGA went over %s: Oracle ended the sessions using the most", units.Or(e.Area, "(not named in the log)"))
	case "ORA-27102":
		return "Oracle could not allocate shared memory (the SGA) from the OS" + errno + ": kernel.shmmax/shmall, memlock, huge pages or RAM"
	case "ORA-27300":
		return fmt.Sprintf("an OS call failed (%s)%s: with errno 12 the machine could not give the new process its memory", units.Or(e.Area, "(not named in the log)"), errno)
	case "ORA-00600":
		return "an internal error after a memory error: often the memory error's consequence, not a bug of its own"
	}
	return e.Message
}

func errnoName(n int) string {
	switch n {
	case 12:
		return " ENOMEM"
	case 11:
		return " EAGAIN"
	case 28:
		return " ENOSPC"
	}
	return ""
}
