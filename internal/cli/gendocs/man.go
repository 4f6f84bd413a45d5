package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dbmem/dbmem/internal/cli"
)

// manTree writes a section 1 page for cmd and each of its visible
// subcommands into dir: NAME, SYNOPSIS, DESCRIPTION, OPTIONS, EXIT
// STATUS, EXAMPLES and SEE ALSO, in the order man-pages(7) gives, as roff
// that mandoc -T lint passes without a message.
func manTree(cmd *cobra.Command, dir, version string, date time.Time) error {
	for _, c := range cmd.Commands() {
		if !c.IsAvailableCommand() || c.IsAdditionalHelpTopicCommand() {
			continue
		}
		if err := manTree(c, dir, version, date); err != nil {
			return err
		}
	}
	f, err := os.Create(filepath.Join(dir, pageName(cmd)+".1"))
	if err != nil {
		return err
	}
	writeMan(f, cmd, version, date)
	return f.Close()
}

func pageName(c *cobra.Command) string { return strings.ReplaceAll(c.CommandPath(), " ", "-") }

// writeMan writes one page.
func writeMan(w io.Writer, c *cobra.Command, version string, date time.Time) {
	name := pageName(c)
	fmt.Fprintf(w, ".TH %s 1 %s \"dbmem %s\" \"dbmem manual\"\n", strings.ToUpper(esc(name)), date.Format("2006-01-02"), esc(version))
	fmt.Fprintln(w, ".SH NAME")
	filledAfter(w, esc(name)+` \-`, c.Short)
	fmt.Fprintf(w, ".SH SYNOPSIS\n.B %s\n", esc(c.CommandPath()))
	if c.HasAvailableFlags() {
		fmt.Fprintln(w, `[\fIoptions\fR]`)
	}
	if args := strings.TrimSpace(strings.TrimPrefix(c.Use, c.Name())); args != "" && args != "[flags]" {
		fmt.Fprintln(w, `\fI`+esc(args)+`\fR`)
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintln(w, `\fIcommand\fR [\fIoptions\fR]`)
	}
	fmt.Fprintln(w, ".SH DESCRIPTION")
	text(w, description(c))
	options(w, c)
	fmt.Fprintln(w, ".SH EXIT STATUS")
	for _, e := range cli.ExitCodes(c) {
		fmt.Fprintf(w, ".TP\n.B %d\n", e.Code)
		filled(w, e.Meaning)
	}
	if ex := strings.TrimRight(c.Example, "\n"); ex != "" {
		fmt.Fprintln(w, ".SH EXAMPLES")
		preformatted(w, strings.Split(ex, "\n"))
	}
	seeAlso(w, c)
}

// description is the long help, or the short one.
func description(c *cobra.Command) string {
	if c.Long != "" {
		return c.Long
	}
	return c.Short + "."
}

// text writes help text: paragraphs at blank lines, filled, and runs of
// indented lines kept as they are (tables, commands).
func text(w io.Writer, s string) {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	first := true
	for i := 0; i < len(lines); {
		if strings.TrimSpace(lines[i]) == "" {
			i++
			continue
		}
		j := i
		indented := strings.HasPrefix(lines[i], " ")
		for j < len(lines) && strings.TrimSpace(lines[j]) != "" && strings.HasPrefix(lines[j], " ") == indented {
			j++
		}
		if !first {
			fmt.Fprintln(w, ".PP")
		}
		first = false
		if indented {
			preformatted(w, lines[i:j])
		} else {
			filled(w, strings.Join(lines[i:j], " "))
		}
		i = j
	}
}

// filled writes text for roff to fill, in source lines of at most 80
// bytes (mandoc's style).
func filled(w io.Writer, s string) { filledAfter(w, "", s) }

// filledAfter is filled with roff of its own (escaped already) first.
func filledAfter(w io.Writer, line, s string) {
	for _, word := range strings.Fields(s) {
		e := esc(word)
		if line != "" && len(line)+1+len(e) > 80 {
			fmt.Fprintln(w, line)
			line = ""
		}
		if line == "" && (strings.HasPrefix(word, ".") || strings.HasPrefix(word, "'")) {
			e = `\&` + strings.TrimPrefix(e, `\&`)
		} else if line != "" {
			e = strings.TrimPrefix(e, `\&`)
			line += " "
		}
		line += e
	}
	if line != "" {
		fmt.Fprintln(w, line)
	}
}

// preformatted writes lines unfilled, indented, as they are typed.
func preformatted(w io.Writer, lines []string) {
	fmt.Fprintln(w, ".RS 4\n.nf")
	for _, l := range lines {
		fmt.Fprintln(w, esc(strings.TrimRight(strings.TrimPrefix(l, "  "), " ")))
	}
	fmt.Fprintln(w, ".fi\n.RE")
}

// options lists the command's flags, then those every command has.
func options(w io.Writer, c *cobra.Command) {
	own, inherited := visible(c.NonInheritedFlags()), visible(c.InheritedFlags())
	if len(own)+len(inherited) == 0 {
		return
	}
	fmt.Fprintln(w, ".SH OPTIONS")
	for _, f := range own {
		option(w, f)
	}
	if len(inherited) > 0 {
		fmt.Fprintln(w, `.SS "Options of every command"`)
		for _, f := range inherited {
			option(w, f)
		}
	}
}

func visible(fs *pflag.FlagSet) []*pflag.Flag {
	var out []*pflag.Flag
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden && f.Deprecated == "" {
			out = append(out, f)
		}
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// option writes one option: its names, its argument, what it does and its
// default.
func option(w io.Writer, f *pflag.Flag) {
	arg, usage := pflag.UnquoteUsage(f)
	head := `\fB\-\-` + esc(f.Name) + `\fR`
	if f.Shorthand != "" {
		head = `\fB\-` + esc(f.Shorthand) + `\fR, ` + head
	}
	if arg != "" && f.NoOptDefVal == "" {
		head += ` \fI` + esc(arg) + `\fR`
	}
	if d := f.DefValue; d != "" && d != "false" && d != "0" && d != "[]" && d != "0s" {
		usage += " (default: " + strings.Trim(d, "[]") + ")"
	}
	fmt.Fprintf(w, ".TP\n%s\n", head)
	filled(w, usage)
}

// seeAlso names the parent command's page and the subcommands' pages.
func seeAlso(w io.Writer, c *cobra.Command) {
	var refs []string
	if c.HasParent() {
		refs = append(refs, pageName(c.Parent()))
	}
	for _, s := range c.Commands() {
		if s.IsAvailableCommand() && !s.IsAdditionalHelpTopicCommand() {
			refs = append(refs, pageName(s))
		}
	}
	if len(refs) == 0 {
		return
	}
	fmt.Fprintln(w, ".SH SEE ALSO")
	for i, r := range refs {
		sep := ","
		if i == len(refs)-1 {
			sep = ""
		}
		fmt.Fprintf(w, ".BR %s (1)%s\n", esc(r), sep)
	}
}

// esc makes text safe in roff: a backslash is printed as one, every
// hyphen is a minus (so flags can be copied), and a line never starts
// with a control character.
func esc(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}
