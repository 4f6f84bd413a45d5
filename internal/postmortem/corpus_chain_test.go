package postmortem

import (
	"fmt"
	"strings"
)

// Truth sections for the service manager, the other killers, MySQL and
// Oracle memory errors and PostgreSQL's out-of-memory errors in detail.

type truthService struct {
	Unit            string   `json:"unit"`
	Events          []string `json:"events"`
	Result          string   `json:"result"`
	Fate            string   `json:"fate"`
	KilledBy        string   `json:"killed_by"`
	RestartCounter  *int     `json:"restart_counter"`
	MemoryPeakBytes *uint64  `json:"memory_peak_bytes"`
	SwapPeakBytes   *uint64  `json:"swap_peak_bytes"`
	MainExit        string   `json:"main_exit"`
	TimeRaw         string   `json:"time_raw"`
	TiedEvent       *int     `json:"tied_event"`
	TiedBy          string   `json:"tied_by"`
}

type truthKiller struct {
	Killer    string  `json:"killer"`
	Action    string  `json:"action"`
	Time      *string `json:"time"`
	TimeRaw   string  `json:"time_raw"`
	Victim    string  `json:"victim"`
	VictimPID *int    `json:"victim_pid"`
	Reason    string  `json:"reason"`
	Value     string  `json:"value"`
	Threshold string  `json:"threshold"`
	Signal    string  `json:"signal"`
	RSSBytes  *uint64 `json:"rss_bytes"`
}

type truthMemErr struct {
	Engine        string  `json:"engine"`
	Code          string  `json:"code"`
	Time          *string `json:"time"`
	RequestBytes  *uint64 `json:"request_bytes"`
	Errno         *int    `json:"errno"`
	Area          string  `json:"area"`
	Process       string  `json:"process"`
	StartupFailed bool    `json:"startup_failed"`
}

type truthOOMErr struct {
	Kind             string  `json:"kind"`
	Severity         string  `json:"severity"`
	PID              *int    `json:"pid"`
	Time             *string `json:"time"`
	ZoneWritten      string  `json:"zone_written"`
	RequestBytes     *uint64 `json:"request_bytes"`
	RequestRedacted  bool    `json:"request_redacted"`
	Context          string  `json:"context"`
	QueryLines       int     `json:"query_lines"`
	AutovacuumTarget string  `json:"autovacuum_target"`
	LargestContext   string  `json:"largest_context"`
	LargestBytes     *uint64 `json:"largest_bytes"`
}

type truthTerm struct {
	Time  *string `json:"time"`
	By    string  `json:"by"`
	PID   *int    `json:"pid"`
	Error string  `json:"error"`
}

func checkChainTruth(c *checker, r *Report, tf truthFile) {
	if tf.Services != nil {
		checkServices(c, r.Services, *tf.Services)
	}
	if tf.Killers != nil {
		checkKillers(c, r.Killers, *tf.Killers)
	}
	if tf.MemoryErrors != nil {
		checkMemErrs(c, r.MemoryErrors, *tf.MemoryErrors)
	}
	if tf.OOMErrorDetails != nil {
		checkOOMErrs(c, r.OutOfMemory, *tf.OOMErrorDetails)
	}
	if tf.ReadyAt != nil {
		got := []string{}
		for _, x := range r.Ready {
			got = append(got, *orNil(utcString(x.Time)))
		}
		c.eq("ready for connections", got, *tf.ReadyAt)
	}
	if tf.Terminations != nil {
		c.eq("terminations", len(r.Terminations), len(*tf.Terminations))
		for i := range min(len(r.Terminations), len(*tf.Terminations)) {
			x := r.Terminations[i]
			each(c, fmt.Sprintf("termination %d ", i+1), truthTerm{Time: utcString(x.Time), By: x.By, PID: x.PID, Error: x.Error}, (*tf.Terminations)[i])
		}
	}
}

func orNil(s *string) *string {
	if s == nil {
		n := "null"
		return &n
	}
	return s
}

func checkServices(c *checker, got []Service, want []truthService) {
	c.eq("services", len(got), len(want))
	for i := range min(len(got), len(want)) {
		x := got[i]
		kinds := []string{}
		for _, e := range x.Events {
			kinds = append(kinds, e.Kind)
		}
		g := truthService{Unit: x.Unit, Events: kinds, Result: x.Result, Fate: x.Fate, KilledBy: x.KilledBy, RestartCounter: x.RestartCounter,
			MemoryPeakBytes: x.MemoryPeakBytes, SwapPeakBytes: x.SwapPeakBytes, MainExit: x.MainExit, TimeRaw: x.TimeRaw,
			TiedEvent: x.TiedEvent, TiedBy: x.TiedBy}
		each(c, fmt.Sprintf("service %d ", i+1), g, want[i])
	}
}

func checkKillers(c *checker, got []Killer, want []truthKiller) {
	c.eq("other killers", len(got), len(want))
	for i := range min(len(got), len(want)) {
		x := got[i]
		g := truthKiller{Killer: x.Killer, Action: x.Action, Time: utcString(x.Time), TimeRaw: x.TimeRaw, Victim: x.Victim,
			VictimPID: x.VictimPID, Reason: x.Reason, Value: x.Value, Threshold: x.Threshold, Signal: x.Signal, RSSBytes: x.RSSBytes}
		each(c, fmt.Sprintf("killer %d ", i+1), g, want[i])
	}
}

func checkMemErrs(c *checker, got []MemoryError, want []truthMemErr) {
	c.eq("memory errors", len(got), len(want))
	for i := range min(len(got), len(want)) {
		x := got[i]
		g := truthMemErr{Engine: x.Engine, Code: x.Code, Time: utcString(x.Time), RequestBytes: x.RequestBytes, Errno: x.Errno,
			Area: x.Area, Process: x.Process, StartupFailed: x.StartupFailed}
		each(c, fmt.Sprintf("memory error %d ", i+1), g, want[i])
	}
}

func checkOOMErrs(c *checker, got []OOMError, want []truthOOMErr) {
	c.eq("out-of-memory errors (detail)", len(got), len(want))
	for i := range min(len(got), len(want)) {
		x := got[i]
		lines := 0
		if x.Query != "" {
			lines = strings.Count(x.Query, "\n") + 1
		}
		g := truthOOMErr{Kind: x.Kind, Severity: x.Severity, PID: x.PID, Time: utcString(x.Time), ZoneWritten: x.ZoneWritten,
			RequestBytes: x.RequestBytes, RequestRedacted: x.RequestRedacted, Context: x.Context, QueryLines: lines,
			AutovacuumTarget: x.AutovacuumTarget, LargestContext: x.Largest, LargestBytes: x.LargestBytes}
		each(c, fmt.Sprintf("oom error %d ", i+1), g, want[i])
	}
}
