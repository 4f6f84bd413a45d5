package xray

import (
	"strings"

	"github.com/dbmem/dbmem/internal/dblog"
)

// Group is what a DBA acts on. Every context belongs to one.
type Group string

// Groups of contexts, then the parts of a backend's private cost that are
// outside its contexts.
const (
	GroupCatalog Group = "catalog"
	GroupPlan    Group = "plan"
	GroupQuery   Group = "query"
	GroupJIT     Group = "jit"
	GroupOther   Group = "other"
	// GroupOutside is Pss_Anon + VmSwap less the contexts' used bytes and
	// the JIT libraries' pages.
	GroupOutside Group = "outside"
	// GroupPageTables is VmPTE.
	GroupPageTables Group = "page_tables"
)

// GroupOrder is the order groups are shown in.
var GroupOrder = []Group{GroupCatalog, GroupPlan, GroupQuery, GroupJIT, GroupOther, GroupOutside, GroupPageTables}

// Title names a group for people.
func (g Group) Title() string {
	switch g {
	case GroupCatalog:
		return "catalog caches"
	case GroupPlan:
		return "plan cache"
	case GroupQuery:
		return "running query"
	case GroupJIT:
		return "JIT"
	case GroupOther:
		return "other contexts"
	case GroupOutside:
		return "outside memory contexts"
	case GroupPageTables:
		return "page tables"
	}
	return string(g)
}

// Fix says what shrinks a group.
func (g Group) Fix() string {
	switch g {
	case GroupCatalog:
		return "relation and catalog caches grow with every table, index and function a session touches and never shrink: " +
			"recycle long-lived connections (PgBouncer server_lifetime, idle_session_timeout, the pool's maximum lifetime)"
	case GroupPlan:
		return "prepared statements and PL/pgSQL plans live as long as the session: DEALLOCATE the unused ones, " +
			"cap the driver's statement cache, recycle connections"
	case GroupQuery:
		return "freed when the query or transaction ends: work_mem (x hash_mem_multiplier for hashes) per sort or hash node; " +
			"lower it for this role (ALTER ROLE ... SET work_mem), fix the query, end long transactions (idle_in_transaction_session_timeout)"
	case GroupJIT:
		return "libLLVM loaded by a backend that JIT-compiled: raise jit_above_cost, or SET jit = off for short queries (ALTER ROLE ... SET jit = off)"
	case GroupOther:
		return "PostgreSQL's own per-backend contexts (TopMemoryContext, timezones, WAL record buffers): the baseline every backend pays"
	case GroupOutside:
		return "freed memory glibc keeps (malloc retained), extensions' and libraries' allocations: MALLOC_ARENA_MAX=2 in the server's " +
			"environment, glibc's malloc_trim (PostgreSQL does not call it); a new connection starts without it"
	case GroupPageTables:
		return "page tables for the shared memory this backend touched: huge_pages = on shrinks them about 512 times"
	}
	return ""
}

// Classify returns the group of each context of a dump, in order: a
// context named for a group is in it, and its children with it unless
// they are named for another (a CachedPlanSource under CacheMemoryContext
// is plan cache). "N more child contexts" lines are their parent's.
func Classify(cs []dblog.MemoryContext) []Group {
	out := make([]Group, len(cs))
	var stack []Group // stack[d] is the group of the open context at depth d
	for i, c := range cs {
		if c.Depth < len(stack) {
			stack = stack[:c.Depth]
		}
		parent := GroupOther
		if len(stack) > 0 {
			parent = stack[len(stack)-1]
		}
		g := parent
		if c.MoreChildren == 0 {
			if own, ok := groupOf(c.Name); ok {
				g = own
			}
		}
		out[i] = g
		for len(stack) < c.Depth {
			stack = append(stack, parent) // a gap in depths: a cut or odd dump
		}
		stack = append(stack, g)
	}
	return out
}

