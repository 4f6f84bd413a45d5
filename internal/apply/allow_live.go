package apply

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/units"
)

// liveRefusals are the checks of allowed live values that depend on the
// host: a transparent_hugepage word the kernel offers, a surplus pool that
// leaves the reserve, a hugetlb_shm_group that exists, and SysV limits that
// only grow.
func liveRefusals(h hostMem, live []Change, o Options) []Refusal {
	final := h
	for _, c := range live {
		if next, err := final.with(c); err == nil {
			final = next
		}
	}
	var out []Refusal
	for _, c := range live {
		if c.Noop() {
			continue
		}
		if why := liveRefusal(c, final, o); why != "" {
			out = append(out, Refusal{Setting: label(c), Reason: why, Fix: liveFix(c)})
		}
	}
	return out
}

func liveRefusal(c Change, final hostMem, o Options) string {
	switch c.Setting.Name {
	case "vm.nr_overcommit_hugepages":
		return surplusRefusal(c, final, o.Policy)
	case "vm.hugetlb_shm_group":
		return groupRefusal(c, o)
	case "kernel.shmmax", "kernel.shmall":
		return lowerRefusal(c)
	}
	if strings.Contains(c.Path, "/transparent_hugepage/") {
		return choiceRefusal(c, o)
	}
	return ""
}

// surplusRefusal: surplus huge pages come out of free memory when a
// program asks; with the pools they must leave the reserve.
func surplusRefusal(c Change, h hostMem, pol Policy) string {
	n, _ := strconv.ParseUint(c.New, 10, 64)
	surplus, reserve := n*h.DefaultPage, pol.reserve(h.MemTotal)
	if h.hugetlb()+surplus+reserve <= h.MemTotal && surplus/max(h.DefaultPage, 1) == n {
		return ""
	}
	return fmt.Sprintf("%d surplus pages of %s (%s) on top of the pools (%s) would leave less than %s of %s RAM for everything else.",
		n, units.Bytes(h.DefaultPage), units.Bytes(surplus), units.Bytes(h.hugetlb()), units.Bytes(reserve), units.Bytes(h.MemTotal))
}

// groupRefusal: vm.hugetlb_shm_group lets a group lock memory in huge
// pages; it must be a group of this host (0, root's, is the default).
func groupRefusal(c Change, o Options) string {
	if c.New == "0" {
		return ""
	}
	b, err := o.FS.ReadFile(o.FS.HostPath("/etc/group"))
	if err != nil {
		return fmt.Sprintf("cannot check that gid %s is a group of this host: %v.", c.New, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if f := strings.Split(sc.Text(), ":"); len(f) >= 3 && f[2] == c.New {
			return ""
		}
	}
	return fmt.Sprintf("gid %s is not a group in /etc/group: the setting would let an unknown group lock memory in huge pages.", c.New)
}

// lowerRefusal: a lower SysV limit can stop a database from creating its
// segments at its next start; plan only raises them.
func lowerRefusal(c Change) string {
	old, err1 := strconv.ParseUint(c.Old, 10, 64)
	v, err2 := strconv.ParseUint(c.New, 10, 64)
	if err1 != nil || err2 != nil || v >= old {
		return ""
	}
	return fmt.Sprintf("%s would fall from %s to %s: a database that needs a segment above the new limit could not start again.", c.Setting.Name, c.Old, c.New)
}

// choiceRefusal: a transparent_hugepage file takes one of the words it
// lists ("always [madvise] never").
func choiceRefusal(c Change, o Options) string {
	raw, err := o.Kernel.Read(c.Path)
	if err != nil {
		return fmt.Sprintf("cannot read %s: %v.", c.Path, err)
	}
	words := strings.Fields(strings.NewReplacer("[", "", "]", "").Replace(raw))
	for _, w := range words {
		if w == c.New {
			return ""
		}
	}
	return fmt.Sprintf("%q is not one of the words %s offers (%s).", c.New, c.Path, strings.Join(words, ", "))
}

func liveFix(c Change) string {
	switch c.Setting.Name {
	case "vm.nr_overcommit_hugepages":
		return "take the value from 'dbmem plan', which sizes the surplus pool from the databases' shared memory."
	case "vm.hugetlb_shm_group":
		return "give the gid of the database's group (id -g postgres)."
	}
	return "take the value from 'dbmem plan'."
}
