package apply

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/dbmem/dbmem/internal/hostchange"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/render"
)

// PrepareRollback returns the plan that restores the state before a run:
// the run with the given id, or (id "") the newest apply that has not been
// undone. Running it (Run) is journaled like any run, so a rollback can be
// rolled back too.
func PrepareRollback(o Options, id string) (*Plan, error) {
	o = o.withDefaults()
	all, err := Journals(o.JournalDir)
	if err != nil {
		return nil, err
	}
	j, err := pickJournal(all, id, o.JournalDir)
	if err != nil {
		return nil, err
	}
	p, err := reversePlan(j, o)
	if err != nil {
		return nil, err
	}
	p.Kind, p.Undoes = "rollback", j.ID
	mem, err := readHostMem(o)
	if err != nil {
		return nil, err
	}
	p.Refusals = checkSteps(mem, p.Live, o.Policy)
	return p, nil
}

func pickJournal(all []*Journal, id, dir string) (*Journal, error) {
	for i := len(all) - 1; i >= 0; i-- {
		j := all[i]
		if id == "" && j.Kind == "apply" && UndoneBy(j, all) == "" {
			return j, nil
		}
		if id != "" && j.ID == id {
			if by := UndoneBy(j, all); by != "" {
				return nil, fmt.Errorf("run %s was already undone (by %s)", id, by)
			}
			return j, laterConflict(j, all[i+1:], all)
		}
	}
	if id != "" {
		return nil, fmt.Errorf("no run %s in %s (dbmem rollback --list shows the runs)", id, dir)
	}
	return nil, fmt.Errorf("nothing to roll back: every run in %s is undone (or there is none)", dir)
}

// laterConflict refuses to undo a run while a later run that changed the
// same values still stands.
func laterConflict(j *Journal, later, all []*Journal) error {
	mine := j.paths()
	for _, l := range later {
		if UndoneBy(l, all) != "" || l.Undoes == j.ID {
			continue
		}
		for p := range l.paths() {
			if mine[p] {
				return fmt.Errorf("run %s later changed %s too: roll it back first (dbmem rollback --id %s)", l.ID, p, l.ID)
			}
		}
	}
	return nil
}

// reversePlan restores what a journal recorded: live values newest first
// (vm.overcommit_ratio/kbytes as a pair), then files (from their backups,
// or removed when the run created them).
func reversePlan(j *Journal, o Options) (*Plan, error) {
	p := &Plan{Kind: "rollback", Undoes: j.ID}
	for i := len(j.Live) - 1; i >= 0; i-- {
		c, err := reverseChange(j.Live[i], o)
		if err != nil {
			return nil, err
		}
		if done := j.Live[i]; done.Got != "" && !hostchange.SameValue(c.Old, done.Got) {
			p.Notes = append(p.Notes, fmt.Sprintf("%s is %s now, not the %s this run set: restoring %s anyway",
				done.Setting.Name, c.Old, done.Got, c.New))
		}
		p.Live = append(p.Live, c)
	}
	for i := len(j.Files) - 1; i >= 0; i-- {
		if err := fileOK(j.Files[i], j, o); err != nil {
			return nil, err
		}
		f, err := reverseFile(j.Files[i], p)
		if err != nil {
			return nil, err
		}
		p.Files = append(p.Files, f)
	}
	return p, nil
}

// reverseChange writes back the old value. For the overcommit pair it
// writes the one that was non-zero (writing either zeroes the other).
func reverseChange(done Change, o Options) (Change, error) {
	c := Change{Setting: done.Setting, Path: done.Path, New: done.Old}
	c.Setting.Value, c.Setting.Current = done.Old, ""
	if isOvercommitPair(done.Setting.Name) {
		ratio, kbytes := done.Old, done.PairOld
		if done.Setting.Name == "vm.overcommit_kbytes" {
			ratio, kbytes = done.PairOld, done.Old
		}
		name, val := "vm.overcommit_ratio", ratio
		if kbytes != "" && kbytes != "0" {
			name, val = "vm.overcommit_kbytes", kbytes
		}
		c.Setting.Name, c.Setting.Value, c.New = name, val, val
		c.Path = o.FS.ProcPath("sys", render.SysctlPath(name))
	}
	cur, err := o.Kernel.Read(c.Path)
	if err != nil {
		return c, fmt.Errorf("read %s: %w", c.Path, err)
	}
	c.Old = linux.SelectedWord(cur)
	if pair := pairName(c.Setting.Name); pair != "" {
		c.PairOld, _ = o.Kernel.Read(o.FS.ProcPath("sys", render.SysctlPath(pair)))
	}
	return c, nil
}

