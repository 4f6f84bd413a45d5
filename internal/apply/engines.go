package apply

import (
	"bufio"
	"fmt"
	"path"
	"strings"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/mysql"
	"github.com/dbmem/dbmem/internal/postgres"
)

// Engines counts the database servers running on the host.
type Engines struct {
	Postgres int `json:"postgres"` // postmasters
	MySQL    int `json:"mysql"`    // mysqld or mariadbd processes
}

// DetectEngines finds database servers from the process list under fs.
func DetectEngines(fs linux.FS) (Engines, error) {
	pids, err := linux.ListPIDs(fs)
	if err != nil {
		return Engines{}, err
	}
	comm := map[int]string{}
	parent := map[int]int{}
	for _, pid := range pids {
		if st, err := linux.ReadStat(fs, pid); err == nil {
			comm[pid], parent[pid] = st.Comm, st.PPid
		}
	}
	var e Engines
	for pid, c := range comm {
		switch {
		case postgres.IsServerComm(c) && !postgres.IsServerComm(comm[parent[pid]]):
			e.Postgres++
		case mysql.IsServerComm(c):
			e.MySQL++
		}
	}
	return e, nil
}

// engineRefusals refuses settings for a database that does not run here.
// A systemd setting without a unit belongs to the first of units.
func engineRefusals(settings []finding.Setting, e Engines, units []string) []Refusal {
	var out []Refusal
	for _, s := range settings {
		if s.Target == finding.TargetSystemd && s.Unit == "" && len(units) > 0 {
			s.Unit = units[0]
		}
		engine, n := engineOf(s, e)
		if engine != "" && n == 0 {
			out = append(out, Refusal{Setting: s.Name + "=" + s.Value,
				Reason: fmt.Sprintf("%s setting, but no %s server runs on this host (none in the process list).", engine, engine),
				Fix:    "run dbmem on the database host, start the server first, or drop the setting."})
		}
	}
	return out
}

// engineOf names the database a setting is for ("" for host settings).
func engineOf(s finding.Setting, e Engines) (string, int) {
	u := strings.ToLower(s.Unit)
	switch {
	case s.Target == finding.TargetPostgres || s.Target == finding.TargetSystemd && strings.HasPrefix(u, "postgresql"):
		return "PostgreSQL", e.Postgres
	case s.Target == finding.TargetMySQL || s.Target == finding.TargetSystemd && (strings.HasPrefix(u, "mysql") || strings.HasPrefix(u, "mariadb")):
		return "MySQL/MariaDB", e.MySQL
	}
	return "", 0
}

// PostgresConfDir is where an instance's settings go: the include_dir of
// its postgresql.conf (Debian: /etc/postgresql/15/main/conf.d); "" when
// postgresql.conf has none, and err says why. (Its unit is in.Unit, the
// one check and plan name.)
func PostgresConfDir(fs linux.FS, in *postgres.Instance) (string, error) {
	conf := in.Settings.String("config_file")
	if conf == "" && in.DataDir != "" {
		conf = path.Join(in.DataDir, "postgresql.conf")
	}
	if conf == "" {
		return "", fmt.Errorf("PostgreSQL %d: neither config_file nor the data directory is known", in.PostmasterPID)
	}
	b, err := fs.ReadFile(fs.HostPath(conf))
	if err != nil {
		return "", err
	}
	dir := includeDir(string(b))
	if dir == "" {
		return "", fmt.Errorf("%s has no include_dir: add include_dir = 'conf.d' (and create the directory) so dbmem can write its own file", conf)
	}
	if !path.IsAbs(dir) {
		dir = path.Join(path.Dir(conf), dir)
	}
	return dir, nil
}

// includeDir returns the last active include_dir of a postgresql.conf.
func includeDir(conf string) string {
	dir := ""
	sc := bufio.NewScanner(strings.NewReader(conf))
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		rest, ok := strings.CutPrefix(l, "include_dir")
		if !ok || rest == "" || rest[0] != ' ' && rest[0] != '\t' && rest[0] != '=' && rest[0] != '\'' {
			continue
		}
		v := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(rest), "="))
		if i := strings.IndexByte(v, '#'); i >= 0 && !strings.HasPrefix(v, "'") {
			v = strings.TrimSpace(v[:i])
		}
		if strings.HasPrefix(v, "'") {
			if j := strings.IndexByte(v[1:], '\''); j >= 0 {
				v = v[1 : j+1]
			}
		}
		dir = v
	}
	return dir
}
