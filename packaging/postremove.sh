#!/bin/sh
# After removal: forget the units; on purge (deb) also the recorded history
# that dbmem-watch-record kept in /var/lib/dbmem.
set -e
if [ -d /run/systemd/system ]; then
	systemctl daemon-reload >/dev/null 2>&1 || true
fi
if [ "$1" = purge ]; then
	rm -rf /var/lib/dbmem
fi
exit 0
