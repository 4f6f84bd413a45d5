package linux

// ParseProcCgroup is parseProcCgroup for the external tests (package
// linux_test, which may import internal/kerneltest: it imports linux).
var ParseProcCgroup = parseProcCgroup
