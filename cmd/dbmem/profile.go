package main

import (
	"os"
	"runtime/pprof"
	"runtime/trace"
)

// profile starts what DBMEM_CPUPROFILE and DBMEM_TRACE ask for (a CPU
// profile, an execution trace: files for `go tool pprof` and `go tool
// trace`, see docs/performance.md) and returns the function that ends them.
func profile() (stop func()) {
	var files []*os.File
	if p := os.Getenv("DBMEM_CPUPROFILE"); p != "" {
		if f, err := os.Create(p); err == nil && pprof.StartCPUProfile(f) == nil {
			files = append(files, f)
		}
	}
	if p := os.Getenv("DBMEM_TRACE"); p != "" {
		if f, err := os.Create(p); err == nil && trace.Start(f) == nil {
			files = append(files, f)
		}
	}
	return func() {
		pprof.StopCPUProfile()
		trace.Stop()
		for _, f := range files {
			f.Close()
		}
	}
}
