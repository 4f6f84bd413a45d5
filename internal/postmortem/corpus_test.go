package postmortem

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"
)

// The corpus (testdata/corpus, sources in INDEX.md) holds OOM reports and
// database crash logs people posted publicly, kept as posted, each with a
// truth file written by reading the log: every field the log prints, and
// null for every field it does not. The tests read each log as a file given
// on the command line and compare every field of the report with the truth.

type truthFile struct {
	Kind      string       `json:"kind"`
	Events    []truthEvent `json:"events"`
	Crashes   []truthCrash `json:"crashes"`
	OOMErrors int          `json:"oom_errors"`
	// The sections below are checked when the truth file has them.
	Engine          *string         `json:"engine"`
	Services        *[]truthService `json:"services"`
	Killers         *[]truthKiller  `json:"killers"`
	MemoryErrors    *[]truthMemErr  `json:"memory_errors"`
	OOMErrorDetails *[]truthOOMErr  `json:"oom_error_details"`
	ReadyAt         *[]string       `json:"ready_at"`
	Terminations    *[]truthTerm    `json:"terminations"`
}

type truthEvent struct {
	Time         *string       `json:"time"`
	Host         string        `json:"host"`
	Kernel       string        `json:"kernel"`
	Scope        string        `json:"scope"`
	ScopeFrom    *string       `json:"scope_from"`
	OOMMemcg     string        `json:"oom_memcg"`
	TaskMemcg    string        `json:"task_memcg"`
	MemcgLimitKB *uint64       `json:"memcg_limit_kb"`
	MemcgUsageKB *uint64       `json:"memcg_usage_kb"`
	Trigger      *truthTrigger `json:"trigger"`
	Victim       *truthVictim  `json:"victim"`
	Selected     *Selected     `json:"selected"`
	Tasks        int           `json:"tasks"`
	Machine      *truthMachine `json:"machine"`
	Incomplete   bool          `json:"incomplete"`
}

type truthTrigger struct {
	Name        string `json:"name"`
	PID         *int   `json:"pid"`
	UID         *int   `json:"uid"`
	GFPMask     string `json:"gfp_mask"`
	Order       *int   `json:"order"`
	OOMScoreAdj *int   `json:"oom_score_adj"`
}

type truthVictim struct {
	PID         int     `json:"pid"`
	Name        string  `json:"name"`
	NamedBy     string  `json:"named_by"`
	UID         *int    `json:"uid"`
	TotalVMKB   *uint64 `json:"total_vm_kb"`
	AnonKB      *uint64 `json:"anon_rss_kb"`
	FileKB      *uint64 `json:"file_rss_kb"`
	ShmemKB     *uint64 `json:"shmem_rss_kb"`
	PgtablesKB  *uint64 `json:"pgtables_kb"`
	SwapKB      *uint64 `json:"swap_kb"`
	OOMScoreAdj *int    `json:"oom_score_adj"`
	SelectedPID *int    `json:"selected_pid"`
	ReapedKB    *uint64 `json:"reaped_kb"`
}

type truthMachine struct {
	RAMKB         *uint64  `json:"ram_kb"`
	PrivateAnonKB *uint64  `json:"private_anon_kb"`
	ShmemKB       *uint64  `json:"shmem_kb"`
	FileKB        *uint64  `json:"file_kb"`
	PagetablesKB  *uint64  `json:"pagetables_kb"`
	SlabKB        *uint64  `json:"slab_kb"`
	FreeKB        *uint64  `json:"free_kb"`
	SwapFreeKB    *uint64  `json:"swap_free_kb"`
	SwapTotalKB   *uint64  `json:"swap_total_kb"`
	HugePoolKB    *uint64  `json:"huge_pool_kb"`
	Dominant      []string `json:"dominant"`
}

type truthCrash struct {
	Engine             string   `json:"engine"`
	Process            string   `json:"process"`
	KilledPID          *int     `json:"killed_pid"`
	ServerPID          *int     `json:"server_pid"`
	Signal             *int     `json:"signal"`
	ExitCode           *int     `json:"exit_code"`
	QueryPrefix        string   `json:"query_prefix"`
	Steps              []string `json:"steps"`
	Ready              bool     `json:"ready"`
	PostmasterDied     bool     `json:"postmaster_died"`
	StartupRecovery    bool     `json:"startup_recovery"`
	StartMissing       bool     `json:"start_missing"`
	NoRestart          bool     `json:"no_restart"`
	Incomplete         bool     `json:"incomplete"`
	SessionsTerminated int      `json:"sessions_terminated"`
	ConnectionsRefused int      `json:"connections_refused"`
	Time               *string  `json:"time"`
	ZoneKnown          bool     `json:"zone_known"`
	DowntimeMS         *int64   `json:"downtime_ms"`
}

