#!/bin/sh
# Records this development host (Debian 12, kernel 6.18, PostgreSQL 15,
# MariaDB 10.11, Redis, RabbitMQ) into DIR/posted/tree, verbatim: the
# kernel files dbmem reads and the /proc files of the database, Redis and
# Erlang processes. Run as root: sh record-this-host.sh this-host-shared
set -eu
out="$1/posted/tree"
rm -rf "$out"
copy() { mkdir -p "$out$(dirname "$1")"; cat "$1" > "$out$1"; }
copy /proc/meminfo
copy /proc/sysvipc/shm
for f in osrelease hostname shmmax shmall shmmni; do copy /proc/sys/kernel/$f; done
for f in overcommit_memory overcommit_ratio overcommit_kbytes swappiness nr_hugepages nr_overcommit_hugepages \
	hugetlb_shm_group zone_reclaim_mode min_free_kbytes dirty_background_bytes dirty_bytes dirty_background_ratio dirty_ratio; do
	copy /proc/sys/vm/$f
done
for f in enabled defrag shmem_enabled; do copy /sys/kernel/mm/transparent_hugepage/$f; done
for d in /sys/kernel/mm/hugepages/* /sys/devices/system/node/node*/hugepages/*; do
	for f in nr_hugepages free_hugepages resv_hugepages surplus_hugepages nr_overcommit_hugepages; do
		[ -f "$d/$f" ] && copy "$d/$f"
	done
done
pm=$(head -1 /var/lib/postgresql/15/main/postmaster.pid)
pids="$pm $(pgrep -P "$pm" | tr '\n' ' ') $(pgrep -x mariadbd) $(pgrep -x redis-server) $(pgrep -x beam.smp)"
for p in $pids; do
	for f in stat status cmdline oom_score oom_score_adj cgroup limits maps smaps_rollup; do copy /proc/$p/$f; done
done
copy /proc/$pm/smaps
copy /proc/$(pgrep -x mariadbd)/smaps
for f in /etc/postgresql/15/main/postgresql.conf /etc/postgresql/15/main/conf.d/90-ci.conf \
	/var/lib/postgresql/15/main/postmaster.pid /var/lib/postgresql/15/main/PG_VERSION \
	/etc/mysql/my.cnf /var/lib/mysql/mysql_upgrade_info; do
	mkdir -p "$out/root$(dirname "$f")"; cat "$f" > "$out/root$f"
done
echo "recorded $(date -u +%FT%TZ) on $(uname -r): pids $pids" > "$1/posted/RECORDED"
