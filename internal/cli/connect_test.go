package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSnapshotOptionsOneHelper: every snapshot the commands take starts
// from env.snapshotOptions, so no command builds snapshot options, a
// sampler.Sampler or a settings source of its own and misses a connection
// flag. It reads the package's source.
func TestSnapshotOptionsOneHelper(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	banned := map[string]bool{"snapshot.Options": true, "sampler.Sampler": true, "postgres.Connector": true, "mysql.Connector": true}
	fset := token.NewFileSet()
	for _, name := range files {
		if name == "connect.go" || strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.CompositeLit:
				if s, ok := x.Type.(*ast.SelectorExpr); ok {
					if id, ok := s.X.(*ast.Ident); ok && banned[id.Name+"."+s.Sel.Name] {
						t.Errorf("%s: %s{...} built outside env.snapshotOptions (connect.go)", fset.Position(x.Pos()), id.Name+"."+s.Sel.Name)
					}
				}
			case *ast.CallExpr:
				if s, ok := x.Fun.(*ast.SelectorExpr); ok && (s.Sel.Name == "live" || s.Sel.Name == "mysqlLive") {
					t.Errorf("%s: %s() called outside connect.go: use env.snapshotOptions", fset.Position(x.Pos()), s.Sel.Name)
				}
			}
			return true
		})
	}
}

// TestConnFlagsReachOptions: the global flags fill the sources every
// snapshot uses, and --no-connect disables both engines.
func TestConnFlagsReachOptions(t *testing.T) {
	e := &env{}
	root := newRoot(e)
	if err := root.PersistentFlags().Parse([]string{"--mysql-user", "u", "--mysql-socket", "/s.sock", "--mysql-host", "h", "--mysql-port", "3307", "--pg-port", "5433"}); err != nil {
		t.Fatal(err)
	}
	e.proc, e.sys, e.root = "/proc", "/sys", "/"
	o := e.snapshotOptions()
	if o.MySQLLive == nil || o.Live == nil {
		t.Fatalf("live host: sources %v %v", o.Live, o.MySQLLive)
	}
	if got := e.sampler(); got.MySQLLive == nil || got.Live == nil {
		t.Error("the watch sampler lacks a settings source")
	}
	if e.my.User != "u" || e.my.Socket != "/s.sock" || e.my.Host != "h" || e.my.Port != 3307 || e.conn.Port != 5433 {
		t.Errorf("flags: mysql %+v, pg %+v", e.my, e.conn)
	}
	e.conn.Disabled = true
	if o := e.snapshotOptions(); o.MySQLLive != nil || o.Live != nil {
		t.Error("--no-connect still connects")
	}
}
