// Package bundle writes and reads the compressed bundles of `dbmem
// capture`: one .tar.gz with everything dbmem reads about a host, so that
// `dbmem report`, `check` and `postmortem` give offline, on another
// machine, the results they gave live.
//
// A bundle holds manifest.json (what, when, from where, what was redacted,
// which sources were missing), the /proc, /sys and host files the readers
// read (proc/, sys/, root/: exactly the files, recorded through a
// capture.Recorder), links.json (the /proc symlinks read: cwd, exe,
// ns/ipc, fd/N), live/ (what each PostgreSQL server said over SQL), and
// logs/ (the kernel log's OOM reports and the tails of the database logs).
//
// What must not leave the host is removed before anything is written:
// process environments are never read, passwords are replaced in command
// lines, configuration files and logs, and query texts are replaced in
// logs unless WithQueries.
//
// Reading a bundle is safe on untrusted input: only regular files and
// directories under the known top directories are extracted, with relative,
// clean paths (no absolute path, no "..", no symlink or device members),
// each file and the whole bounded in size, into a new private directory;
// the recorded /proc links are recreated last, only at the paths dbmem
// reads links from. FuzzOpen exercises it.
package bundle
