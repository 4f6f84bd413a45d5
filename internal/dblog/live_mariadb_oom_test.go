package dblog

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/throwaway"
)

// TestRootLiveMariaDBBufferPoolErrno12 (root only) starts a throwaway
// mariadbd whose address space is capped (prlimit --as, 1 GiB) with a 2 GiB
// buffer pool: InnoDB's mmap fails (ENOMEM) and the server gives up
// starting, in a real error log. MariaDB 10.11.19 says it as "Cannot map
// innodb_buffer_pool_size_max=2048m" and prints no errno (older servers
// print "mmap(N bytes) failed; errno 12", in the corpus): the errno is then
// unknown, not 12. It never touches the host's service.
func TestRootLiveMariaDBBufferPoolErrno12(t *testing.T) {
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Skip("prlimit (util-linux) is missing")
	}
	dir := mariadbDir(t)
	errLog := filepath.Join(dir, "error.log")
	port, err := throwaway.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(prlimit, "--as=1073741824", "--", "mariadbd", "--no-defaults", "--user=mysql",
		"--datadir="+filepath.Join(dir, "data"), "--socket="+filepath.Join(dir, "sock"), "--port="+strconv.Itoa(port),
		"--bind-address=127.0.0.1", "--log-error="+errLog, "--pid-file="+filepath.Join(dir, "pid"),
		"--innodb-buffer-pool-size=2G", "--skip-grant-tables")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done: // the server gave up, as it must
	case <-time.After(3 * time.Minute):
		cmd.Process.Kill()
		<-done
		b, _ := os.ReadFile(errLog)
		t.Fatalf("mariadbd kept running with a 2 GiB buffer pool under a 1 GiB address space:\n%s", b)
	}
	b, err := os.ReadFile(errLog)
	if err != nil {
		t.Fatal(err)
	}
	l, err := Options{}.ReadMySQL(strings.NewReader(string(b)))
	if err != nil || len(l.MemoryErrors) == 0 {
		t.Fatalf("memory errors %+v (%v) in:\n%s", l.MemoryErrors, err, b)
	}
	e := l.MemoryErrors[0]
	errnoOK := e.Errno == nil || *e.Errno == 12 // printed by mmap(...) failed; errno 12, absent from "Cannot map"
	if e.Code != "buffer-pool" || !errnoOK || e.RequestBytes == nil || *e.RequestBytes != 2<<30 || !e.StartupFailed || e.Time.IsZero() {
		t.Errorf("memory error %+v (errno %v, request %v) in:\n%s", e, e.Errno, e.RequestBytes, b)
	}
	if Detect(b).Engine != EngineMySQL {
		t.Errorf("engine %q", Detect(b).Engine)
	}
	if *record {
		writeFile(t, filepath.Join("testdata", "mariadb-10.11-buffer-pool-cannot-map-error.log"), string(b))
	}
}