// checker compares fields and counts them.
type checker struct {
	t      *testing.T
	name   string
	fields int
}

func (c *checker) eq(field string, got, want any) {
	c.t.Helper()
	c.fields++
	if !reflect.DeepEqual(got, want) {
		c.t.Errorf("%s: %s = %s, want %s", c.name, field, show(got), show(want))
	}
}

func show(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// kb turns a byte figure into KiB, keeping null as null.
func kb(v *uint64) *uint64 {
	if v == nil {
		return nil
	}
	k := *v / 1024
	return &k
}

func utcString(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := t.UTC().Format("2006-01-02T15:04:05.999999999")
	return &s
}

func readCorpus(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("testdata/corpus/*.truth.json")
	if err != nil || len(files) < 40 {
		t.Fatalf("corpus: %d truth files (%v), want at least 40", len(files), err)
	}
	sort.Strings(files)
	return files
}

// corpusLog reads a corpus log as a file given on the command line.
func corpusLog(t *testing.T, truthPath, kind string) Log {
	t.Helper()
	matches, _ := filepath.Glob(strings.TrimSuffix(truthPath, ".truth.json") + ".log")
	if len(matches) != 1 {
		t.Fatalf("%s: no log next to it", truthPath)
	}
	b, err := os.ReadFile(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	l := Log{Kind: Kind(kind), Source: filepath.Base(matches[0]), State: StateRead, Text: b, Given: true,
		SizeBytes: int64(len(b)), ReadBytes: int64(len(b))}
	switch kind {
	case "service":
		l.Kind = KindKernel // journal and syslog excerpts are given with --kernel-log
	case "kernel":
	default:
		l = detectKind(l) // a database log's engine comes from its content, as --db-log does
	}
	return l
}

func TestCorpusEveryFieldAgainstItsTruth(t *testing.T) {
	total, reports := 0, 0
	for _, p := range readCorpus(t) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var tf truthFile
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&tf); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		c := &checker{t: t, name: filepath.Base(p)}
		l := corpusLog(t, p, tf.Kind)
		r := Analyze(Input{Logs: []Log{l}, Zone: "UTC"})
		if tf.Kind == "kernel" || tf.Kind == "service" {
			checkKernelTruth(c, r, tf.Events)
		} else {
			checkDBTruth(c, r, tf)
		}
		if tf.Engine != nil {
			c.eq("detected engine", string(l.Kind), *tf.Engine)
		}
		checkChainTruth(c, r, tf)
		total += c.fields
		reports++
	}
	t.Logf("corpus: %d logs, %d fields checked", reports, total)
}

func checkKernelTruth(c *checker, r *Report, want []truthEvent) {
	c.eq("events", len(r.Events), len(want))
	for i := range min(len(r.Events), len(want)) {
		x, w := r.Events[i], want[i]
		n := fmt.Sprintf("event %d ", i+1)
		c.eq(n+"time", utcString(x.Time), w.Time)
		c.eq(n+"host", x.Host, w.Host)
		c.eq(n+"kernel", x.KernelRelease, w.Kernel)
		scope := x.Scope.Constraint
		if scope == "" {
			scope = "unknown"
		}
		c.eq(n+"scope", scope, w.Scope)
		c.eq(n+"scope from", nilIfEmpty(x.Scope.From), w.ScopeFrom)
		c.eq(n+"oom memcg", x.Scope.Cgroup, w.OOMMemcg)
		c.eq(n+"task memcg", x.Scope.TaskCgroup, w.TaskMemcg)
		c.eq(n+"memcg limit", kb(x.Scope.LimitBytes), w.MemcgLimitKB)
		c.eq(n+"memcg usage", kb(x.Scope.UsageBytes), w.MemcgUsageKB)
		c.eq(n+"tasks", x.TaskCount, w.Tasks)
		c.eq(n+"incomplete", x.Incomplete, w.Incomplete)
		c.eq(n+"selected", x.Selected, w.Selected)
		checkTrigger(c, n, x.Trigger, w.Trigger)
		checkVictim(c, n, x.Victim, w.Victim)
		checkMachine(c, n, x.Machine, w.Machine)
	}
}

func nilIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func checkTrigger(c *checker, n string, x *Trigger, w *truthTrigger) {
	if c.eq(n+"trigger present", x != nil, w != nil); x == nil || w == nil {
		return
	}
	got := truthTrigger{Name: x.Name, PID: x.PID, UID: x.UID, GFPMask: x.GFPMask, Order: x.Order, OOMScoreAdj: x.OOMScoreAdj}
	each(c, n+"trigger.", got, *w)
}

func checkVictim(c *checker, n string, x *Victim, w *truthVictim) {
	if c.eq(n+"victim present", x != nil, w != nil); x == nil || w == nil {
		return
	}
	got := truthVictim{PID: x.PID, Name: x.Name, NamedBy: x.NamedBy, UID: x.UID, TotalVMKB: kb(x.TotalVMBytes),
		AnonKB: kb(x.AnonBytes), FileKB: kb(x.FileBytes), ShmemKB: kb(x.ShmemBytes), PgtablesKB: kb(x.PgtablesBytes),
		SwapKB: kb(x.SwapBytes), OOMScoreAdj: x.OOMScoreAdj, SelectedPID: x.SelectedPID, ReapedKB: kb(x.ReapedBytes)}
	each(c, n+"victim.", got, *w)
}

func checkMachine(c *checker, n string, x *Machine, w *truthMachine) {
	if c.eq(n+"machine present", x != nil, w != nil); x == nil || w == nil {
		return
	}
	got := truthMachine{RAMKB: kb(x.RAMBytes), PrivateAnonKB: kb(x.PrivateAnonBytes), ShmemKB: kb(x.ShmemBytes),
		FileKB: kb(x.FileBytes), PagetablesKB: kb(x.PagetablesBytes), SlabKB: kb(x.SlabBytes), FreeKB: kb(x.FreeBytes),
		SwapFreeKB: kb(x.SwapFreeBytes), SwapTotalKB: kb(x.SwapTotalBytes), HugePoolKB: kb(x.HugePoolBytes),
		Dominant: append([]string{}, x.Dominant...)}
	each(c, n+"machine.", got, *w)
}

// each compares two structs field by field.
func each(c *checker, prefix string, got, want any) {
	c.t.Helper()
	g, w := reflect.ValueOf(got), reflect.ValueOf(want)
	for i := range g.NumField() {
		c.eq(prefix+g.Type().Field(i).Tag.Get("json"), g.Field(i).Interface(), w.Field(i).Interface())
	}
}

func checkDBTruth(c *checker, r *Report, tf truthFile) {
	c.eq("crashes", len(r.Crashes), len(tf.Crashes))
	c.eq("out-of-memory errors", len(r.OutOfMemory), tf.OOMErrors)
	for i := range min(len(r.Crashes), len(tf.Crashes)) {
		x := r.Crashes[i]
		got := truthCrash{Engine: x.Engine, Process: x.Process, KilledPID: x.KilledPID, ServerPID: x.ServerPID, Signal: x.Signal,
			ExitCode: x.ExitCode, QueryPrefix: x.Query, Steps: stepKinds(x), Ready: x.ReadyStep(), PostmasterDied: x.PostmasterDied,
			StartupRecovery: x.StartupRecovery, StartMissing: x.StartMissing, NoRestart: x.NoRestart, Incomplete: x.Incomplete,
			SessionsTerminated: x.SessionsTerminated, ConnectionsRefused: x.ConnectionsRefused, Time: utcString(x.Time),
			ZoneKnown: x.ZoneKnown}
		if x.Downtime != nil {
			ms := x.Downtime.Milliseconds()
			got.DowntimeMS = &ms
		}
		each(c, fmt.Sprintf("crash %d ", i+1), got, tf.Crashes[i])
	}
}

// stepKinds maps the steps back to their kinds.
func stepKinds(x Crash) []string {
	out := []string{}
	for _, s := range x.Steps {
		out = append(out, s.Kind)
	}
	return out
}
