package exporter

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/prometheus/promql/parser"
	kjson "sigs.k8s.io/json"
)

// The Grafana dashboard model, the part of Grafana's dashboard JSON schema
// the shipped file uses: a field that is not here (a typo, a misplaced
// key) fails the strict decode.
type dashboard struct {
	Title         string   `json:"title"`
	UID           string   `json:"uid"`
	Description   string   `json:"description"`
	Tags          []string `json:"tags"`
	SchemaVersion int      `json:"schemaVersion"`
	Version       int      `json:"version"`
	Editable      bool     `json:"editable"`
	Time          struct {
		From string `json:"from"`
		To   string `json:"to"`
	} `json:"time"`
	Refresh     string `json:"refresh"`
	Annotations struct {
		List []any `json:"list"`
	} `json:"annotations"`
	Templating struct {
		List []variable `json:"list"`
	} `json:"templating"`
	Panels []panel `json:"panels"`
}

type variable struct {
	Name        string      `json:"name"`
	Type        string      `json:"type"`
	Label       string      `json:"label"`
	Definition  string      `json:"definition"`
	Regex       string      `json:"regex"`
	Description string      `json:"description"`
	Query       any         `json:"query"` // a string, or {query, refId}
	Datasource  *datasource `json:"datasource"`
	IncludeAll  bool        `json:"includeAll"`
	Multi       bool        `json:"multi"`
	AllValue    *string     `json:"allValue"`
	Refresh     int         `json:"refresh"`
	Hide        int         `json:"hide"`
	Current     *struct {
		Text  string `json:"text"`
		Value string `json:"value"`
	} `json:"current"`
}

type datasource struct {
	Type string `json:"type"`
	UID  string `json:"uid"`
}

type panel struct {
	ID          int         `json:"id"`
	Type        string      `json:"type"`
	Title       string      `json:"title"`
	Description string      `json:"description"`
	Datasource  *datasource `json:"datasource"`
	GridPos     struct {
		X int `json:"x"`
		Y int `json:"y"`
		W int `json:"w"`
		H int `json:"h"`
	} `json:"gridPos"`
	Collapsed       bool           `json:"collapsed"`
	Panels          []panel        `json:"panels"`
	FieldConfig     *fieldConfig   `json:"fieldConfig"`
	Options         map[string]any `json:"options"`
	Targets         []target       `json:"targets"`
	Transformations []struct {
		ID      string         `json:"id"`
		Options map[string]any `json:"options"`
	} `json:"transformations"`
}

type target struct {
	RefID        string      `json:"refId"`
	Expr         string      `json:"expr"`
	LegendFormat string      `json:"legendFormat"`
	Format       string      `json:"format"`
	Instant      bool        `json:"instant"`
	Datasource   *datasource `json:"datasource"`
}

type fieldConfig struct {
	Defaults struct {
		Unit       string         `json:"unit"`
		Min        *float64       `json:"min"`
		Max        *float64       `json:"max"`
		Thresholds *thresholds    `json:"thresholds"`
		Mappings   []any          `json:"mappings"`
		Custom     map[string]any `json:"custom"`
	} `json:"defaults"`
	Overrides []struct {
		Matcher struct {
			ID      string `json:"id"`
			Options string `json:"options"`
		} `json:"matcher"`
		Properties []struct {
			ID    string `json:"id"`
			Value any    `json:"value"`
		} `json:"properties"`
	} `json:"overrides"`
}

type thresholds struct {
	Mode  string `json:"mode"`
	Steps []struct {
		Color string   `json:"color"`
		Value *float64 `json:"value"`
	} `json:"steps"`
}

