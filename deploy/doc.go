// Package deploy holds no code: it is the files dbmem ships for running it
// as a service (systemd units and their /etc/default files, Prometheus
// rules, the Grafana dashboard, the Kubernetes DaemonSet) and the tests
// that feed them, and the packages scripts/package builds from them, to
// their real consumers: the Kubernetes API types' strict decoder, dpkg,
// rpm, systemd-analyze, the installed binary and a scrape of the exporter
// started exactly as the installed unit would start it.
package deploy
