package watch

import (
	"context"

	"github.com/dbmem/dbmem/internal/snapshot/sampler"
)

// sampleUntil is Sample that returns as soon as ctx ends, even while a read
// hangs (the sampler's FS deadlines end the read later; the program does
// not wait for it): a signal ends watch at once.
func sampleUntil(ctx context.Context, s *sampler.Sampler, mode sampler.Mode) (*sampler.Sample, error) {
	type result struct {
		s   *sampler.Sample
		err error
	}
	ch := make(chan result, 1)
	go func() {
		smp, err := s.Sample(ctx, mode)
		ch <- result{smp, err}
	}()
	select {
	case r := <-ch:
		return r.s, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
