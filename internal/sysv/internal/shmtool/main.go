// Command shmtool creates, attaches and scans real SysV shared memory
// segments for the tests of package sysv.
//
//	shmtool create -size N [-huge] [-key K] [-detach] [-keep] [-next-id N]
//	shmtool attach -id N[,N...]
//	shmtool scan
//
// Every command takes -uid, -gid, -groups and -memlock to drop to another
// user with a chosen RLIMIT_MEMLOCK first (it must start as root for that).
// create and attach print "ready SHMID" and then wait until their standard
// input closes or SIGTERM arrives; create then removes its segment
// (IPC_RMID) unless -keep.
// create -detach touches the segment, detaches and exits at once, leaving
// an orphan. -next-id sets kernel.shm_next_id, and is refused unless the
// tool runs in another IPC namespace than its parent (never the host's).
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/sysv"
)

// shmHugetlb is SHM_HUGETLB from <linux/shm.h>; x/sys/unix does not name it.
const shmHugetlb = 0o4000

type options struct {
	size, key, nextID  int
	ids                string
	huge, detach, keep bool
	uid, gid           int
	groups             string
	memlock            int64
}

func main() {
	if len(os.Args) < 2 {
		fail(2, errors.New("usage: shmtool create|attach|scan [flags]"))
	}
	var o options
	fl := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	fl.IntVar(&o.size, "size", 0, "segment size in bytes")
	fl.IntVar(&o.key, "key", 0, "IPC key (0: IPC_PRIVATE)")
	fl.StringVar(&o.ids, "id", "", "shmids to attach, comma-separated")
	fl.IntVar(&o.nextID, "next-id", -1, "kernel.shm_next_id in a private IPC namespace")
	fl.BoolVar(&o.huge, "huge", false, "SHM_HUGETLB")
	fl.BoolVar(&o.detach, "detach", false, "detach and exit, leaving the segment")
	fl.BoolVar(&o.keep, "keep", false, "do not remove the segment at exit")
	fl.IntVar(&o.uid, "uid", -1, "user to become")
	fl.IntVar(&o.gid, "gid", -1, "group to become")
	fl.StringVar(&o.groups, "groups", "", "supplementary groups, comma-separated")
	fl.Int64Var(&o.memlock, "memlock", -1, "RLIMIT_MEMLOCK in bytes (-2: unlimited)")
	fl.Parse(os.Args[2:])
	if err := dropPrivileges(o); err != nil {
		fail(1, err)
	}
	var err error
	switch os.Args[1] {
	case "create":
		err = create(o)
	case "attach":
		err = attach(o)
	case "scan":
		err = scan()
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fail(1, err)
	}
}

func fail(code int, err error) {
	fmt.Fprintln(os.Stderr, "shmtool:", err)
	os.Exit(code)
}

// dropPrivileges sets the memlock limit, then the groups and the user.
func dropPrivileges(o options) error {
	if o.memlock != -1 {
		v := uint64(o.memlock)
		if o.memlock == -2 {
			v = unix.RLIM_INFINITY
		}
		if err := unix.Setrlimit(unix.RLIMIT_MEMLOCK, &unix.Rlimit{Cur: v, Max: v}); err != nil {
			return fmt.Errorf("setrlimit memlock %d: %w", o.memlock, err)
		}
	}
	if o.uid < 0 {
		return nil
	}
	var groups []int
	for _, g := range strings.FieldsFunc(o.groups, func(r rune) bool { return r == ',' }) {
		n, err := strconv.Atoi(g)
		if err != nil {
			return fmt.Errorf("group %q: %w", g, err)
		}
		groups = append(groups, n)
	}
	if err := unix.Setgroups(groups); err != nil {
		return fmt.Errorf("setgroups: %w", err)
	}
	if err := unix.Setgid(o.gid); err != nil {
		return fmt.Errorf("setgid %d: %w", o.gid, err)
	}
	if err := unix.Setuid(o.uid); err != nil {
		return fmt.Errorf("setuid %d: %w", o.uid, err)
	}
	return nil
}

func create(o options) error {
	if o.nextID >= 0 {
		if err := setNextID(o.nextID); err != nil {
			return err
		}
	}
	flags := unix.IPC_CREAT | unix.IPC_EXCL | 0o600
	if o.huge {
		flags |= shmHugetlb
	}
	id, err := unix.SysvShmGet(o.key, o.size, flags)
	if err != nil {
		return fmt.Errorf("shmget size %d huge %v: %w", o.size, o.huge, err)
	}
	err = attachAndWait([]int{id}, o.detach)
	if err != nil || !o.keep && !o.detach {
		unix.SysvShmCtl(id, unix.IPC_RMID, nil)
	}
	return err
}

func attach(o options) error {
	var ids []int
	for _, s := range strings.Split(o.ids, ",") {
		id, err := strconv.Atoi(s)
		if err != nil {
			return fmt.Errorf("-id %q: %w", o.ids, err)
		}
		ids = append(ids, id)
	}
	return attachAndWait(ids, false)
}

// attachAndWait attaches, touches every page, says ready (with the first
// shmid) and waits for the end of standard input (or returns at once with
// detach).
func attachAndWait(ids []int, detach bool) error {
	var segs [][]byte
	for _, id := range ids {
		b, err := unix.SysvShmAttach(id, 0, 0)
		if err != nil {
			return fmt.Errorf("shmat %d: %w", id, err)
		}
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		segs = append(segs, b)
	}
	fmt.Printf("ready %d\n", ids[0])
	if !detach {
		waitForEnd()
	}
	for _, b := range segs {
		if err := unix.SysvShmDetach(b); err != nil {
			return err
		}
	}
	return nil
}

// waitForEnd returns when standard input closes or SIGTERM/SIGINT arrives,
// so that the segment is removed either way.
func waitForEnd() {
	done := make(chan struct{}, 2)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	go func() { io.Copy(io.Discard, os.Stdin); done <- struct{}{} }()
	go func() { <-sig; done <- struct{}{} }()
	<-done
}

// setNextID sets kernel.shm_next_id, only in an IPC namespace other than
// the parent's (so never the host's setting).
func setNextID(id int) error {
	own, err1 := os.Readlink("/proc/self/ns/ipc")
	parent, err2 := os.Readlink("/proc/" + strconv.Itoa(os.Getppid()) + "/ns/ipc")
	if err1 != nil || err2 != nil || own == parent {
		return errors.New("refusing to set kernel.shm_next_id outside a private IPC namespace")
	}
	return os.WriteFile("/proc/sys/kernel/shm_next_id", []byte(strconv.Itoa(id)+"\n"), 0o644)
}

func scan() error {
	s, err := sysv.Read(linux.DefaultFS())
	if err != nil {
		return err
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}