// reverseFile restores a file from its backup (same bytes, mode and
// owner), or removes a file the run created.
func reverseFile(rec FileRecord, p *Plan) (FileChange, error) {
	f := FileChange{File: render.File{Kind: "restore", Path: rec.Path}, Target: rec.Path, UID: -1, GID: -1}
	if err := f.readCurrent(); err != nil {
		return f, err
	}
	if f.Exists && rec.NewSHA256 != "" && sum([]byte(f.Old)) != rec.NewSHA256 {
		p.Notes = append(p.Notes, rec.Path+" was changed since this run wrote it: restoring it anyway (the current file is kept as a backup)")
	}
	if !rec.Existed {
		f.Remove, f.Dirs = true, rec.CreatedDirs
		return f, nil
	}
	b, st, err := readBackup(rec)
	if err != nil {
		return f, err
	}
	f.Content, f.Mode = string(b), st.Mode().Perm()
	f.UID, f.GID = owner(st)
	return f, nil
}

// fileOK refuses a journaled file apply could not have written: a path
// that is not absolute and clean, a base name render does not write, a
// backup elsewhere than apply keeps them (next to the file for an apply,
// in the journal directory for a rollback), a created directory that is
// not above the file. A journal is root's, in root's directory; this
// stops a damaged or forged one from restoring any other file.
func fileOK(rec FileRecord, j *Journal, o Options) error {
	dir := o.JournalDir
	bad := ""
	switch {
	case !filepath.IsAbs(rec.Path) || filepath.Clean(rec.Path) != rec.Path:
		bad = "not an absolute, clean path"
	case !slices.Contains(render.FileNames(), filepath.Base(rec.Path)) && (o.Restorable == nil || !o.Restorable(rec.Path)):
		bad = "not a file dbmem writes (" + strings.Join(render.FileNames(), ", ") + ")" + restoreHint(j)
	case rec.Backup != "" && rec.Backup != backupName(rec.Path, j.ID) &&
		filepath.Clean(rec.Backup) != filepath.Join(filepath.Clean(dir), j.ID+".files", flatName(rec.Path)):
		bad = "its backup " + rec.Backup + " is not where dbmem keeps one"
	}
	for _, d := range rec.CreatedDirs {
		if bad == "" && !strings.HasPrefix(rec.Path, filepath.Clean(d)+"/") {
			bad = "created directory " + d + " is not above it"
		}
	}
	if bad != "" {
		return fmt.Errorf("journal %s names %s: %s; dbmem does not restore it: check the journal and the file by hand", j.Path, rec.Path, bad)
	}
	return nil
}

// readBackup reads a file's backup: opened without following a link (a
// conf.d backup sits in a directory the database account owns, which could
// put a link to /etc/shadow in its place), a regular file, holding the
// bytes the journal recorded (sha256) when the run replaced the file.
func readBackup(rec FileRecord) ([]byte, os.FileInfo, error) {
	f, err := os.OpenFile(rec.Backup, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, fmt.Errorf("the backup %s of %s is gone: cannot restore it", rec.Backup, rec.Path)
	}
	if errors.Is(err, syscall.ELOOP) {
		return nil, nil, fmt.Errorf("the backup %s of %s is a symbolic link now: dbmem does not restore through it; check both files by hand", rec.Backup, rec.Path)
	}
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("the backup %s of %s is not a regular file (%v): cannot restore it", rec.Backup, rec.Path, err)
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, nil, err
	}
	if rec.OldSHA256 != "" && sum(b) != rec.OldSHA256 {
		return nil, nil, fmt.Errorf("the backup %s of %s was changed since the run (sha256 %s, the journal says %s): dbmem does not restore it; check both files by hand",
			rec.Backup, rec.Path, sum(b)[:12], rec.OldSHA256[:min(12, len(rec.OldSHA256))])
	}
	return b, st, nil
}

// restoreHint names the command that undoes a run of another dbmem
// command (its note says which: `dbmem pooler set` writes pgbouncer.ini).
func restoreHint(j *Journal) string {
	for _, n := range j.Notes {
		if strings.Contains(n, "dbmem pooler rollback") {
			return "; this run is a 'dbmem pooler set': undo it with dbmem pooler rollback --id " + j.ID
		}
	}
	return ""
}
