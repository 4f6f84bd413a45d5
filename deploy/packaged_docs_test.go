package deploy

import (
	"compress/gzip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The alert tests run where the package puts them: they load the rules
// as ../dbmem-alerts.yml. The package used to flatten tests/, and promtool
// said "no file match pattern ../dbmem-alerts.yml".
func TestPackagedAlertTests(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Fatal("promtool not found: install the Debian package prometheus (scripts/test does)")
	}
	root := unpacked(t)
	test := filepath.Join(root, "usr/share/dbmem/prometheus/tests/dbmem-alerts-test.yml")
	out, err := exec.Command(promtool, "test", "rules", test).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "SUCCESS") {
		t.Errorf("promtool test rules %s: %v\n%s", test, err, out)
	}
}

// manSections are the sections every page has, in man-pages(7)'s order.
var manSections = []string{"NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS", "EXAMPLES", "SEE ALSO"}

// The packaged man pages are man pages: the sections people look for,
// with the exit codes (apply's 4 included), nothing mandoc's linter or
// man --warnings complains of, and a NAME line that man -k prints as
// written ("with --yes make", not "with - yes").
func TestPackagedManPages(t *testing.T) {
	for _, tool := range []string{"mandoc", "man", "mandb", "apropos"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s not found: install the Debian packages mandoc and man-db (scripts/test does)", tool)
		}
	}
	root := unpacked(t)
	mandir := filepath.Join(root, "usr/share/man")
	pages, _ := filepath.Glob(filepath.Join(mandir, "man1", "*.1.gz"))
	if len(pages) < 12 {
		t.Fatalf("%d man pages in the package, want one per command", len(pages))
	}
	for _, p := range pages {
		src := gunzip(t, p)
		checkManPage(t, p, src)
	}
	run(t, "mandb", "-q", mandir)
	out := run(t, "apropos", "-M", mandir, "-l", "dbmem")
	for _, want := range []string{"dbmem-apply (1)", "- Show, and with --yes make, the changes of a plan", "dbmem-exporter (1)"} {
		if !strings.Contains(out, want) {
			t.Errorf("man -k dbmem lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "with - yes") {
		t.Errorf("man -k dbmem mangles --yes:\n%s", out)
	}
}

func gunzip(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	b, err := io.ReadAll(z)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return string(b)
}

// checkManPage checks one page's sections, exit codes and lint.
func checkManPage(t *testing.T, path, src string) {
	t.Helper()
	name := filepath.Base(path)
	last := -1
	for _, sec := range manSections {
		i := strings.Index(src, "\n.SH "+sec+"\n")
		if i < 0 {
			i = strings.Index(src, "\n.SH \""+sec+"\"\n")
		}
		if i < 0 {
			t.Errorf("%s has no %s section", name, sec)
			continue
		}
		if i < last {
			t.Errorf("%s: %s is out of man-pages(7)'s order", name, sec)
		}
		last = i
	}
	exit := src[strings.Index(src, ".SH EXIT STATUS")+1:]
	for _, code := range []string{"0", "1", "2"} {
		if !strings.Contains(exit, ".B "+code+"\n") {
			t.Errorf("%s: EXIT STATUS lacks %s", name, code)
		}
	}
	if name == "dbmem-apply.1.gz" || name == "dbmem-rollback.1.gz" || name == "dbmem.1.gz" {
		if !regexp.MustCompile(`\.B 4\n[^.]*refused`).MatchString(exit) {
			t.Errorf("%s: EXIT STATUS does not say 4 is a refusal:\n%s", name, exit)
		}
	}
	if out, err := exec.Command("mandoc", "-T", "lint", path).CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("mandoc -T lint %s: %v\n%s", name, err, out)
	}
	cmd := exec.Command("man", "--warnings", "-l", path)
	cmd.Env = append(os.Environ(), "MANWIDTH=80")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil || stderr.Len() > 0 {
		t.Errorf("man --warnings -l %s: %v\n%s", name, err, stderr.String())
	}
}
