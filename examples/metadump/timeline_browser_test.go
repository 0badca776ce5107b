package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kmeta-go/kmeta/internal/sharedtest"
	"github.com/stretchr/testify/require"
)

var screenshotOut = flag.String("timeline-screenshot", "", "TestTimelineReportInChromium: also write a PNG of the corpus report here")

// screenshotCorpusDir is the corpus log the README's screenshot shows: a
// three-node combined cluster restarted many times.
const screenshotCorpusDir = "kraft/ogs59__docker-compose-kafka4.10/data/kafka-2/__cluster_metadata-0"

// TestTimelineReportInChromium opens the HTML report in headless Chromium and
// reads the rendered page: no console errors, one lane per broker, one table
// row per partition, a click on a moment shows that moment's diff, and the
// search box filters the table. It runs on a simulated incident and, where
// ../shared is present, on a corpus log.
func TestTimelineReportInChromium(t *testing.T) {
	if chromiumPath() == "" {
		t.Skip("chromium is not installed (apt-get install -y chromium; .ci/run installs it): the report's browser test is skipped")
	}
	cases := map[string]string{"simulated": incidentDir(t, 11), "snapshot": snapshotFile(t)}
	if c := sharedtest.Find(); c != "" {
		cases["corpus"] = filepath.Join(c, "corpus", screenshotCorpusDir)
	}
	b := startBrowser(t, 1400, 1000)
	for name, dir := range cases {
		t.Run(name, func(t *testing.T) {
			tl, err := buildTimeline(dir, false)
			require.NoError(t, err)
			out := filepath.Join(t.TempDir(), "report.html")
			_, errs, code := runDump(t, "-timeline", "-o", out, dir)
			require.Equal(t, 0, code, errs)
			b.open(t, out)

			nb, np := rawCounts(t, dir)
			var lanes, rows, moments int
			require.NoError(t, b.eval(`document.querySelectorAll("#chart .lane").length`, &lanes))
			require.NoError(t, b.eval(`document.querySelectorAll("#partitions tbody tr").length`, &rows))
			require.NoError(t, b.eval(`document.querySelectorAll("#chart .moment").length`, &moments))
			require.Equal(t, nb, lanes, "one lane per broker")
			require.Equal(t, np, rows, "one row per partition")
			require.Equal(t, len(tl.Moments), moments)

			require.Empty(t, b.consoleErrors(), "console errors")
			if len(tl.Moments) == 0 {
				// A snapshot alone is one moment in time: nothing to click.
				return
			}
			clickBusiestMoment(t, b, tl)

			// Search: one partition by name.
			p := tl.Partitions[len(tl.Partitions)-1]
			var filtered int
			require.NoError(t, b.eval(fmt.Sprintf(`(() => { const s = document.getElementById("search"); s.value = %q; s.dispatchEvent(new Event("input")); return [...document.querySelectorAll("#partitions tbody tr")].filter(tr => tr.firstChild.textContent === %q && tr.children[1].textContent === "%d").length; })()`, fmt.Sprintf("%s-%d", p.Topic, p.Partition), p.Topic, p.Partition), &filtered))
			require.GreaterOrEqual(t, filtered, 1)

			require.Empty(t, b.consoleErrors(), "console errors")

			if name == "corpus" && *screenshotOut != "" {
				// Clear the search and show the clicked moment.
				require.NoError(t, b.eval(`(() => { const s = document.getElementById("search"); s.value = ""; s.dispatchEvent(new Event("input")); })()`, nil))
				if _, err := b.call("Input.dispatchMouseEvent", map[string]any{"type": "mouseMoved", "x": 1, "y": 1}); err != nil {
					t.Fatal(err)
				}
				require.NoError(t, b.screenshot(*screenshotOut, 1400))
				t.Logf("wrote %s", *screenshotOut)
			}
		})
	}
}

// TestBrowserHarnessSeesConsoleErrors: the harness's "no console errors"
// can fail: a page that logs an error and throws is reported.
func TestBrowserHarnessSeesConsoleErrors(t *testing.T) {
	if chromiumPath() == "" {
		t.Skip("chromium is not installed (apt-get install -y chromium; .ci/run installs it): the harness test is skipped")
	}
	page := filepath.Join(t.TempDir(), "bad.html")
	require.NoError(t, os.WriteFile(page, []byte(`<!DOCTYPE html><body><script>document.body.dataset.ready = "1"; console.error("boom"); throw new Error("thrown");</script></body>`), 0o644))
	b := startBrowser(t, 800, 600)
	b.open(t, page)
	deadline := time.Now().Add(5 * time.Second)
	for len(b.consoleErrors()) < 2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	errs := fmt.Sprint(b.consoleErrors())
	require.Contains(t, errs, "boom")
	require.Contains(t, errs, "thrown")
}

// clickBusiestMoment clicks the moment with the most changes where the
// browser drew it, as a person would, and checks that the page shows that
// moment's changes. Marks of moments close in time overlap: the one under
// the cursor, drawn last, is the one the click reaches, and its changes are
// the ones expected.
func clickBusiestMoment(t *testing.T, b *browser, tl *timeline) {
	pick := 0
	for i, m := range tl.Moments {
		if len(m.Diff) > len(tl.Moments[pick].Diff) {
			pick = i
		}
	}
	var box struct{ X, Y float64 }
	require.NoError(t, b.eval(fmt.Sprintf(`(() => { const r = document.querySelectorAll("#chart .moment")[%d].getBoundingClientRect(); return {x: r.left + r.width / 2, y: r.top + r.height / 2}; })()`, pick), &box))
	var under int
	require.NoError(t, b.eval(fmt.Sprintf(`Number(document.elementFromPoint(%v, %v).dataset.i)`, box.X, box.Y), &under))
	require.InDelta(t, pick, under, 50, "the mark under the cursor is not a neighbour of the one aimed at")
	require.NoError(t, b.click(box.X, box.Y))
	var shown struct {
		Offset string
		Lines  []string
	}
	require.NoError(t, b.eval(`({offset: document.getElementById("diff").dataset.offset || "", lines: [...document.querySelectorAll("#diff li")].map(li => li.textContent)})`, &shown))
	m := tl.Moments[under]
	require.Equal(t, fmt.Sprint(m.Offset), shown.Offset)
	want := m.Diff
	if m.More > 0 {
		want = append(want[:len(want):len(want)], shown.Lines[len(shown.Lines)-1])
	}
	require.Equal(t, want, shown.Lines)
	require.NotEmpty(t, shown.Lines)
}
