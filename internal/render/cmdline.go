package render

import (
	"path"
	"strings"

	"github.com/dbmem/dbmem/internal/finding"
)

// cmdlineWords returns "name=value" words (or a bare name when the value is
// empty) in the settings' order.
func cmdlineWords(s []finding.Setting) string {
	w := make([]string, len(s))
	for i, x := range s {
		w[i] = x.Name
		if x.Value != "" {
			w[i] += "=" + x.Value
		}
	}
	return strings.Join(w, " ")
}

func cmdlineFiles(settings []finding.Setting, o Options) ([]File, error) {
	s := Of(settings, finding.TargetKernelArgs)
	if len(s) == 0 {
		return nil, nil
	}
	words := cmdlineWords(s)
	p := path.Join(o.GrubDir, grubFileName)
	t := newText("#")
	t.header(p+": kernel command line for the database's memory", o.Generated,
		"at the next boot, after update-grub (Debian, Ubuntu) or grub2-mkconfig -o /boot/grub2/grub.cfg")
	t.comment("The words, in this order (hugepagesz= must come before its hugepages=):", "")
	for _, x := range s {
		t.explain(x, strings.TrimSuffix(x.Name+"="+x.Value, "="))
	}
	t.comment("Without /etc/default/grub.d: add the words to GRUB_CMDLINE_LINUX_DEFAULT in /etc/default/grub. "+
		"RHEL/Fedora: grubby --update-kernel=ALL --args=\""+words+"\". Check after the reboot: cat /proc/cmdline", "")
	t.line("# kernel command line: " + words)
	t.blank()
	t.line(`GRUB_CMDLINE_LINUX_DEFAULT="$GRUB_CMDLINE_LINUX_DEFAULT ` + words + `"`)
	return []File{{Kind: "kernel-cmdline", Path: p, Mode: 0o644, Content: t.String(),
		Then: "update-grub, then a reboot"}}, nil
}
