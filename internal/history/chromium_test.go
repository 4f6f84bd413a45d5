package history

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/dbmem/dbmem/internal/chart/charttest"
)

// The page renders in headless Chromium, offline: the DOM holds every
// chart with its lines, the lone sample's dot and the findings' shading,
// and the screenshot shows the first series' colour and the shading.
func TestHTMLRendersInChromium(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "history.html")
	h := twoTicks()
	var b bytes.Buffer
	if err := HTML(&b, h); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := charttest.Run(t, dir, "--dump-dom", "file://"+page)
	for what, c := range map[string]struct {
		re   string
		want int
	}{"charts": {`<svg class="chart"`, 2}, "lines": {`<polyline `, 1}, "dots": {`<circle `, 3}, "marks": {`<g class="mark">`, 2}} {
		if n := len(regexp.MustCompile(c.re).FindAllString(dom, -1)); n < c.want {
			t.Errorf("Chromium's DOM has %d %s, want at least %d", n, what, c.want)
		}
	}
	img := charttest.Screenshot(t, dir, page, 900, 1000)
	if n := charttest.CountColor(img, [3]uint32{0x00, 0x72, 0xb2}); n < 200 {
		t.Errorf("%d pixels of the first series' colour: the lines did not render", n)
	}
	// The notice's shading: #56B4E9 (Okabe-Ito sky blue) at 15% on white.
	if n := charttest.CountColor(img, [3]uint32{0xe6, 0xf4, 0xfc}); n < 2000 {
		t.Errorf("%d pixels of the host finding's shading", n)
	}
}
