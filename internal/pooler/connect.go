package pooler

import (
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/user"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/asowner"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/servertrust"
)

// Connector reads PgBouncer's admin console over its unix socket, only
// once the socket is proven to be the pooler process's (see
// docs/connections.md). It never sends a password.
type Connector struct {
	// FS is the host whose /proc proves the pooler (zero: this host).
	FS linux.FS
	// Helper, when set and dbmem runs as root, connects from the pooler's
	// own OS account through dbmem's binary (PgBouncer lets that account
	// in as user "pgbouncer" without a password). nil: no helper.
	Helper *asowner.Runner
	// Timeout bounds the connection and each command (default 5 s).
	Timeout time.Duration
}

func (c Connector) fs() linux.FS { return c.FS.OrDefault() }

// Console proves the pooler's socket and reads its console. The second
// result says how it was reached ("as pgbouncer via ...; proven: ...").
func (c Connector) Console(ctx context.Context, p *Pooler) (*Console, string, error) {
	return c.ask(ctx, p, false)
}

// Reload runs RELOAD over the console (PgBouncer rereads its files) and
// reads the console afterwards.
func (c Connector) Reload(ctx context.Context, p *Pooler) (*Console, string, error) {
	return c.ask(ctx, p, true)
}

func (c Connector) ask(ctx context.Context, p *Pooler, reload bool) (*Console, string, error) {
	if p.Kind != PgBouncer {
		return nil, "", fmt.Errorf("the %s console is not read: it needs a password and dbmem sends none to a pooler", p.Kind)
	}
	c.Timeout = cmp.Or(c.Timeout, 5*time.Second)
	proof := c.prove(p)
	if f := proof.Failed(); f != "" {
		return nil, "", fmt.Errorf("not connecting: the socket is not proven to be pgbouncer %d's: %s", p.PID, f)
	}
	if !proof.Ready() {
		return nil, "", fmt.Errorf("not connecting: pgbouncer %d's socket is not proven (%s)", p.PID, orNone(proof.UncheckedList()))
	}
	how := fmt.Sprintf("via %s; proven: pgbouncer %d run by %s (SO_PEERCRED)", proof.Socket, p.PID, proof.Account)
	if u := proof.UncheckedList(); u != "" {
		how += "; not checked: " + u
	}
	con, as, err := c.read(ctx, p, proof, reload)
	if err != nil {
		return nil, "", err
	}
	con.As = as + " " + how
	return con, con.As, nil
}

// read connects as the pooler's own account when dbmem runs as it (or,
// as root, through the helper), else as dbmem's OS user.
func (c Connector) read(ctx context.Context, p *Pooler, proof *servertrust.Proof, reload bool) (*Console, string, error) {
	req := consoleRequest{Socket: proof.Socket, PID: p.PID, UID: proof.Account.UID, User: "pgbouncer",
		TimeoutMS: c.Timeout.Milliseconds(), Reload: reload}
	euid := uint32(os.Geteuid())
	switch {
	case euid == proof.Account.UID:
		con, err := readConsole(ctx, req)
		return con, "as pgbouncer (dbmem runs as the pooler's account " + proof.Account.String() + ")", err
	case euid == 0 && c.Helper != nil:
		con, err := c.viaHelper(ctx, p, req, proof.Account)
		if err == nil {
			return con, "as pgbouncer through dbmem's helper running as OS user " + proof.Account.String(), nil
		}
		return nil, "", fmt.Errorf("as pgbouncer through dbmem's helper running as OS user %s: %w", proof.Account, err)
	}
	me := "uid " + strconv.Itoa(int(euid))
	if u, err := user.Current(); err == nil {
		me = u.Username
	}
	req.User = me
	con, err := readConsole(ctx, req)
	switch {
	case err != nil && euid == 0:
		return nil, "", fmt.Errorf("as %s without a password: %w", me, err)
	case err != nil:
		return nil, "", fmt.Errorf("as %s without a password: %w (let OS user %s in: stats_users = %s and, with auth_type hba, "+
			"a line \"local pgbouncer %s peer\"; or run dbmem as root or as %s)", me, err, me, me, me, proof.Account)
	}
	return con, "as " + me, nil
}

// prove checks that the pooler's socket is its own: the process's
// account, the socket file's owner, the listening socket among its file
// descriptors. SO_PEERCRED is checked when dialing.
func (c Connector) prove(p *Pooler) *servertrust.Proof {
	fsys := c.fs()
	proof := servertrust.Begin(fsys, p.PID)
	if proof.PID == 0 {
		return proof
	}
	sock, why := c.socket(fsys, p)
	if sock == "" {
		proof.Fail("%s", why)
		return proof
	}
	proof.Socket = sock
	proof.SocketOwned = proof.CheckOwned("socket", sock, fs.ModeSocket)
	proof.CheckListening(fsys, sock)
	return proof
}

// socket finds the console's socket: one the process listens on named
// .s.PGSQL.PORT, else unix_socket_dir and listen_port of its
// configuration (PgBouncer's defaults when the files leave them unset).
func (c Connector) socket(fsys linux.FS, p *Pooler) (string, string) {
	if socks, err := linux.ListeningUnixSockets(fsys, p.PID); err == nil {
		var mine []string
		for _, s := range socks {
			if strings.HasPrefix(path.Base(s), ".s.PGSQL.") {
				mine = append(mine, s)
			}
		}
		sort.Strings(mine)
		if len(mine) > 0 {
			return mine[0], ""
		}
	}
	cfg := p.PgBouncer
	if cfg == nil || p.Refused {
		return "", "its configuration was not read and its sockets cannot be listed"
	}
	dir := cfg.UnixSocketDir.S
	switch {
	case dir == "":
		return "", "unix_socket_dir is empty: PgBouncer listens on no unix socket, and dbmem does not use TCP for the console"
	case strings.HasPrefix(dir, "@"):
		return "", "unix_socket_dir is in the abstract namespace: it has no owner to prove"
	}
	return path.Join(dir, ".s.PGSQL."+strconv.Itoa(cfg.ListenPort.N)), ""
}

// viaHelper reads the console through a helper running as the pooler's
// account.
func (c Connector) viaHelper(ctx context.Context, p *Pooler, req consoleRequest, a servertrust.Account) (*Console, error) {
	creds, err := linux.ReadCreds(c.fs(), p.PID)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 2*c.Timeout+10*time.Second)
	defer cancel()
	var con Console
	err = c.Helper.Run(ctx, asowner.Account{UID: a.UID, GID: creds.GID, Name: a.String()}, req, &con)
	if err != nil {
		return nil, err
	}
	return &con, nil
}

func orNone(s string) string {
	if s == "" {
		return "no check could be made"
	}
	return s
}

// netConn is what a dial returns.
type netConn = net.Conn
