package advise

import (
	"fmt"
	"slices"

	"github.com/dbmem/dbmem/internal/enginemem"
	"github.com/dbmem/dbmem/internal/finding"

	"github.com/dbmem/dbmem/internal/mysql"
)

// Engine names a database engine and its version: some advice (THP, how
// huge pages are mapped, which limits apply) depends on both.
type Engine struct {
	Name  string `json:"name"` // EnginePostgres, EngineMySQL, ...
	Major int    `json:"major,omitempty"`
	Minor int    `json:"minor,omitempty"`
}

func (e Engine) String() string {
	if e.Major == 0 {
		return e.Name
	}
	if e.Minor == 0 && e.Name == finding.EnginePostgres {
		return fmt.Sprintf("%s %d", e.Name, e.Major)
	}
	return fmt.Sprintf("%s %d.%d", e.Name, e.Major, e.Minor)
}

// THPAdvice is what an engine's documentation says about transparent huge
// pages.
type THPAdvice struct {
	// Want is the value to set in transparent_hugepage/enabled; "" when
	// the advice is unknown (MongoDB of an unknown version: 8.0+ wants
	// always, earlier never).
	Want string
	// Defrag is the value for transparent_hugepage/defrag.
	Defrag string
	// Accept lists the values of enabled that need no change.
	Accept []string
	Why    string
}

// Accepts reports whether the enabled value needs no change.
func (a THPAdvice) Accepts(enabled string) bool {
	return enabled == "" || a.Want == "" || slices.Contains(a.Accept, enabled)
}

// THP returns the engine's advice. PostgreSQL, MySQL/MariaDB, Oracle, Redis
// and MongoDB before 8.0 advise against THP (madvise is harmless: they do
// not madvise their memory); MongoDB 8.0 and later advise enabling it
// (enabled=always, defrag=defer+madvise).
func (e Engine) THP() THPAdvice {
	switch {
	case e.Name == finding.EngineMongoDB && e.Major >= 8:
		return THPAdvice{Want: "always", Defrag: "defer+madvise", Accept: []string{"always"},
			Why: e.String() + " (its TCMalloc with per-CPU caches) is tuned for transparent huge pages and advises enabling them"}
	case e.Name == finding.EngineMongoDB && e.Major == 0:
		return THPAdvice{Why: "MongoDB's version is unknown: 8.0 and later advise THP enabled, earlier versions never"}
	}
	return THPAdvice{Want: "never", Defrag: "never", Accept: []string{"never", "madvise"},
		Why: e.Name + " advises against transparent huge pages: khugepaged compaction and defragmentation " +
			"stall the database, and shared memory gets no benefit from them"}
}

// HugePageAPI is how an engine maps its shared memory in huge pages:
// enginemem's, one type for every engine.
type HugePageAPI = enginemem.HugeAPI

// The two ways: anonymous mmap with MAP_HUGETLB needs no privilege and no
// memlock; SysV shmget with SHM_HUGETLB needs vm.hugetlb_shm_group or
// CAP_IPC_LOCK, and MySQL and Oracle ask for a memlock limit covering the
// segments.
const (
	HugeMmap = enginemem.HugeMmap
	HugeSysV = enginemem.HugeSysV
)

// HugePageAPI returns how the engine asks for huge pages. PostgreSQL maps
// them with mmap; Oracle uses SysV segments; MySQL and MariaDB depend on
// the version (mysql.VersionAPI: mmap from MySQL 8.0 and MariaDB 10.5).
// Where a running server's mappings are known, mysql.APIOf measures it.
func (e Engine) HugePageAPI() HugePageAPI {
	switch e.Name {
	case finding.EngineOracle:
		return HugeSysV
	case finding.EngineMySQL:
		a, _ := mysql.VersionAPI(mysql.MySQL, e.Major, e.Minor)
		return a
	case finding.EngineMariaDB:
		a, _ := mysql.VersionAPI(mysql.MariaDB, e.Major, e.Minor)
		return a
	}
	return HugeMmap
}