func loadDashboard(t *testing.T) dashboard {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(deployDir, "grafana", "dbmem-dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	strict, err := kjson.UnmarshalStrict(b, &d, kjson.DisallowDuplicateFields, kjson.DisallowUnknownFields)
	if err != nil {
		t.Fatalf("dashboard JSON: %v", err)
	}
	for _, e := range strict {
		t.Errorf("dashboard JSON, strict: %v", e)
	}
	return d
}

// allPanels lists the panels, those inside collapsed rows too.
func allPanels(d dashboard) []panel {
	var out []panel
	for _, p := range d.Panels {
		out = append(out, p)
		out = append(out, p.Panels...)
	}
	return out
}

// dashboardExprs returns every PromQL expression of the Grafana dashboard.
func dashboardExprs(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, p := range allPanels(loadDashboard(t)) {
		for _, tg := range p.Targets {
			out = append(out, tg.Expr)
		}
	}
	if len(out) < 20 {
		t.Fatalf("dashboard has %d queries", len(out))
	}
	return out
}

// expandVars replaces the dashboard's variables as Grafana would with
// "All" selected.
func expandVars(expr string) string {
	return regexp.MustCompile(`\$\{?[a-z_]+\}?`).ReplaceAllString(expr, ".*")
}

// metricNames parses a PromQL expression and returns the metric names of
// its selectors.
func metricNames(t *testing.T, expr string) []string {
	t.Helper()
	e, err := parser.ParseExpr(expandVars(expr))
	if err != nil {
		t.Errorf("query %q: %v", expr, err)
		return nil
	}
	var out []string
	parser.Inspect(e, func(n parser.Node, _ []parser.Node) error {
		if vs, ok := n.(*parser.VectorSelector); ok {
			if vs.Name == "" {
				t.Errorf("query %q selects no metric name", expr)
			}
			out = append(out, vs.Name)
		}
		return nil
	})
	return out
}

// Every panel query is valid PromQL and uses only metrics the exporter
// serves (and Prometheus's up); node_exporter's metrics only in panels
// marked "(node_exporter)". The variables' queries too.
func TestDashboardQueriesUseExportedMetrics(t *testing.T) {
	have := exportedNames()
	have["up"] = true
	d := loadDashboard(t)
	for _, p := range allPanels(d) {
		node := strings.HasSuffix(p.Title, "(node_exporter)")
		for _, tg := range p.Targets {
			for _, name := range metricNames(t, tg.Expr) {
				switch {
				case node && strings.HasPrefix(name, "node_"):
				case node:
					t.Errorf("panel %q: %s in a node_exporter panel", p.Title, name)
				case !have[name]:
					t.Errorf("panel %q uses %s, which the exporter does not serve", p.Title, name)
				}
			}
		}
	}
	labelValues := regexp.MustCompile(`^label_values\((.+), *[a-z_]+\)$`)
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		m := labelValues.FindStringSubmatch(v.Definition)
		if m == nil {
			t.Errorf("variable %s: query %q is not label_values(selector, label)", v.Name, v.Definition)
			continue
		}
		for _, name := range metricNames(t, m[1]) {
			if !have[name] {
				t.Errorf("variable %s uses %s, which the exporter does not serve", v.Name, name)
			}
		}
	}
}

// Health reads green when it is 1 and red when it is 0; ids are unique;
// every query filters by the job and instance variables.
func TestDashboardHealthAndVariables(t *testing.T) {
	d := loadDashboard(t)
	vars := map[string]bool{}
	for _, v := range d.Templating.List {
		vars[v.Name] = true
	}
	for _, want := range []string{"datasource", "job", "instance", "port", "mysql_port"} {
		if !vars[want] {
			t.Errorf("no %s variable", want)
		}
	}
	ids := map[int]bool{}
	found := false
	for _, p := range allPanels(d) {
		if ids[p.ID] {
			t.Errorf("panel id %d used twice", p.ID)
		}
		ids[p.ID] = true
		for _, tg := range p.Targets {
			if !strings.Contains(tg.Expr, `job=~"$`) || !strings.Contains(tg.Expr, `instance=~"`) {
				t.Errorf("panel %q: query %q does not filter by job and instance", p.Title, tg.Expr)
			}
		}
		if p.Title == "Exporter health" {
			found = true
			if got := colourAt(p.FieldConfig.Defaults.Thresholds, 1) + "/" + colourAt(p.FieldConfig.Defaults.Thresholds, 0); got != "green/red" {
				t.Errorf("health colours for 1/0: %s, want green/red", got)
			}
		}
	}
	if !found {
		t.Error("no Exporter health panel")
	}
}

// colourAt is the threshold colour Grafana gives value v.
func colourAt(th *thresholds, v float64) string {
	c := ""
	for _, s := range th.Steps {
		if s.Value == nil || v >= *s.Value {
			c = s.Color
		}
	}
	return c
}
