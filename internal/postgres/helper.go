package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/dbmem/dbmem/internal/asowner"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/servertrust"
)

// HelperCommand is the hidden subcommand that makes dbmem's binary a
// helper: it connects as the account it runs as (peer authentication)
// and answers with what the server said.
const HelperCommand = "internal-pg-helper"

// NewHelper returns the runner of dbmem's helper (nil runs none): through
// the socket systemd serves for the account (the package's
// dbmem-pg-helper.socket, for postgres), else by executing dbmem's binary
// as the account.
func NewHelper() *asowner.Runner {
	return &asowner.Runner{Args: []string{HelperCommand}, SocketDir: asowner.DefaultSocketDir}
}

// helperRequest is what the helper is asked: connect over the socket at
// Socket, served by postmaster PID run by UID (the helper's own account),
// as User to Database, without a password.
type helperRequest struct {
	Socket    string   `json:"socket"`
	SocketDir string   `json:"socket_dir"`
	Port      int      `json:"port"`
	PID       int      `json:"postmaster_pid"`
	DataDir   string   `json:"data_dir"`
	UID       uint32   `json:"uid"`
	User      string   `json:"user"`
	Database  string   `json:"database"`
	TimeoutMS int64    `json:"timeout_ms"`
	Work      bool     `json:"work,omitempty"`
	Stmts     []string `json:"statements,omitempty"`
	// Contexts asks backends of PID to log their memory contexts.
	Contexts *ContextsRequest `json:"contexts,omitempty"`
	// Backends asks for every backend's activity and query.
	Backends *backendsRequest `json:"backends,omitempty"`
}

// ServeHelper is the helper's side (the hidden subcommand): one request
// on stdin, one answer on stdout.
func ServeHelper(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
	return asowner.Serve(ctx, stdin, stdout, serveHelper)
}

// HelperReadOnlyFlag makes the hidden subcommand ServeReadHelper: the
// helper systemd serves on a socket (dbmem-pg-helper@.service) to root's
// services only reads.
const HelperReadOnlyFlag = "read-only"

// ServeReadHelper is ServeHelper that refuses to run statements: a service
// that may ask it (root's exporter, without CAP_SETUID) gets the server's
// settings and activity as the account, never a statement run as the
// account, which could be the database's superuser.
func ServeReadHelper(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
	return asowner.Serve(ctx, stdin, stdout, func(ctx context.Context, req helperRequest) (any, error) {
		if len(req.Stmts) > 0 {
			return nil, fmt.Errorf("this helper (--%s, served on a socket to root's services) only reads: %d statements refused; dbmem runs statements through a helper of its own, as root", HelperReadOnlyFlag, len(req.Stmts))
		}
		return serveHelper(ctx, req)
	})
}

func serveHelper(ctx context.Context, req helperRequest) (any, error) {
	if uint32(os.Geteuid()) != req.UID || req.UID == 0 {
		return nil, fmt.Errorf("helper runs as uid %d, asked to serve uid %d", os.Geteuid(), req.UID)
	}
	if req.Socket != socketPath(req.SocketDir, req.Port) {
		return nil, errors.New("socket does not match its directory and port")
	}
	proof := &servertrust.Proof{PID: req.PID, Account: servertrust.Account{UID: req.UID}, Socket: req.Socket}
	d := dialSpec{target: target{host: req.SocketDir, port: req.Port, proof: proof}, user: req.User,
		database: req.Database, requireAuth: "none", timeout: time.Duration(req.TimeoutMS) * time.Millisecond, work: req.Work, stmts: req.Stmts}
	d.backends = req.Backends
	if req.Contexts != nil {
		c := *req.Contexts
		c.Postmaster = req.PID // only backends of the postmaster the helper proved
		d.contexts = &c
	}
	return liveOver(ctx, d, sameInstance{fs: linux.DefaultFS(), postmaster: req.PID, dataDir: req.DataDir, port: req.Port}.check)
}

// viaHelper reads Live through a helper running as the server's account.
func (c Connector) viaHelper(ctx context.Context, in *Instance, d dialSpec, gid uint32) (Live, error) {
	p := d.proof
	req := helperRequest{Socket: p.Socket, SocketDir: d.host, Port: d.port, PID: p.PID, DataDir: in.DataDir, UID: p.Account.UID,
		User: d.user, Database: d.database, TimeoutMS: d.timeout.Milliseconds(), Work: d.work, Stmts: d.stmts, Contexts: d.contexts, Backends: d.backends}
	var l Live
	a := asowner.Account{UID: p.Account.UID, GID: gid, Name: p.Account.String()}
	ctx, cancel := context.WithTimeout(ctx, 2*d.timeout+10*time.Second)
	defer cancel()
	r := c.Helper
	if len(req.Stmts) > 0 { // the socket's helper only reads: statements need root's own
		own := *c.Helper
		own.SocketDir, r = "", &own
	}
	if err := r.Run(ctx, a, req, &l); err != nil {
		return Live{}, err
	}
	return l, nil
}
