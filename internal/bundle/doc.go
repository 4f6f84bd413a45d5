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
// Reading a bundle is safe on untrusted input: it is read into memory and
// never extracted (linux.FS reads it through linux.Files), so no member
// reaches the disk and a killed reader leaves nothing behind. Only regular
// files and directories under the known top directories are taken, with
// relative, clean paths (no absolute path, no "..", no symlink, hard link
// or device members, no duplicate), within Limits on members, directories,
// depth and bytes (one member and all), checked as the tar is read; the
// recorded /proc links are added last, only at the paths dbmem reads links
// from. FuzzOpen and FuzzLoadTar exercise it (run with
// -fuzzminimizetime 2s: minimizing the large inputs is slow).
package bundle
