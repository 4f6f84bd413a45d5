// Command dbmem shows where a database server's memory goes, what will kill
// it, and what to set. See README.md.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/dbmem/dbmem/internal/cli"
)

func main() {
	endProfile := profile()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	endProfile()
	os.Exit(code)
}
