#!/bin/sh
# Before removal (not on upgrade): stop and disable the units.
# deb passes "remove"/"upgrade"; rpm passes the number of versions left (0: erase).
set -e
case "$1" in
	remove|purge|0) ;;
	*) exit 0 ;;
esac
if [ -d /run/systemd/system ]; then
	for u in dbmem-exporter.service dbmem-watch-record.service dbmem-pg-helper.socket; do
		systemctl disable --now "$u" >/dev/null 2>&1 || true
	done
fi
exit 0
