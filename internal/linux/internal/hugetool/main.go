// Command hugetool maps huge pages for the cgroup tests of package linux.
//
//	hugetool -bytes N
//
// It waits for a line on its standard input (time for the test to move it
// into a cgroup), maps N bytes with mmap(MAP_PRIVATE|MAP_ANONYMOUS|
// MAP_HUGETLB), prints "mapped", touches every page, prints "touched", and
// waits for its input to close. A failed mmap prints "mmap: ERROR" and
// exits with status 3; a page over a hugetlb cgroup's fault limit kills it
// with SIGBUS.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

func main() {
	n := flag.Int("bytes", 2<<20, "bytes to map")
	flag.Parse()
	in := bufio.NewReader(os.Stdin)
	in.ReadString('\n')
	b, err := unix.Mmap(-1, 0, *n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_HUGETLB)
	if err != nil {
		fmt.Println("mmap:", err)
		os.Exit(3)
	}
	fmt.Println("mapped")
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	fmt.Println("touched")
	io.Copy(io.Discard, in)
}
