package watch

import (
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/inert"
	"github.com/dbmem/dbmem/internal/texttable"
	"github.com/dbmem/dbmem/internal/units"
)

// mysqlHead explains the MySQL table's private figure: the one `dbmem
// report` gives a server (page tables apart, unlike PostgreSQL's).
const mysqlHead = "MYSQL/MARIADB  private = Pss_Anon, as dbmem report counts it " +
	"(~: RssAnon, an over-estimate; page tables apart; ?: not read)"

// mysqlLines is the MySQL section: nothing when no server runs (a
// PostgreSQL host is not told it lacks MySQL), else a table in the order
// found and a line for each server that needs a word.
func mysqlLines(f Frame, width int) []line {
	if len(f.MySQL) == 0 {
		return nil
	}
	t := texttable.New(">PID", ">PORT", "DATA DIR", "SERVER", ">THREADS", ">CONNS", ">MAX", ">BUF POOL", "POOL PAGES",
		">LP NEED", ">PRIVATE", ">PSS PRIVATE", ">AGE", ">VMPTE").
		Fit(width).Drop("PID", "AGE", "MAX", "SERVER", "THREADS", "VMPTE", "PSS PRIVATE")
	var notes []line
	for _, m := range f.MySQL {
		pss, ago := "-", "-"
		if m.PssAt != nil {
			pss, ago = units.OptShort(m.PssPrivateBytes), age(f.At, *m.PssAt)
		}
		t.Add(strconv.Itoa(m.PID), units.OptInt(m.Port, units.UnknownCell), orDash(m.DataDir), serverName(m), units.OptInt(m.Threads, units.UnknownCell), optInt64(m.Connections),
			optInt64(m.MaxConnections), units.OptShort(m.BufferPoolBytes), poolPages(m), lpNeed(m),
			approx(m.PrivateBytes, m.PrivateExact), pss, ago, units.OptShort(m.PageTablesBytes))
		notes = append(notes, mysqlNotes(m)...)
	}
	out := append([]line{{mysqlHead, sgrBold}}, plain(t.Lines("  "))...)
	return append(out, notes...)
}

// serverName is the flavor and major.minor: "mariadb 10.11", "mysql ?".
func serverName(m MySQLServer) string {
	v := units.UnknownCell
	if nums := strings.FieldsFunc(m.Version, func(r rune) bool { return r < '0' || r > '9' }); len(nums) >= 2 {
		v = nums[0] + "." + nums[1]
	}
	return m.Flavor + " " + v
}

// poolPages is the page size the buffer pool is mapped in: "4K", "huge 2M";
// "?" when its mapping was not found.
func poolPages(m MySQLServer) string {
	if m.BufferPoolPageSizeBytes == nil {
		return units.UnknownCell
	}
	s := units.Short(*m.BufferPoolPageSizeBytes)
	if m.BufferPoolHugetlb != nil && *m.BufferPoolHugetlb {
		s = "huge " + s
	}
	return s
}

// lpNeed is the large-page need in pages of the default size: "72x2M".
func lpNeed(m MySQLServer) string {
	if m.LargePageNeedPages == nil || m.LargePageSizeBytes == nil {
		return units.UnknownCell
	}
	return strconv.FormatUint(*m.LargePageNeedPages, 10) + "x" + units.Short(*m.LargePageSizeBytes)
}

// mysqlNotes say, under the table, what a cell cannot: settings not from
// the server, and large_pages=ON with the buffer pool not in huge pages.
func mysqlNotes(m MySQLServer) []line {
	who := "  pid " + strconv.Itoa(m.PID)
	if m.Port != nil {
		who += " :" + strconv.Itoa(*m.Port)
	}
	var out []line
	if m.LargePages != nil && *m.LargePages && m.BufferPoolHugetlb != nil && !*m.BufferPoolHugetlb {
		out = append(out, line{who + ": large_pages=ON but the buffer pool is NOT in huge pages (" +
			poolPages(m) + " pages)", sgrRed})
	}
	if !m.Connected {
		out = append(out, line{who + ": " + inert.Text(m.Connection), sgrYellow})
	}
	return out
}

func optInt64(p *int64) string {
	if p == nil {
		return units.UnknownCell
	}
	return strconv.FormatInt(*p, 10)
}

func orDash(s string) string {
	if s == "" {
		return units.UnknownCell
	}
	return s
}
