// Package sampler reads the host again and again, cheaply: a Sampler keeps
// the last discovery (instances, settings, shared segment) so that a Status
// sample reads only the processes' status files and rebuilds the snapshot,
// and discovers again when a postmaster or mysqld starts or stops. watch
// (the terminal view), the exporter and history sample through it; it
// depends on snapshot and the engines, never on a view.
package sampler
