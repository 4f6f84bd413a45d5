// Package capture records the files dbmem's readers read (through a
// linux.FS Tap) and writes them out as a tree with proc/, sys/ and root/
// directories, which linux.FS reads exactly like the live host. Test fixtures
// are recorded this way from real hosts.
package capture
