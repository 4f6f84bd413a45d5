package hostchange

import (
	"fmt"
	"os"

	"github.com/dbmem/dbmem/internal/linux"
)

// Undone is one change and its undoing.
type Undone struct {
	What   string `json:"what"`
	Before string `json:"before"`
	Set    string `json:"set"`
	After  string `json:"after"`
	OK     bool   `json:"ok"`
	Error  string `json:"error,omitempty"`
}

// Replay undoes what the killed owner of the journal at path left and
// removes the journal; the caller holds the lock its owner held. It
// returns what it undid (nothing, and no error, without a journal). A
// journal whose owner still runs is left alone. When an entry could not
// be undone the journal is kept and the error names it.
func Replay(fs linux.FS, path string) ([]Undone, error) {
	j, ok, err := LoadJournal(path)
	if err != nil || !ok {
		return nil, err
	}
	if o := j.Owner; o.PID != os.Getpid() && o.Running(linux.DefaultFS()) {
		return nil, fmt.Errorf("%s (pid %d, journal %s) is still running: it restores on exit; stop it with Ctrl-C or kill -TERM %d",
			o.Program, o.PID, path, o.PID)
	}
	out := j.Undo(fs)
	for _, r := range out {
		if !r.OK {
			return out, fmt.Errorf("could not restore %s: %s; journal kept at %s", r.What, r.Error, path)
		}
	}
	return out, j.Remove()
}

// Undo undoes every entry, each only where dbmem could have made it: the
// clusters first (their processes stopped, their directories removed),
// then the memory cgroups, then the kernel settings, newest first.
func (j *Journal) Undo(fs linux.FS) []Undone {
	var out []Undone
	for i, e := range j.Entries {
		switch {
		case e.kinds() != 1:
			out = append(out, Undone{What: fmt.Sprintf("entry %d of %s", i+1, j.path), Error: "not one change dbmem journals: not touched"})
		case e.Cluster != nil:
			out = append(out, e.Cluster.undo(fs))
		}
	}
	for _, e := range j.Entries {
		if e.Cgroup != nil && e.kinds() == 1 {
			out = append(out, e.Cgroup.undo(fs, j.Owner.Process))
		}
	}
	for i := len(j.Entries) - 1; i >= 0; i-- {
		if k := j.Entries[i].Kernel; k != nil && j.Entries[i].kinds() == 1 {
			out = append(out, k.Undo(fs))
		}
	}
	return out
}

func (e Entry) kinds() int {
	n := 0
	for _, set := range []bool{e.Kernel != nil, e.Cluster != nil, e.Cgroup != nil} {
		if set {
			n++
		}
	}
	return n
}

// Undo writes Before back, but only a value the setting accepts on this
// host (checkValue), and only while the setting still holds what was set
// (when Set is known): a value changed by someone else since is theirs.
func (k Kernel) Undo(fs linux.FS) Undone {
	r := Undone{What: k.Setting.String(), Before: k.Before, Set: k.Set}
	if why := checkValue(fs, k.Setting, linux.SelectedWord(k.Before)); why != "" {
		r.Error = why + ": dbmem does not write it back; check " + k.Setting.String() + " and set it yourself"
		return r
	}
	path := k.Path(fs)
	cur, err := Read(path)
	switch {
	case err != nil:
		r.Error = err.Error()
		return r
	case SameValue(cur, k.Before):
		r.After, r.OK = linux.SelectedWord(cur), true
		return r
	case k.Set != "" && !SameValue(cur, k.Set):
		r.After = linux.SelectedWord(cur)
		r.Error = fmt.Sprintf("it holds %s, not the %s dbmem set (it was %s before): changed by someone else since, so dbmem leaves it; "+
			"check it and set it yourself", linux.SelectedWord(cur), k.Set, k.Before)
		return r
	}
	got, err := Write(path, linux.SelectedWord(k.Before))
	r.After = linux.SelectedWord(got)
	if err != nil {
		r.Error = err.Error()
	} else if !SameValue(got, k.Before) {
		r.Error = fmt.Sprintf("wrote %s, the kernel reads back %s", k.Before, r.After)
	}
	r.OK = r.Error == ""
	return r
}
