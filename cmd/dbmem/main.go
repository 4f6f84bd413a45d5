// Command dbmem shows where a database server's memory goes, what will kill
// it, and what to set. See README.md.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/dbmem/dbmem/internal/cli"
)

func main() {
	endProfile := profile()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	if grace := cli.SignalGrace(os.Args[1:]); grace > 0 {
		go endAfter(ctx, grace)
	}
	code := cli.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	endProfile()
	os.Exit(code)
}

// endAfter ends the process grace after a signal when the command has not
// ended by itself: a read blocked in the kernel never sees ctx.
func endAfter(ctx context.Context, grace time.Duration) {
	<-ctx.Done()
	time.Sleep(grace)
	fmt.Fprintf(os.Stderr, "dbmem: interrupted, and still blocked %s after the signal (a read that does not end): exiting\n", grace)
	os.Exit(cli.ExitError)
}
