package pgapply

import (
	"context"

	"github.com/dbmem/dbmem/internal/postgres"
)

// connSession runs statements over internal/postgres's proven connection.
type connSession struct {
	c  postgres.Connector
	in *postgres.Instance
}

// NewSession is a Session on a running instance, connected as c connects
// (proven first; through the helper as the server's account as root).
func NewSession(c postgres.Connector, in *postgres.Instance) Session { return connSession{c, in} }

func (s connSession) Exec(ctx context.Context, stmts []string) ([][][]string, error) {
	return s.c.Exec(ctx, s.in, stmts)
}
