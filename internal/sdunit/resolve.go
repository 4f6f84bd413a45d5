package sdunit

import (
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// SearchPaths are systemd's system unit directories, most important first.
var SearchPaths = []string{"/etc/systemd/system", "/run/systemd/system", "/usr/local/lib/systemd/system",
	"/usr/lib/systemd/system", "/lib/systemd/system"}

// Unit is a unit as systemd would merge it from its files.
type Unit struct {
	Name string
	// File is the unit file read ("" when none was found); DropIns the
	// drop-ins applied, in the order applied.
	File    string
	DropIns []string
	// Values are the merged assignments: the last one of each key wins;
	// an empty assignment of a key resets it.
	Values map[string]Assignment
}

// Get returns a [Service]/[Slice] (or any section's) key as set, and
// whether it was set.
func (u Unit) Get(key string) (Assignment, bool) {
	a, ok := u.Values[key]
	return a, ok && a.Value != ""
}

// Resolve finds name under root (a host root; "/" for this host): the
// unit file in the first search path that has it (a template
// "postgresql@.service" for "postgresql@15-main.service"), then the
// drop-ins of the type ("service.d"), of the template and of the unit,
// each directory's *.conf sorted by name, a file in a more important
// directory hiding one of the same name. A missing unit file is not an
// error (Unit.File is ""): drop-ins may still apply.
func Resolve(root, name string) (Unit, error) {
	u := Unit{Name: name, Values: map[string]Assignment{}}
	var files []string
	if f := find(root, name); f != "" {
		files = append(files, f)
	} else if t := template(name); t != "" {
		if f := find(root, t); f != "" {
			files = append(files, f)
		}
	}
	if len(files) > 0 {
		u.File = files[0]
	}
	for _, d := range dropInNames(name) {
		u.DropIns = append(u.DropIns, dropIns(root, d)...)
	}
	for _, f := range append(files, u.DropIns...) {
		if err := u.apply(root, f); err != nil {
			return u, err
		}
	}
	return u, nil
}

func (u *Unit) apply(root, f string) error {
	fh, err := os.Open(filepath.Join(root, f))
	if err != nil {
		return fmt.Errorf("read unit %s: %w", f, err)
	}
	defer fh.Close()
	as, err := Parse(fh, f)
	for _, a := range as {
		u.Values[a.Key] = a // later wins; "" resets
	}
	return err
}

// find returns the path of the first search path holding name.
func find(root, name string) string {
	for _, dir := range SearchPaths {
		p := path.Join(dir, name)
		if st, err := os.Stat(filepath.Join(root, p)); err == nil && !st.IsDir() {
			return p
		}
	}
	return ""
}

// template is "postgresql@.service" for "postgresql@15-main.service".
func template(name string) string {
	at := strings.IndexByte(name, '@')
	dot := strings.LastIndexByte(name, '.')
	if at < 0 || dot < at {
		return ""
	}
	return name[:at+1] + name[dot:]
}

// dropInNames are the drop-in directories of a unit, least specific first:
// the type's ("service.d"), the template's, the unit's.
func dropInNames(name string) []string {
	out := []string{}
	if dot := strings.LastIndexByte(name, '.'); dot >= 0 {
		out = append(out, name[dot+1:]+".d")
	}
	if t := template(name); t != "" {
		out = append(out, t+".d")
	}
	return append(out, name+".d")
}

// dropIns lists dir's *.conf over the search paths, sorted by file name,
// a name in a more important directory hiding the others.
func dropIns(root, dir string) []string {
	byName := map[string]string{}
	for i := len(SearchPaths) - 1; i >= 0; i-- {
		d := path.Join(SearchPaths[i], dir)
		ents, err := os.ReadDir(filepath.Join(root, d))
		if err != nil {
			continue
		}
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), ".conf") && !e.IsDir() {
				byName[e.Name()] = path.Join(d, e.Name())
			}
		}
	}
	out := make([]string, 0, len(byName))
	for _, n := range slices.Sorted(maps.Keys(byName)) {
		out = append(out, byName[n])
	}
	return out
}
