// Package cohost finds the software that runs beside the databases and
// changes what a senior DBA would advise about memory: Redis (needs
// vm.overcommit_memory=1 for its fork-based save; advises THP never), MongoDB
// (THP enabled from 8.0, never before; its version from the Build Info line
// of its log), JVMs and Erlang VMs (reserve large virtual ranges: strict
// overcommit refuses them), Oracle (ora_* background processes; THP never)
// and kubelet (a Kubernetes node: kubelet owns vm.overcommit_memory=1).
//
// Detect is pure (process names and arguments in, software out) and tested
// on literal processes; Read lists the processes under a linux.FS and reads
// what Detect cannot see (MongoDB's version from its log, a bounded read).
package cohost
