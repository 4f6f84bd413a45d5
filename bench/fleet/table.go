package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/linux"
)

// write saves the results so far: Markdown at cfg.Out, JSON next to it.
func (b *bench) write() error {
	if err := os.MkdirAll(filepath.Dir(b.cfg.Out), 0o755); err != nil {
		return err
	}
	raw, err := json.MarshalIndent(map[string]any{"config": b.cfg, "postgres": b.postgres, "notes": b.notes, "results": b.results}, "", " ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(strings.TrimSuffix(b.cfg.Out, ".md")+".json", raw, 0o644); err != nil {
		return err
	}
	return os.WriteFile(b.cfg.Out, []byte(b.markdown()), 0o644)
}

func (b *bench) markdown() string {
	var s strings.Builder
	kernel, _ := linux.KernelRelease(linux.DefaultFS())
	m, _ := linux.ReadMeminfo(linux.DefaultFS())
	ram := "unknown"
	if m.MemTotalBytes != nil {
		ram = gib(*m.MemTotalBytes)
	}
	fmt.Fprintf(&s, "# dbmem fleet benchmark, %s\n\n", b.started.Format("2006-01-02 15:04"))
	fmt.Fprintf(&s, "Kernel %s, %d CPUs, %s RAM, %s. Readers run one at a time as child processes, %d runs each, interleaved; medians. Wall and CPU (user+sys from wait4) in seconds.\n\n",
		kernel, runtime.NumCPU(), ram, b.postgres, b.cfg.Reps)
	writeSummary(&s, b.results)
	writeAgreement(&s, b.results)
	writeReport(&s, b.results)
	writeStatusScan(&s, b.results)
	for _, r := range b.results {
		writeConfig(&s, r)
	}
	s.WriteString("\n## Notes\n\n")
	for _, n := range b.notes {
		fmt.Fprintf(&s, "- %s\n", n)
	}
	fmt.Fprintf(&s, "\nRun started %s, lasted %s.\n", b.started.Format(time.RFC3339), time.Since(b.started).Round(time.Second))
	return s.String()
}

func (r configResult) label() string {
	return fmt.Sprintf("%s | %s | %d", r.Huge, r.Shared, r.Backends)
}

func writeSummary(s *strings.Builder, rs []configResult) {
	s.WriteString("## Private cost of every backend: wall (CPU) seconds\n\n")
	s.WriteString("| huge_pages | shared_buffers | backends | VmPTE per backend (MiB) | dbmem fast | dbmem smaps | smem | ps_mem-style | fast / smem wall | fast / smem CPU | load avg |\n")
	s.WriteString("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n")
	for _, r := range rs {
		fmt.Fprintf(s, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.label(), mib(r.VmPTEMedian),
			wallCPU(r.tool(toolFast.Name)), wallCPU(r.tool(toolSmaps.Name)), wallCPU(r.tool(toolSmem.Name)), wallCPU(r.tool(toolPsmem.Name)),
			ratio(r.tool(toolFast.Name), r.tool(toolSmem.Name), wallNS), ratio(r.tool(toolFast.Name), r.tool(toolSmem.Name), cpuNS),
			r.LoadStart+" → "+r.LoadEnd)
	}
}

func writeAgreement(s *strings.Builder, rs []configResult) {
	s.WriteString("\n## Agreement per backend: Pss_Anon equal to smaps_rollup's (kB), and medians over the backends (MiB)\n\n")
	s.WriteString("| huge_pages | shared_buffers | backends | pagemap = smaps_rollup | fast = smaps_rollup | max difference | fast measured by | Pss_Anon | private fast | private smaps | status (RssAnon) | smem USS | smem PSS | ps_mem Private | ps_mem RAM used |\n")
	s.WriteString("| --- | --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, r := range rs {
		a, md := r.Agreement, r.Agreement.Medians
		fmt.Fprintf(s, "| %s | %d / %d | %d / %d | %.3f%% | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.label(),
			a.Pagemap.EqualKB, a.Pagemap.Compared, a.Fast.EqualKB, a.Fast.Compared, 100*max(a.Pagemap.MaxRel, a.Fast.MaxRel), methodCounts(a.FastMethods),
			mib(md["fast Pss_Anon"]), mib(md["fast private"]), mib(md["smaps private"]), mib(md["status private"]),
			mib(md["smem USS"]), mib(md["smem PSS"]), mib(md["ps_mem Private"]), mib(md["ps_mem RAM used"]))
	}
}

func writeReport(s *strings.Builder, rs []configResult) {
	s.WriteString("\n## `dbmem report` end to end (every instance on the host): wall (CPU) seconds, peak RSS\n\n")
	s.WriteString("| huge_pages | shared_buffers | backends | --method auto | --method smaps | --method status |\n| --- | --- | ---: | ---: | ---: | ---: |\n")
	for _, r := range rs {
		if r.tool(reportTool("auto").Name) == nil {
			continue
		}
		fmt.Fprintf(s, "| %s", r.label())
		for _, m := range []string{"auto", "smaps", "status"} {
			t := r.tool(reportTool(m).Name)
			fmt.Fprintf(s, " | %s, %s", wallCPU(t), peakRSS(t))
		}
		s.WriteString(" |\n")
	}
}

func writeStatusScan(s *strings.Builder, rs []configResult) {
	s.WriteString("\n## The Measure call alone (inside `fleet measure`, without process start-up): wall (CPU) ms per backend\n\n")
	s.WriteString("| huge_pages | shared_buffers | backends | fast | pagemap only | smaps | status | status, all backends |\n| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, r := range rs {
		n := float64(r.Backends)
		st := r.tool(toolStatus.Name)
		fmt.Fprintf(s, "| %s | %s | %s | %s | %s | %s |\n", r.label(), inner(r.tool(toolFast.Name), n), inner(r.tool(toolPagemap.Name), n),
			inner(r.tool(toolSmaps.Name), n), inner(st, n), inner(st, 1))
	}
}

func writeConfig(s *strings.Builder, r configResult) {
	fmt.Fprintf(s, "\n### huge_pages=%s, shared_buffers=%s, %d backends (table %s, load %s → %s)\n\n", r.Huge, r.Shared, r.Backends, gib(r.TableBytes), r.LoadStart, r.LoadEnd)
	s.WriteString("| reader | wall | CPU | peak RSS | wall per backend | wall vs smem | CPU vs smem | runs |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n")
	smem := r.tool(toolSmem.Name)
	for i := range r.Tools {
		t := &r.Tools[i]
		if len(t.Runs) == 0 {
			fmt.Fprintf(s, "| %s | failed: %s |  |  |  |  |  |  |\n", t.Tool, t.Err)
			continue
		}
		fmt.Fprintf(s, "| %s | %s | %s | %s | %.2f ms | %s | %s | %s |\n", t.Tool, secs(t.median(wallNS)), secs(t.median(cpuNS)), peakRSS(t),
			float64(t.median(wallNS))/1e6/float64(r.Backends), ratio(t, smem, wallNS), ratio(t, smem, cpuNS), runList(t))
	}
	for _, t := range r.Tools {
		for _, fb := range t.Fallbacks {
			fmt.Fprintf(s, "\n%s: %s\n", t.Tool, fb)
		}
	}
}
