package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The claims of README.md and docs/*.md that drift when the code moves,
// checked against the code (issue 23 item 10): every dbmem command a
// command line names exists, every --flag it gives is a flag of that
// command, and every other --flag in code exists somewhere in dbmem.

// docFile is one Markdown file's text.
type docFile struct{ name, text string }

// readDocs reads README.md and docs/*.md from the repository root.
func readDocs(root string) ([]docFile, error) {
	names, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	var out []docFile
	for _, n := range append([]string{filepath.Join(root, "README.md")}, names...) {
		b, err := os.ReadFile(n)
		if err != nil {
			return nil, err
		}
		rel, _ := filepath.Rel(root, n)
		out = append(out, docFile{rel, string(b)})
	}
	return out, nil
}

var (
	codeSpan = regexp.MustCompile("`([^`\n]+)`")
	// a command line: a span that starts with dbmem, or a code block's
	// line at a shell prompt ("$ ", "# "), with or without sudo and
	// variables set before it; it ends at a pipe, ; or &.
	dbmemLine = regexp.MustCompile(`^(?:[$#] +)?(?:[A-Z_]+=\S* +)*(?:sudo (?:-u \S+ )?)?(?:\S*/)?dbmem((?: +[^|;&>)\s]+)*)`)
	// a table row that documents an option: | `--flag ...` |
	tableFlag = regexp.MustCompile("^\\| *`(--[^`]+)`")
	flagWord  = regexp.MustCompile(`^--[a-z][a-z0-9.-]*[a-z0-9]`)
)

// codeTexts returns the code of a Markdown text: each line of a fenced or
// indented block, and each inline span, with its line number.
func codeTexts(text string) (lines []codeText) {
	fenced := false
	for i, l := range strings.Split(text, "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") {
			fenced = !fenced
			continue
		}
		if fenced || strings.HasPrefix(l, "    ") {
			lines = append(lines, codeText{i + 1, t, true, false})
			continue
		}
		for _, m := range codeSpan.FindAllStringSubmatch(l, -1) {
			lines = append(lines, codeText{i + 1, m[1], false, false})
		}
		if m := tableFlag.FindStringSubmatch(t); m != nil {
			lines = append(lines, codeText{i + 1, m[1], false, true})
		}
	}
	return lines
}

type codeText struct {
	line  int
	text  string
	block bool
	// option: the first cell of a table row, an option of dbmem's
	option bool
}

// flagIndex is every flag name of every command (persistent ones too).
func flagIndex(root *cobra.Command) map[string]bool {
	out := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, fs := range []*pflag.FlagSet{c.Flags(), c.PersistentFlags()} {
			fs.VisitAll(func(f *pflag.Flag) { out[f.Name] = true })
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	return out
}

// checkDocClaims returns one line per claim the command tree contradicts.
func checkDocClaims(root *cobra.Command, docs []docFile) []string {
	all := flagIndex(root)
	var bad []string
	for _, d := range docs {
		for _, c := range codeTexts(d.text) {
			where := fmt.Sprintf("%s:%d", d.name, c.line)
			if m := dbmemLine.FindStringSubmatch(c.text); m != nil && (!c.block || strings.HasPrefix(c.text, "$") || strings.HasPrefix(c.text, "#")) {
				bad = append(bad, checkCommandLine(root, where, strings.Fields(m[1]))...)
			}
			if c.option {
				if f := flagWord.FindString(c.text); f != "" && !all[f[2:]] {
					bad = append(bad, fmt.Sprintf("%s: `%s`: no dbmem command has %s", where, c.text, f))
				}
			}
		}
	}
	sort.Strings(bad)
	return bad
}

// checkCommandLine checks "dbmem WORDS": the subcommands exist, and each
// --flag is one of the command found (or inherited by it).
func checkCommandLine(root *cobra.Command, where string, words []string) []string {
	cmds, i := []*cobra.Command{root}, 0
	for ; i < len(words); i++ {
		w := words[i]
		if cmds[0] == root && skipGlobal(root, words, &i) {
			continue
		}
		if strings.HasPrefix(w, "-") || strings.ContainsAny(w, "<[{$'\"*=.") {
			break
		}
		subs := subsOf(cmds[0], w) // "set/rollback": both
		if subs == nil {
			if cmds[0] == root && isWord(w) {
				return []string{fmt.Sprintf("%s: dbmem %s: no such command", where, w)}
			}
			break // an argument
		}
		cmds = subs
	}
	var bad []string
	for _, w := range words[i:] {
		f := flagWord.FindString(w)
		if f == "" {
			continue
		}
		for _, cmd := range cmds {
			if cmd.Flags().Lookup(f[2:]) == nil && cmd.InheritedFlags().Lookup(f[2:]) == nil {
				bad = append(bad, fmt.Sprintf("%s: %q has no flag %s", where, cmd.CommandPath(), f))
			}
		}
	}
	return bad
}

// skipGlobal steps over a global flag given before the command (dbmem
// --proc DIR report) and its value.
func skipGlobal(root *cobra.Command, words []string, i *int) bool {
	f := flagWord.FindString(words[*i])
	if f == "" {
		return false
	}
	fl := root.PersistentFlags().Lookup(f[2:])
	if fl == nil {
		return false
	}
	if fl.NoOptDefVal == "" && !strings.Contains(words[*i], "=") {
		*i++ // its value
	}
	return true
}

// subsOf returns the subcommands name names ("a" or "a/b"), or nil.
func subsOf(c *cobra.Command, name string) []*cobra.Command {
	var out []*cobra.Command
	for _, n := range strings.Split(name, "/") {
		s := findSub(c, n)
		if s == nil {
			return nil
		}
		out = append(out, s)
	}
	return out
}

func findSub(c *cobra.Command, name string) *cobra.Command {
	for _, s := range c.Commands() {
		if s.Name() == name || s.HasAlias(name) {
			return s
		}
	}
	return nil
}

// isWord: a command's name is lowercase letters and dashes.
func isWord(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r == '-') {
			return false
		}
	}
	return s != ""
}

// docsCommand is dbmem's command tree with help and completions, as the
// docs describe it.
func docsCommand() *cobra.Command {
	root := Command(io.Discard, io.Discard)
	root.InitDefaultHelpFlag()
	root.InitDefaultVersionFlag()
	root.InitDefaultCompletionCmd()
	root.InitDefaultHelpCmd()
	return root
}