// namedGroups are context names (exact) and their group.
var namedGroups = map[string]Group{
	"CacheMemoryContext": GroupCatalog, "Relcache by OID": GroupCatalog, "smgr relation table": GroupCatalog,
	"MdSmgr": GroupCatalog, "RelfilenumberMap cache": GroupCatalog, "RelfilenodeMap cache": GroupCatalog,
	// Per relation touched too, and never shrunk: locks held at once, and
	// the statistics entries of each relation.
	"LOCALLOCK hash": GroupCatalog, "PgStat Pending": GroupCatalog, "PgStat Shared Ref": GroupCatalog,
	"PgStat Shared Ref Hash": GroupCatalog, "pgstat TabStatusArray lookup hash table": GroupCatalog,
	"CachedPlan": GroupPlan, "CachedPlanSource": GroupPlan, "CachedPlanQuery": GroupPlan, "CachedExpression": GroupPlan,
	"Prepared Queries": GroupPlan, "SPI Plan": GroupPlan, "PL/pgSQL function": GroupPlan, "PLpgSQL function hash": GroupPlan,
	"PLpgSQL cast cache": GroupPlan, "PLpgSQL cast expressions": GroupPlan, "SQL function": GroupPlan,
	"MessageContext": GroupQuery, "RowDescriptionContext": GroupQuery, "TopTransactionContext": GroupQuery,
	"CurTransactionContext": GroupQuery, "TopPortalContext": GroupQuery, "PortalContext": GroupQuery,
	"PortalHoldContext": GroupQuery, "ExecutorState": GroupQuery, "SPI Proc": GroupQuery, "SPI Exec": GroupQuery,
	"TupleSort main": GroupQuery, "HashTableContext": GroupQuery, "HashBatchContext": GroupQuery,
	"AfterTriggerEvents": GroupQuery, "Combo CIDs": GroupQuery, "Portal hash": GroupQuery,
	"TransactionAbortContext": GroupOther, "TopMemoryContext": GroupOther,
}

// groupOf is the group a context's own name puts it in; ok is false when
// the name says nothing (the context is its parent's).
func groupOf(name string) (Group, bool) {
	if g, ok := namedGroups[name]; ok {
		return g, true
	}
	lower := strings.ToLower(name)
	switch {
	case strings.Contains(lower, "jit") || strings.Contains(lower, "llvm"):
		return GroupJIT, true
	case strings.Contains(lower, "plan") && strings.Contains(lower, "cache"):
		return GroupPlan, true
	case strings.Contains(lower, "cache"):
		return GroupCatalog, true
	}
	return "", false
}

// Share is a part of a context line's bytes that goes to a group.
type Share struct {
	Group    Group
	Fraction float64
}

// SplitMore says how to split each "N more child contexts" line (by
// index): PostgreSQL lists 100 children of a context and sums the rest in
// one line, whatever they are (3,000 prepared statements are 100
// CachedPlanSource lines and "2900 more child contexts" under
// CacheMemoryContext). The sum is split like the used bytes of the listed
// siblings' subtrees, by group: an estimate, said as such.
func SplitMore(cs []dblog.MemoryContext, groups []Group) map[int][]Share {
	out := map[int][]Share{}
	for i, c := range cs {
		if c.MoreChildren == 0 {
			continue
		}
		used := map[Group]uint64{}
		var sum uint64
		for j := i - 1; j >= 0 && cs[j].Depth >= c.Depth; j-- {
			if cs[j].MoreChildren == 0 || cs[j].Depth > c.Depth {
				used[groups[j]] += cs[j].UsedBytes
				sum += cs[j].UsedBytes
			}
		}
		if sum == 0 {
			out[i] = []Share{{groups[i], 1}}
			continue
		}
		for _, g := range GroupOrder {
			if used[g] > 0 {
				out[i] = append(out[i], Share{g, float64(used[g]) / float64(sum)})
			}
		}
	}
	return out
}
