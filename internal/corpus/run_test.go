package corpus

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/measure"
	"github.com/dbmem/dbmem/internal/snapshot/sampler"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	"github.com/prometheus/common/expfmt"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/capture"
	"github.com/dbmem/dbmem/internal/exporter"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/plan"
	"github.com/dbmem/dbmem/internal/report"
	"github.com/dbmem/dbmem/internal/snapshot"
)

var (
	partialDir = filepath.Join("..", "..", "testdata", "partial")
	pg15OffDir = filepath.Join("..", "..", "testdata", "fixtures", "pg15-hugepages-off")
	takenAt    = time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
)

// outputs is what every consumer said about one case.
type outputs struct {
	takeErr  error
	text     string
	notSeen  string // the NOT SEEN section, blanks collapsed
	doc      any    // report --json, decoded
	judged   advise.Result
	planText string
	planErr  error
	metrics  string
}

// run builds the case's tree and feeds it to report, check, plan and the
// exporter.
func run(t *testing.T, c Case) outputs {
	t.Helper()
	dir := t.TempDir()
	if err := Build(c, partialDir, pg15OffDir, dir); err != nil {
		t.Fatal(err)
	}
	return runTree(t, c, dir)
}

// runTree feeds an already built tree to every consumer.
func runTree(t *testing.T, c Case, dir string) outputs {
	t.Helper()
	fs := capture.TreeFS(dir)
	var live capture.TreeLive
	opt := snapshot.Options{FS: fs, Method: measure.Smaps, Now: func() time.Time { return takenAt }}
	if c.Base == BasePG15Off {
		live = capture.TreeLive{Dir: dir}
		opt.Live = live
	}
	var o outputs
	snap, err := snapshot.Take(context.Background(), opt)
	if o.takeErr = err; err != nil {
		return o
	}
	o.text, o.notSeen = textOf(t, snap)
	o.doc = jsonOf(t, snap)
	o.judged = advise.Judge(snap, advise.Options{})
	o.planText, o.planErr = planOf(snap)
	o.metrics = metricsOf(t, fs, c.Base == BasePG15Off, dir)
	return o
}

func textOf(t *testing.T, snap *snapshot.Snapshot) (string, string) {
	var b bytes.Buffer
	if err := report.Text(&b, snap, report.Options{}); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	_, notSeen, _ := strings.Cut(s, "NOT SEEN")
	return s, strings.Join(strings.Fields(notSeen), " ")
}

func jsonOf(t *testing.T, snap *snapshot.Snapshot) any {
	var b bytes.Buffer
	if err := report.JSON(&b, snap); err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

func planOf(snap *snapshot.Snapshot) (string, error) {
	r, err := plan.Run(context.Background(), plan.Request{Snapshot: snap, NodesPerQuery: advise.DefaultNodesPerQuery})
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	err = plan.Text(&b, r)
	return b.String(), err
}

// metricsOf scrapes the exporter once over the tree (its first scrape
// discovers the instances, as a fresh exporter does).
func metricsOf(t *testing.T, fs linux.FS, pg bool, dir string) string {
	s := &sampler.Sampler{FS: fs, Check: advise.Checker(advise.Options{}), Now: func() time.Time { return takenAt }}
	if pg {
		s.Live = capture.TreeLive{Dir: dir}
	}
	reg := prometheus.NewPedanticRegistry() // checks every sample against its description
	reg.MustRegister(exporter.New(exporter.Options{Sampler: s}))
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	enc := expfmt.NewEncoder(&b, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			t.Fatal(err)
		}
	}
	// promtool's own checks (promtool check metrics runs this linter).
	problems, err := promlint.New(strings.NewReader(b.String())).Lint()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("promlint: %s: %s", p.Metric, p.Text)
	}
	return b.String()
}

// readCases reads expectations.txt.
func readCases(t *testing.T) []Case {
	t.Helper()
	f, err := os.Open(filepath.Join(partialDir, "expectations.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cases, err := ParseExpectations(f)
	if err != nil {
		t.Fatal(err)
	}
	return cases
}
