package cli

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/mysql"
	"github.com/dbmem/dbmem/internal/plan"
	"github.com/dbmem/dbmem/internal/render"
	"github.com/dbmem/dbmem/internal/snapshot"
	"github.com/dbmem/dbmem/internal/units"
)

// planFlags are `dbmem plan`'s flags as typed.
type planFlags struct {
	ram, swap, pageSize             string
	sharedBuffers, workMem, walBufs string
	maxConn, maxLocks, maxWorkers   int
	sets                            []string
	bufferPool, mysqlVersion        string
	mysqlSets                       []string
	margin, reserve                 float64
	format, confDir                 string
	outDir, target                  string
	req                             plan.Request
}

func newPlanCmd(e *env) *cobra.Command {
	var pf planFlags
	cmd := &cobra.Command{
		Use:   "plan",
		Short: "Compute the joint memory settings: huge pages, overcommit, swappiness, THP, OOM protection",
		Long: `plan computes vm.nr_hugepages exactly as PostgreSQL needs it (postgres -C
shared_memory_size_in_huge_pages, SHOW, or the shared mapping), with a stated margin,
vm.overcommit_memory=2 and the vm.overcommit_ratio that keeps a page-cache reserve,
vm.swappiness, THP, zone reclaim, huge_pages=on and the service's OOM protection; each
value with its formula. MySQL/MariaDB servers share the pool: their large-page buffers
(buffer pool, log buffer, key buffer, Aria page cache) with a 10% margin, large_pages=ON,
and for servers that use SysV shared memory (MySQL before 8.0, MariaDB before 10.5)
vm.hugetlb_shm_group, LimitMEMLOCK and kernel.shmmax/shmall. It plans this host's
running instances (--pg-port or --mysql-port keeps one), a stopped one (--data-dir),
or a host that is not this one (--ram ... : what-if). For a PostgreSQL instance it also
budgets the database's own memory (BUDGET): the limit its private memory may use, and
work_mem, hash_mem_multiplier, maintenance_work_mem, autovacuum_work_mem, the parallel
workers, temp_buffers, jit and max_connections solved within it under the concurrency
measured (or, on a what-if, --cpus or --active-sessions), per-role work_mem for the roles
whose queries spill (pg_stat_statements, the log's temporary files), PGTune's and
timescaledb-tune's figures beside them, and the worst case. It changes nothing:
--format renders files (sysctl, systemd, postgresql, alter-system, mysql, tuned,
kernel-cmdline, kubernetes) and 'dbmem apply' applies them. Kubernetes pod resources
(hugepages-2Mi, memory) are planned when dbmem or a database runs in a container,
or with --format kubernetes.`,
		Example: `  dbmem plan
  dbmem plan --shared-buffers 16GiB --max-connections 500
  dbmem plan --ram 5GiB --swap 1GiB --shared-buffers 1GiB --max-connections 500
  dbmem plan --ram 32GiB --innodb-buffer-pool-size 8GiB --mysql-version 10.11
  dbmem plan --format sysctl`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			req, err := pf.request(cmd, e.from.b != nil || !e.fs().IsLive())
			if err != nil {
				return err
			}
			if req.WhatIf.RAMBytes == 0 {
				e.conn.Work = !req.Budget.Off // the budget reads spills and roles' settings too
				req.FS = e.fs()
				so := e.snapshotOptions()
				if err := e.guardOptions(&so); err != nil { // systemd units, oomd, earlyoom, panic_on_oom
					return err
				}
				if req.Snapshot, err = snapshot.Take(cmd.Context(), so); err != nil {
					return err
				}
			}
			if req.Port, err = e.pgPort(); err != nil {
				return err
			}
			req.MySQLPort = e.my.Port
			req.Trust = e.trust()
			in, err := plan.Build(cmd.Context(), req)
			if errors.Is(err, plan.ErrUsage) {
				return usageError{err}
			}
			if err != nil {
				return err
			}
			return writePlan(e, in, plan.Result(in, req.Snapshot), req, pf)
		},
	}
	pf.define(cmd)
	return cmd
}

