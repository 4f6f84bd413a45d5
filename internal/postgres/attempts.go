package postgres

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/user"
	"strconv"
	"strings"
)

// connect tries the helper (root, a proven server run by another account,
// no user given), then each candidate user directly, and returns the
// first answer that comes from this instance, or every reason.
func (c Connector) connect(ctx context.Context, in *Instance, t target, o ConnOptions) (Live, error) {
	check := sameInstance{fs: c.fs(), postmaster: in.PostmasterPID, dataDir: in.DataDir, port: t.port}.check
	db := database(o)
	var fails failures
	if gid, ok := c.helperFor(t, o); ok {
		owner := t.proof.Account.Name
		d := c.spec(t, owner, db, o)
		if d.password = (secret{}); d.withheld == "" {
			d.withheld = "dbmem's helper carries no password"
		}
		l, err := c.viaHelper(ctx, in, d, gid)
		if err == nil {
			l.As = fmt.Sprintf("connected as %s via %s through dbmem's helper running as OS user %s; %s", owner, t, owner, proofSummary(t.proof))
			return l, nil
		}
		fails.add(owner+" (through dbmem's helper as OS user "+owner+")", explain(err, d))
	}
	for _, u := range candidateUsers(o) {
		l, d, err := c.direct(ctx, c.spec(t, u, db, o), check)
		if err == nil {
			l.As = fmt.Sprintf("connected as %s via %s; %s", u, t, describeTarget(t, d))
			return l, nil
		}
		fails.add(u, explain(err, d))
	}
	return Live{}, errors.New(fails.String() + grantHint(fails.reasons, t, o))
}

// failures groups the roles tried by the reason they failed.
type failures struct {
	reasons []string
	users   map[string][]string
}

func (f *failures) add(user, reason string) {
	if f.users == nil {
		f.users = map[string][]string{}
	}
	if _, ok := f.users[reason]; !ok {
		f.reasons = append(f.reasons, reason)
	}
	f.users[reason] = append(f.users[reason], user)
}

// String: "as root, postgres: reason; as monitor: other reason".
func (f *failures) String() string {
	var parts []string
	for _, r := range f.reasons {
		parts = append(parts, "as "+strings.Join(f.users[r], ", ")+": "+r)
	}
	return strings.Join(parts, "; ")
}

// direct connects from this process. Over TCP, a server that refuses TLS
// is asked again without the password (trust may still let dbmem in).
// It returns the attempt as finally made, for explain.
func (c Connector) direct(ctx context.Context, d dialSpec, check func(Live) error) (Live, dialSpec, error) {
	l, err := liveOver(ctx, d, check)
	if err != nil && d.tcp && d.password.value != "" && strings.Contains(err.Error(), "server refused TLS") {
		d.withheld = fmt.Sprintf("the server refused TLS and dbmem sends no password over TCP in clear (--allow-cleartext-password allows it; the password came from %s)", d.password.from)
		d.password, d.sslMode = secret{}, sslModeFor(os.Getenv, false, false)
		d.requireAuth = "none"
		l, err = liveOver(ctx, d, check)
	}
	return l, d, err
}

// helperFor reports whether to connect through the helper, and its gid:
// dbmem runs as root, the server is proven and run by a named account
// other than root, no user was asked for, and a helper is configured.
func (c Connector) helperFor(t target, o ConnOptions) (uint32, bool) {
	if c.Helper == nil || os.Geteuid() != 0 || t.tcp || !t.proof.Ready() ||
		o.User != "" || os.Getenv("PGUSER") != "" {
		return 0, false
	}
	a := t.proof.Account
	if a.UID == 0 || a.Name == "" {
		return 0, false
	}
	u, err := user.LookupId(strconv.FormatUint(uint64(a.UID), 10))
	if err != nil {
		return 0, false
	}
	gid, err := strconv.ParseUint(u.Gid, 10, 32)
	return uint32(gid), err == nil
}

// describeTarget says what was proven and how the password was used.
func describeTarget(t target, d dialSpec) string {
	s := "TCP: the server's identity is not proven, its backend was matched to the postmaster afterwards"
	if !t.tcp {
		s = proofSummary(t.proof)
	}
	if d.password.value != "" {
		s += "; a password from " + d.password.from + " was available"
	}
	return s
}
