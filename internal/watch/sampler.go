package watch

import (
	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/snapshot/sampler"
)

// The sampler lives in internal/snapshot/sampler; these names keep
// watch's code and its callers as they were.
type (
	Sample        = sampler.Sample
	Sampler       = sampler.Sampler
	Mode          = sampler.Mode
	Checker       = sampler.Checker
	Cost          = sampler.Cost
	BackendSource = sampler.BackendSource
)

// Sample modes (sampler.Status, Discover, Smaps).
const (
	Status   = sampler.Status
	Discover = sampler.Discover
	Smaps    = sampler.Smaps
)

// AdviseChecker is advise.Checker.
var AdviseChecker = advise.Checker
