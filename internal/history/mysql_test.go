package history

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/watch"
)

// A MySQL server and a PostgreSQL instance whose port is not known are
// recorded as their own series: the server's private figure in an RssAnon
// series on status ticks and a Pss_Anon one on smaps ticks, its
// connections only when read; the instance labelled port=unknown, never 0.
func TestRecordMySQLAndUnknownPort(t *testing.T) {
	s, path := openTemp(t, 0)
	modes := []string{"discover", "smaps", "status", "status"}
	for i, mode := range modes {
		f := frame(i)
		f.Mode = mode
		f.Instances[0].Port = nil
		f.MySQL = []watch.MySQLServer{{PID: 3809, Flavor: "mariadb", Port: new(3306), DataDir: "/var/lib/mysql/",
			Threads: new(11 + i), Connections: new(int64(i)), PrivateBytes: new(uint64(90+i) << 20), PrivateExact: mode == "smaps",
			PageTablesBytes: new(uint64(468 << 10))}}
		if err := s.Add(f); err != nil {
			t.Fatal(err)
		}
	}
	h, err := Load(context.Background(), path, time.Time{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	my := MySQLLabels("mariadb", new(3306), "/var/lib/mysql/")
	count := func(name, labels string) int {
		sr, _ := h.Find(name, labels)
		return len(sr.Points)
	}
	if count("threads", my) != 4 || count("rss_anon_bytes", my) != 3 || count("pss_anon_bytes", my) != 1 ||
		count("connections", my) != 2 || count("vm_pte_bytes", my) != 4 {
		t.Errorf("MySQL series: threads %d (want 4), RssAnon %d (3), Pss_Anon %d (1), connections %d (2: discover and smaps ticks), page tables %d (4)",
			count("threads", my), count("rss_anon_bytes", my), count("pss_anon_bytes", my), count("connections", my), count("vm_pte_bytes", my))
	}
	if count("connections", InstanceLabels(nil, "/var/lib/postgresql/15/main")) != 4 {
		t.Errorf("no series labelled port=unknown for the PostgreSQL instance: %+v", h.Series)
	}
	var out bytes.Buffer
	if err := Text(&out, h, TextOptions{Width: 10}); err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(out.String()), " ")
	for _, want := range []string{"POSTGRESQL port=unknown data_dir=/var/lib/postgresql/15/main", "MARIADB port=3306 data_dir=/var/lib/mysql/",
		"Threads 11 12.5 14 14", "Private (Pss_Anon) 91M 91M 91M 91M"} {
		if !strings.Contains(text, want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(text, "port=0") {
		t.Errorf("summary shows port=0:\n%s", out.String())
	}
	var page bytes.Buffer
	if err := HTML(&page, h); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), "<h2>Private memory: engine=mariadb port=3306 data_dir=/var/lib/mysql/</h2>") {
		t.Errorf("no private memory chart for the MariaDB server")
	}
}
