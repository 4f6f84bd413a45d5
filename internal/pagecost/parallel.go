package pagecost

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Parallelism when Options.Parallel is 0: one goroutine for a few
// processes, up to maxAutoParallel (and never more than GOMAXPROCS, so
// GOMAXPROCS=1 keeps dbmem on one core) from parallelFrom processes on.
// Measured on this project's 2-vCPU host (docs/performance.md): for 200
// backends the fast path took 0.64 ms per backend on two goroutines
// against 0.88 ms on one, for the same CPU time; for 20 backends the
// second goroutine saved nothing measurable.
const (
	parallelFrom    = 64
	maxAutoParallel = 4
)

// autoParallel is the number of goroutines for n processes.
func autoParallel(n int) int {
	if n < parallelFrom {
		return 1
	}
	return max(1, min(runtime.GOMAXPROCS(0), maxAutoParallel))
}

// forEach calls fn(s, i) for i in [0, n) on up to parallel goroutines. Each
// goroutine has its own scratch state s, kept between calls.
func forEach[S any](n, parallel int, fn func(s *S, i int)) {
	if parallel < 1 {
		parallel = 1
	}
	if parallel > n {
		parallel = n
	}
	if parallel <= 1 {
		var s S
		for i := 0; i < n; i++ {
			fn(&s, i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < parallel; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var s S
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				fn(&s, i)
			}
		}()
	}
	wg.Wait()
}