func (pf *planFlags) define(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&pf.ram, "ram", "", "what-if: plan for a host with this much RAM (64GiB) instead of this host")
	f.StringVar(&pf.swap, "swap", "0", "what-if: its swap")
	f.IntVar(&pf.req.WhatIf.NUMANodes, "numa-nodes", 1, "what-if: its NUMA nodes")
	f.IntVar(&pf.req.WhatIf.PGMajor, "pg-version", 0, "what-if: PostgreSQL major version (default: the installed binaries')")
	f.StringVar(&pf.req.DataDir, "data-dir", "", "plan a stopped server: its data (or configuration) directory")
	f.StringVar(&pf.sharedBuffers, "shared-buffers", "", "planned shared_buffers (16GiB)")
	f.IntVar(&pf.maxConn, "max-connections", 0, "planned max_connections")
	f.StringVar(&pf.workMem, "work-mem", "", "planned work_mem")
	f.IntVar(&pf.maxLocks, "max-locks-per-transaction", 0, "planned max_locks_per_transaction")
	f.StringVar(&pf.walBufs, "wal-buffers", "", "planned wal_buffers")
	f.IntVar(&pf.maxWorkers, "max-worker-processes", 0, "planned max_worker_processes")
	f.StringArrayVar(&pf.sets, "set", nil, "another planned PostgreSQL setting, name=value (repeatable)")
	f.StringVar(&pf.bufferPool, "innodb-buffer-pool-size", "", "planned innodb_buffer_pool_size of the MySQL/MariaDB server (8GiB)")
	f.StringVar(&pf.mysqlVersion, "mysql-version", "", "what-if: a MySQL/MariaDB server of this version (10.11, mariadb-10.4, mysql-8.0, 5.7)")
	f.StringArrayVar(&pf.mysqlSets, "mysql-set", nil, "another planned MySQL/MariaDB variable, name=value (repeatable)")
	f.StringVar(&pf.pageSize, "page-size", "", "huge page size: 2MiB or 1GiB (default: the kernel's default)")
	f.Float64Var(&pf.margin, "margin", advise.DefaultMarginPercent, "percent added to the exact huge page need (5 when estimated)")
	f.Float64Var(&pf.reserve, "reserve", advise.DefaultReserve*100, "percent of RAM kept for the page cache in vm.overcommit_ratio")
	f.IntVar(&pf.req.Options.Swappiness, "swappiness", advise.DefaultSwappiness, "vm.swappiness to set")
	f.BoolVar(&pf.req.Options.Dynamic, "dynamic", false, "use vm.nr_overcommit_hugepages (pages taken on demand) instead of a reserved pool")
	f.BoolVar(&pf.req.Options.NoHugePages, "no-huge-pages", false, "plan without huge pages")
	f.BoolVar(&pf.req.Options.SharedHost, "shared-host", false, "other software runs here: no strict overcommit")
	f.StringVar(&pf.req.Unit, "unit", "", "systemd unit of the instance (default: guessed)")
	f.StringVar(&pf.req.Bin, "pg-bin", "", "PostgreSQL binary directory to ask (default: found per major version)")
	f.IntVar(&pf.req.NodesPerQuery, "nodes", advise.DefaultNodesPerQuery, "sort/hash nodes per query assumed in the worst case")
	f.StringVar(&pf.format, "format", "", "render the settings as one kind of file: "+strings.Join(render.Kinds, ", "))
	f.StringVar(&pf.confDir, "conf-dir", "", "PostgreSQL include_dir for --format postgresql (default: from postgresql.conf)")
	f.StringVar(&pf.outDir, "out-dir", "", "with --format: write each file under DIR at its installation path (DIR/etc/...)")
	f.StringVar(&pf.target, "target", "", "with --format: print only this file (a unit such as postgresql@15-main.service, or a file name)")
	pf.defineBudget(cmd)
}

// request turns the flags into a plan.Request. captured: a bundle
// (--from) or a tree (--proc, --sys, --root) is planned, where --ram and
// --swap give what its meminfo lacks instead of describing a what-if.
func (pf *planFlags) request(cmd *cobra.Command, captured bool) (plan.Request, error) {
	r := pf.req
	var err error
	if r.WhatIf.RAMBytes, err = sizeFlag("ram", pf.ram); err != nil {
		return r, err
	}
	if r.WhatIf.SwapBytes, err = sizeFlag("swap", pf.swap); err != nil {
		return r, err
	}
	if captured {
		r.Given = givenSizes(cmd, r.WhatIf) // plan_given.go
		r.WhatIf.RAMBytes, r.WhatIf.SwapBytes = 0, 0
	}
	if r.WhatIf.RAMBytes == 0 && (cmd.Flags().Changed("swap") && !captured || cmd.Flags().Changed("numa-nodes") || cmd.Flags().Changed("pg-version") || pf.mysqlVersion != "") {
		return r, usageError{fmt.Errorf("--swap, --numa-nodes, --pg-version and --mysql-version describe a what-if host: give --ram too")}
	}
	if r.WhatIf.RAMBytes > 0 && r.DataDir != "" {
		return r, usageError{fmt.Errorf("--data-dir plans this host: it does not go with --ram")}
	}
	if r.Options.PageSizeBytes, err = sizeFlag("page-size", pf.pageSize); err != nil {
		return r, err
	}
	if p := r.Options.PageSizeBytes; p != 0 && p != 2<<20 && p != 1<<30 {
		return r, usageError{fmt.Errorf("--page-size %s: want 2MiB or 1GiB", pf.pageSize)}
	}
	r.Options.MarginPercent = pf.margin
	if pf.margin == 0 {
		r.Options.MarginPercent = -1 // none, as asked
	}
	if pf.reserve <= 0 || pf.reserve >= 100 {
		return r, usageError{fmt.Errorf("--reserve %g: want a percentage between 0 and 100", pf.reserve)}
	}
	r.Options.Reserve = pf.reserve / 100
	if pf.format != "" && !slices.Contains(render.Kinds, pf.format) {
		return r, usageError{fmt.Errorf("--format %q: want one of %s", pf.format, strings.Join(render.Kinds, ", "))}
	}
	if err := pf.checkFileFlags(); err != nil {
		return r, err
	}
	// Kubernetes resources: asked for, or in a container (plan.Build).
	r.Options.Kubernetes = pf.format == "kubernetes"
	if r.Changes, err = pf.changes(); err != nil {
		return r, err
	}
	if err := pf.budgetRequest(cmd, &r); err != nil {
		return r, err
	}
	return r, pf.mysqlRequest(&r)
}

