package cli

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/dbmem/dbmem/internal/exporter"
)

var (
	// a metric in code: its name and, when given, its labels
	// ({a="x",b="y"} as scraped, or {a,b} as named)
	docMetric = regexp.MustCompile(`\bdbmem_([a-z][a-z0-9_]*)(\{[^}]*\})?`)
	descName  = regexp.MustCompile(`fqName: "([^"]+)"`)
	descConst = regexp.MustCompile(`constLabels: \{([^}]*)\}`)
	descVar   = regexp.MustCompile(`variableLabels: \{([^}]*)\}`)
)

// exporterMetrics is every metric the exporter describes, with its label
// names sorted.
func exporterMetrics() map[string][]string {
	ch := make(chan *prometheus.Desc, 256)
	go func() {
		exporter.New(exporter.Options{}).Describe(ch)
		exporter.NewConns(1, nil).Describe(ch)
		close(ch)
	}()
	out := map[string][]string{}
	for d := range ch {
		s := d.String()
		name := descName.FindStringSubmatch(s)[1]
		var labels []string
		for _, re := range []*regexp.Regexp{descConst, descVar} {
			labels = append(labels, labelNames(re.FindStringSubmatch(s)[1])...)
		}
		sort.Strings(labels)
		out[name] = labels
	}
	return out
}

// labelNames lists the names of `a="x",b="y"` or `a,b`.
func labelNames(s string) []string {
	var out []string
	for _, part := range splitLabels(s) {
		name, _, _ := strings.Cut(part, "=")
		if name = strings.TrimSpace(name); name != "" {
			out = append(out, strings.TrimPrefix(strings.TrimSuffix(name, ")"), "c("))
		}
	}
	return out
}

// splitLabels splits at the commas outside quoted values.
func splitLabels(s string) []string {
	var out []string
	var cur strings.Builder
	quoted := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && quoted && i+1 < len(s):
			cur.WriteByte(c)
			i++
			cur.WriteByte(s[i])
			continue
		case c == '"':
			quoted = !quoted
		case c == ',' && !quoted:
			out = append(out, cur.String())
			cur.Reset()
			continue
		}
		cur.WriteByte(c)
	}
	return append(out, cur.String())
}

// checkDocMetrics returns one line per metric in the docs' code that the
// exporter does not describe, or describes with other labels.
func checkDocMetrics(metrics map[string][]string, docs []docFile) []string {
	var bad []string
	for _, d := range docs {
		for _, c := range codeTexts(d.text) {
			for _, m := range docMetric.FindAllStringSubmatch(c.text, -1) {
				name := "dbmem_" + m[1]
				want, ok := metrics[name]
				where := fmt.Sprintf("%s:%d", d.name, c.line)
				switch {
				case !ok:
					bad = append(bad, fmt.Sprintf("%s: the exporter has no metric %s", where, name))
				case m[2] != "":
					got := labelNames(strings.Trim(m[2], "{}"))
					sort.Strings(got)
					if strings.Join(got, ",") != strings.Join(want, ",") {
						bad = append(bad, fmt.Sprintf("%s: %s{%s}: the exporter's labels are {%s}", where, name, strings.Join(got, ","), strings.Join(want, ",")))
					}
				}
			}
		}
	}
	return bad
}

// TestDocsShowTheExportersMetrics: every dbmem_ metric in the code of
// README.md and docs/*.md is one the exporter describes, with exactly its
// labels where the doc shows them.
func TestDocsShowTheExportersMetrics(t *testing.T) {
	docs, err := readDocs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if bad := checkDocMetrics(exporterMetrics(), docs); len(bad) > 0 {
		t.Errorf("%d metrics of the docs that the exporter contradicts:\n%s", len(bad), strings.Join(bad, "\n"))
	}
}

// TestDocMetricCheckerFails: a made-up metric and a sample missing a
// label are caught; true ones are not.
func TestDocMetricCheckerFails(t *testing.T) {
	page := "```\ndbmem_no_such_metric 1\n" +
		`dbmem_postgres_info{connected="true",data_dir="/d",huge_pages="try",port="5432",version="15, \"x\""} 1` + "\n```\n" +
		"and `dbmem_findings{severity}`, `dbmem_build_info`\n"
	bad := checkDocMetrics(exporterMetrics(), []docFile{{"page.md", page}})
	want := "page.md:2: the exporter has no metric dbmem_no_such_metric\n" +
		"page.md:3: dbmem_postgres_info{connected,data_dir,huge_pages,port,version}: the exporter's labels are {connected,data_dir,huge_pages,port,server_pid,version}"
	if got := strings.Join(bad, "\n"); got != want {
		t.Errorf("checker found:\n%s\nwant:\n%s", got, want)
	}
}
