package pagecost

import (
	"sync"
	"sync/atomic"
)

// DefaultParallel is the number of goroutines Measure uses when
// Options.Parallel is 0. Measured on 2 cores (docs/pagecost.md), for 20
// backends with 2.7 GB of shared_buffers mapped, the fast path took 78 ms
// with one goroutine and 72 ms with two (61 and 74 ms in an earlier run):
// within the noise of a shared machine, for 10% more CPU. A second
// goroutine mostly takes the core the database needs.
const DefaultParallel = 1

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