// mysqlRequest adds the planned MySQL/MariaDB variables and, on a what-if
// host, the server's version.
func (pf *planFlags) mysqlRequest(r *plan.Request) error {
	c, err := nameValues("mysql-set", pf.mysqlSets)
	if err != nil {
		return err
	}
	r.MySQLChanges = map[string]string{}
	for k, v := range c {
		r.MySQLChanges[mysql.NormalizeName(k)] = v
	}
	if pf.bufferPool != "" {
		b, err := sizeFlag("innodb-buffer-pool-size", pf.bufferPool)
		if err != nil {
			return err
		}
		r.MySQLChanges["innodb_buffer_pool_size"] = fmt.Sprint(b)
	}
	if pf.mysqlVersion != "" {
		w, err := plan.ParseMySQLVersion(pf.mysqlVersion)
		if err != nil {
			return usageError{err}
		}
		r.WhatIf.MySQL = &w
	}
	if r.WhatIf.RAMBytes > 0 && len(r.MySQLChanges) > 0 && r.WhatIf.MySQL == nil {
		return usageError{fmt.Errorf("--innodb-buffer-pool-size and --mysql-set on a what-if host need --mysql-version (the version decides how huge pages are mapped)")}
	}
	return nil
}

// changes collects the planned PostgreSQL settings.
func (pf *planFlags) changes() (map[string]string, error) {
	c := map[string]string{}
	for name, v := range map[string]string{"shared_buffers": pf.sharedBuffers, "work_mem": pf.workMem, "wal_buffers": pf.walBufs} {
		if v == "" {
			continue
		}
		b, err := sizeFlag(strings.ReplaceAll(name, "_", "-"), v)
		if err != nil {
			return nil, err
		}
		c[name] = units.PG(b)
	}
	for name, v := range map[string]int{"max_connections": pf.maxConn, "max_locks_per_transaction": pf.maxLocks, "max_worker_processes": pf.maxWorkers} {
		if v > 0 {
			c[name] = fmt.Sprint(v)
		}
	}
	sets, err := nameValues("set", pf.sets)
	for k, v := range sets {
		c[k] = v
	}
	return c, err
}

// nameValues reads repeated --flag name=value.
func nameValues(flag string, list []string) (map[string]string, error) {
	c := map[string]string{}
	for _, s := range list {
		k, v, ok := strings.Cut(s, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, usageError{fmt.Errorf("--%s %q: want name=value", flag, s)}
		}
		c[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return c, nil
}

func sizeFlag(name, v string) (uint64, error) {
	if v == "" {
		return 0, nil
	}
	b, err := units.ParseSize(v)
	if err != nil {
		return 0, usageError{fmt.Errorf("--%s: %w", name, err)}
	}
	return b, nil
}

func writePlan(e *env, in advise.PlanInput, res advise.PlanResult, req plan.Request, pf planFlags) error {
	if pf.format == "kubernetes" {
		out, err := render.Kubernetes(plan.Kubernetes(in, res, "dbmem plan ("+res.Source+")"))
		if err != nil {
			return err
		}
		_, err = fmt.Fprint(e.stdout, out)
		return err
	}
	if pf.format != "" {
		return renderPlan(e, in, res, req, pf)
	}
	if e.json {
		return writeJSON(e.stdout, res)
	}
	return plan.TextWidth(e.stdout, res, e.width())
}

// renderPlan writes the settings as one kind of file (internal/render).
func renderPlan(e *env, in advise.PlanInput, res advise.PlanResult, req plan.Request, pf planFlags) error {
	o := render.Options{Generated: "dbmem plan (" + res.Source + ")", PostgresConfDir: pf.confDir}
	var engines []string
	for _, pi := range in.Instances {
		engines = append(engines, pi.Engine.Name)
	}
	o.TunedInclude = render.TunedIncludeFor(engines)
	if o.PostgresConfDir == "" && pf.format == "postgresql" && req.Snapshot != nil {
		dir, err := planConfDir(e, req) // plan_confdir.go
		if err != nil {
			return err
		}
		o.PostgresConfDir = dir
	}
	if pf.format == "alter-system" || pf.format == "alter-role" || pf.format == "tuned" {
		out, err := render.Format(pf.format, res.Settings, o)
		if err != nil {
			return err
		}
		_, err = fmt.Fprint(e.stdout, out)
		return err
	}
	files, err := render.KindFiles(pf.format, res.Settings, o)
	if err != nil {
		return err
	}
	return writeFiles(e, files, pf)
}
