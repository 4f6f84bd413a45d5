#!/bin/sh
# After install or upgrade: let systemd see the units. They are not enabled
# or started: dbmem-exporter reads every process and connects to the local
# databases, which an administrator turns on (systemctl enable --now).
set -e
if [ -d /run/systemd/system ]; then
	systemctl daemon-reload >/dev/null 2>&1 || true
	# An upgrade restarts what was running, with the new binary.
	for u in dbmem-exporter.service dbmem-watch-record.service; do
		systemctl try-restart "$u" >/dev/null 2>&1 || true
	done
fi
exit 0
