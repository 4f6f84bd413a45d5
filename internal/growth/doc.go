// Package growth tells sustained memory growth apart from noise and says
// when a limit would be reached at that rate. It is pure: callers give it
// points (a backend's private cost, a role's sum) and limits (MemAvailable,
// a cgroup's headroom, CommitLimit less Committed_AS when the kernel
// enforces it).
//
// Fit draws the least-squares line through the points of a window ending
// at the last point; growth is sustained when the points span at least
// MinSpan, the slope is at least MinRate and the line explains the points
// (R² at least MinR2): a step (a backend that ran one big query) or a
// sawtooth (a query that allocates and frees) is not sustained growth.
// Forecast divides each limit's headroom by the rate and names the window
// the rate comes from.
package growth
