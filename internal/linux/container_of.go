package linux

import "bytes"

// ContainerOfProc reads /proc/NAME/cgroup ("self" or a pid) and tells the
// container the process runs in; ok is false when none is recognised or
// the file cannot be read.
func ContainerOfProc(fs FS, name string) (Container, bool) {
	b, err := fs.ReadFile(fs.ProcPath(name, "cgroup"))
	if err != nil {
		return Container{}, false
	}
	return ContainerOf(ParseProcCgroup(bytes.NewReader(b)))
}
