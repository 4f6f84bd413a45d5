package apply

import (
	"fmt"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/hostchange"
	"github.com/dbmem/dbmem/internal/render"
)

// Plan is what apply (or a rollback) would do. Nothing in it has happened.
type Plan struct {
	Kind     string       `json:"kind"`             // "apply" or "rollback"
	Undoes   string       `json:"undoes,omitempty"` // the journal a rollback restores
	Live     []Change     `json:"live"`             // in the order they are applied
	Files    []FileChange `json:"files"`
	Skipped  []Skip       `json:"skipped,omitempty"`
	Refusals []Refusal    `json:"refusals,omitempty"`
	// Notes are what to do afterwards (restart, daemon-reload, reboot) and
	// what drifted since a plan or a run.
	Notes []string `json:"notes,omitempty"`
	// Persisted are the settings the files hold: this run's and those
	// earlier runs persisted in the same files (kept, not dropped).
	Persisted []finding.Setting `json:"persisted,omitempty"`
}

// Change is one live kernel value.
type Change struct {
	Setting finding.Setting `json:"setting"`
	Path    string          `json:"path"` // the kernel file
	Old     string          `json:"old"`  // what the kernel said before
	New     string          `json:"new"`
	// PairOld is, for vm.overcommit_ratio and vm.overcommit_kbytes, the
	// other one's old value: writing either zeroes the other.
	PairOld string `json:"pair_old,omitempty"`
	Got     string `json:"got,omitempty"` // read back after writing
	Done    bool   `json:"done"`          // written (and to be undone)
}

// Noop reports whether the kernel already has the value.
func (c Change) Noop() bool {
	if isOvercommitPair(c.Setting.Name) && c.PairOld != "" && c.PairOld != "0" {
		return false
	}
	return hostchange.SameValue(c.Old, c.New)
}

// Skip is a setting apply does not carry out, and why.
type Skip struct {
	Setting finding.Setting `json:"setting"`
	Why     string          `json:"why"`
}

// Refusal is a change apply will not make because it would make the host
// worse: what would happen, with the numbers, and the fix.
type Refusal struct {
	Setting string `json:"setting"` // "vm.overcommit_memory=2"
	Reason  string `json:"reason"`
	Fix     string `json:"fix"`
}

func (r Refusal) String() string { return r.Setting + ": " + r.Reason + " Fix: " + r.Fix }

// Changes reports whether running the plan would change anything.
func (p *Plan) Changes() bool {
	for _, c := range p.Live {
		if !c.Noop() {
			return true
		}
	}
	for _, f := range p.Files {
		if !f.Noop() {
			return true
		}
	}
	return false
}

// Prepare reads the host and works out what applying settings would do. It
// changes nothing.
func Prepare(settings []finding.Setting, o Options) (*Plan, error) {
	o = o.withDefaults()
	if err := render.Validate(settings); err != nil {
		return nil, err
	}
	settings, refused := allowed(settings)
	p := &Plan{Kind: "apply", Refusals: refused}
	write, err := fillCurrent(p.skip(settings, o), o)
	if err != nil {
		return nil, err
	}
	if p.Live, err = readLive(render.Order(write), o); err != nil {
		return nil, err
	}
	kept, notes, err := keptSettings(write, o)
	if err != nil {
		return nil, err
	}
	p.Persisted = append(append([]finding.Setting(nil), write...), kept...)
	if p.Files, err = planFiles(p.Persisted, o); err != nil {
		return nil, err
	}
	p.Notes = append(p.Notes, notes...)
	if err := p.check(write, o); err != nil {
		return nil, err
	}
	p.Notes = append(p.Notes, driftNotes(p.Live)...)
	p.Notes = append(p.Notes, afterNotes(p.Files)...)
	if hasKind(p.Files, "systemd") && !o.FS.Exists(o.FS.HostPath("/run/systemd/system")) {
		p.Notes = append(p.Notes, "systemd is not running on this host (no /run/systemd/system): the unit files take effect only where it runs")
	}
	return p, nil
}

// skip moves settings apply may not carry out into Skipped and returns the
// rest.
func (p *Plan) skip(settings []finding.Setting, o Options) []finding.Setting {
	var keep []finding.Setting
	for _, s := range settings {
		why := ""
		switch {
		case s.Target == finding.TargetPostgresRole:
			why = "a role's own setting (ALTER ROLE): applied over SQL with --postgres or --alter-system"
		case s.Target == finding.TargetPostgres && !o.Postgres:
			why = "a PostgreSQL setting: pass --postgres to write it to the instance's conf.d" + restartWords(s)
		case s.Target == finding.TargetMySQL && !o.MySQL:
			why = "a MySQL setting: pass --mysql to write it to " + render.DefaultMySQLConfDir + restartWords(s)
		case s.Target == finding.TargetKubernetes:
			why = "a pod's resources, not this host: render them in the kubernetes format and kubectl apply them"
		case s.Target == finding.TargetKernelArgs && !o.Boot:
			why = "kernel command line: takes effect at the next boot; pass --boot to write the GRUB drop-in"
		}
		if why != "" {
			p.Skipped = append(p.Skipped, Skip{Setting: s, Why: why})
			continue
		}
		keep = append(keep, s)
	}
	return keep
}

// check adds the refusals for the settings apply would carry out: engine
// not here, overcommit and pool limits.
func (p *Plan) check(settings []finding.Setting, o Options) error {
	eng := o.Engines
	if eng == nil {
		e, err := DetectEngines(o.FS)
		if err != nil {
			return fmt.Errorf("find the databases on this host: %w", err)
		}
		eng = &e
	}
	p.Refusals = append(p.Refusals, engineRefusals(settings, *eng, o.Render.Units)...)
	mem, err := readHostMem(o)
	if err != nil {
		return err
	}
	p.Refusals = append(p.Refusals, checkSteps(mem, p.Live, o.Policy)...)
	p.Refusals = append(p.Refusals, liveRefusals(mem, p.Live, o)...)
	return nil
}

func hasKind(files []FileChange, kind string) bool {
	for _, f := range files {
		if f.Kind == kind && !f.Noop() {
			return true
		}
	}
	return false
}

// restartWords says whether the setting takes effect with a reload or only
// at a restart, which dbmem never does to a database.
func restartWords(s finding.Setting) string {
	if s.Restart == "" {
		return " (it takes effect without a restart)"
	}
	return " (it takes effect at a restart: dbmem never restarts a database)"
}
