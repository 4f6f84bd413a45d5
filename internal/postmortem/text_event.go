package postmortem

import (
	"cmp"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/dbmem/dbmem/internal/inert"
	"github.com/dbmem/dbmem/internal/units"
)

func writeEvent(w io.Writer, n int, x Explained, zone string) {
	fmt.Fprintf(w, "\n%d. %s  %s\n", n, stamp(x.Time, x.TimeRaw, x.YearFrom), scopeTitle(x.Scope))
	if !x.ZoneKnown && x.Time != nil {
		fmt.Fprintf(w, "   (the log printed no zone: %s assumed)\n", inert.Text(zone))
	}
	if x.YearFrom != "" && x.YearFrom != yearUnknown {
		fmt.Fprintf(w, "   (the log printed no year: taken from %s)\n", x.YearFrom)
	}
	if !x.FromThisHost {
		fmt.Fprintf(w, "   not this host's: %s; explained from the log alone\n", inert.Text(x.Origin))
	}
	if x.Headline != "" {
		fmt.Fprintf(w, "   main cause: %s\n", inert.Text(x.Headline))
	}
	writeVictim(w, x.Victim)
	writeTrigger(w, x.Trigger)
	for _, s := range x.Notes {
		fmt.Fprintf(w, "   - %s\n", inert.Text(s))
	}
	writeMachine(w, x.Machine)
	writeTasks(w, x)
	for _, n := range x.Services {
		fmt.Fprintf(w, "   service  what systemd did next: [%d] under \"What the service manager did\"\n", n)
	}
	if x.Crash != nil {
		writeCrash(w, *x.Crash, "   ")
	} else if x.Victim != nil && isDatabase(x.Victim.Name, x.Victim.Role) {
		fmt.Fprintln(w, "   No crash restart of its server was found in the database logs read (see Sources; --db-log gives one).")
	}
	fmt.Fprintf(w, "   seen in: %s\n", inert.Text(strings.Join(x.Sources, ", ")))
}

func writeVictim(w io.Writer, v *Victim) {
	if v == nil {
		fmt.Fprintf(w, "   killed   %s\n", "the victim is "+notInLog)
		return
	}
	how := ""
	if v.NamedBy != "" && v.NamedBy != "the kill line" {
		how = " (named only by " + v.NamedBy + ")"
	}
	fmt.Fprintf(w, "   killed   %s pid %d%s%s\n", inert.Text(v.Name), v.PID, roleText(v.Role, v.RoleFrom, v.Instance), how)
	fmt.Fprintf(w, "            %s\n", victimSizes(v))
}

func writeTrigger(w io.Writer, t *Trigger) {
	if t == nil {
		fmt.Fprintf(w, "   trigger  %s\n", "the process that asked for memory is "+notInLog)
		return
	}
	pid := "pid " + notInLog
	if t.PID != nil {
		pid = fmt.Sprintf("pid %d", *t.PID)
	}
	fmt.Fprintf(w, "   trigger  %s %s%s\n", inert.Text(t.Name), pid, roleText(t.Role, t.RoleFrom, t.Instance))
}

func roleText(role, from, instance string) string {
	if role == "" {
		return ""
	}
	s := ": " + role
	if instance != "" {
		s += " of " + inert.Text(instance)
	}
	return s + " (from the " + from + ")"
}

// sizeField is one figure of a list, nil when not printed.
type sizeField struct {
	name string
	v    *uint64
}

// victimSizes lists the figures printed, then those that were not.
func victimSizes(v *Victim) string {
	fields := []sizeField{{"anon-rss", v.AnonBytes}, {"file-rss", v.FileBytes}, {"shmem-rss", v.ShmemBytes},
		{"page tables", v.PgtablesBytes}, {"swap", v.SwapBytes}, {"total-vm", v.TotalVMBytes}}
	var known, missing []string
	for _, f := range fields {
		if f.v == nil {
			missing = append(missing, f.name)
			continue
		}
		known = append(known, f.name+" "+units.Bytes(*f.v))
	}
	if v.OOMScoreAdj != nil {
		known = append(known, fmt.Sprintf("oom_score_adj %d", *v.OOMScoreAdj))
	} else {
		missing = append(missing, "oom_score_adj")
	}
	if v.UID != nil {
		known = append(known, fmt.Sprintf("uid %d", *v.UID))
	} else {
		missing = append(missing, "uid")
	}
	out := strings.Join(known, ", ")
	if len(missing) > 0 {
		if out != "" {
			out += "; "
		}
		out += notInLog + ": " + strings.Join(missing, ", ")
	}
	return out
}

// writeMachine prints the Mem-Info summary.
func writeMachine(w io.Writer, m *Machine) {
	if m == nil {
		return
	}
	fields := []sizeField{{"RAM", m.RAMBytes}, {"private anon", m.PrivateAnonBytes}, {"shmem", m.ShmemBytes},
		{"file cache", m.FileBytes}, {"page tables", m.PagetablesBytes}, {"slab", m.SlabBytes}, {"free", m.FreeBytes},
		{"swap free", m.SwapFreeBytes}, {"swap total", m.SwapTotalBytes}, {"huge page pool", m.HugePoolBytes}}
	var known, missing []string
	for _, f := range fields {
		if f.v == nil {
			missing = append(missing, f.name)
			continue
		}
		known = append(known, f.name+" "+units.Bytes(*f.v))
	}
	line := "machine  " + strings.Join(known, ", ")
	if len(missing) > 0 {
		line += "; " + notInLog + ": " + strings.Join(missing, ", ")
	}
	fmt.Fprintf(w, "   %s\n", line)
}

func writeTasks(w io.Writer, x Explained) {
	if len(x.Tasks) == 0 {
		return
	}
	fmt.Fprintf(w, "   largest of the %s in the task table (RSS counts shared memory in every process that maps it; - = %s):\n",
		plural(x.TaskCount, "process"), notInLog)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "     PID\tNAME\tROLE\tRSS\tANON\tSHMEM\tPGTABLES\tSWAP\tADJ\t")
	for _, t := range x.Tasks {
		role, mark := t.Role, ""
		role = cmp.Or(role, "-")
		if t.Victim {
			mark = "  <- killed"
		}
		fmt.Fprintf(tw, "     %d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.PID, inert.Text(t.Name), role, units.Bytes(t.RSSBytes),
			units.BytesOr(t.AnonBytes, "-"), units.BytesOr(t.ShmemBytes, "-"), units.BytesOr(t.PgtablesBytes, "-"), units.BytesOr(t.SwapBytes, "-"), units.OptInt(t.OOMScoreAdj, "-"), mark)
	}
	tw.Flush()
}

func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		return s[:max] + "..."
	}
	return s
}
