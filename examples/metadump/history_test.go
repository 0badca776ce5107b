package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/publisher/history"
	"github.com/kmeta-go/kmeta/record"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// crashDir is a simulated cluster in which broker 1 crashes and is fenced,
// then a topic is created: a __cluster_metadata-0 directory from offset 0.
func crashDir(t *testing.T) (*deltatest.Simulator, string) {
	sim := deltatest.MustCluster(3)
	sim.MustCreateTopic("orders", 3, 3)
	require.NoError(t, sim.Advance(time.Second))
	require.NoError(t, sim.CrashBroker(1))
	require.NoError(t, sim.Advance(12*time.Second))
	sim.MustCreateTopic("audit", 1, 2)
	dir, err := sim.WriteDir(t.TempDir(), deltatest.WriteDirOptions{SegmentBatches: 4})
	require.NoError(t, err)
	return sim, dir
}

func sortedLines(s string) []string {
	l := lines(s)
	sort.Strings(l)
	return l
}

// TestAtInEveryMode: -at cuts the record dump at the offset (the first
// N+1 lines of the full dump with -control), -image-records at the end of
// the log is the final image's, and a time point gives the image of the
// batches appended up to it.
func TestAtInEveryMode(t *testing.T) {
	sim, dir := crashDir(t)
	full, errs, code := runDump(t, "-control", dir)
	require.Equal(t, 0, code, errs)
	all := lines(full)
	require.Len(t, all, int(sim.NextOffset()))
	for _, n := range []int64{0, 5, sim.NextOffset() / 2, sim.NextOffset() - 1} {
		out, errs, code := runDump(t, "-control", "-at", strconv.FormatInt(n, 10), dir)
		require.Equal(t, 0, code, errs)
		assert.Equal(t, all[:n+1], lines(out), "-at %d", n)

		out, _, code = runDump(t, "-summary", "-at", strconv.FormatInt(n, 10), dir)
		require.Equal(t, 0, code)
		assert.Contains(t, out, fmt.Sprintf("offsets 0..%d\n", n))

	}
	// At batch boundaries (inside the bootstrap's metadata transaction
	// the image is the one before it, as Kafka's loader publishes).
	bs := sim.Batches()
	for _, b := range []record.Batch{bs[1], bs[len(bs)/2], bs[len(bs)-2]} {
		n := b.LastOffset()
		img, err := sim.ImageAt(n)
		require.NoError(t, err)
		var want strings.Builder
		require.NoError(t, image.WriteRecordsJSONL(&want, img, image.WriteOptions{}))
		out, _, code := runDump(t, "-image-records", "-at", strconv.FormatInt(n, 10), dir)
		require.Equal(t, 0, code)
		assert.NotEmpty(t, out)
		assert.Equal(t, sortedLines(want.String()), sortedLines(out), "-at %d -image-records", n)
	}
	end, _, _ := runDump(t, "-image-records", dir)
	at, _, code := runDump(t, "-image-records", "-at", strconv.FormatInt(sim.NextOffset()-1, 10), dir)
	require.Equal(t, 0, code)
	assert.Equal(t, sortedLines(end), sortedLines(at))
	// A point outside the log is an error in every mode, not the final
	// image.
	for _, args := range [][]string{{"-image-records"}, {"-image"}, {"-control"}, {"-summary"}} {
		for _, p := range []string{strconv.FormatInt(sim.NextOffset(), 10), "2099-01-01T00:00:00Z", "1971-01-01T00:00:00Z"} {
			out, errs, code := runDump(t, append(args, "-at", p, dir)...)
			assert.Equal(t, 1, code, "%v -at %s", args, p)
			assert.Contains(t, errs, "the log", "%v -at %s: %s", args, p, out)
		}
	}

	// A time: the batches appended up to it.
	b := sim.Batches()[len(sim.Batches())/2]
	out, errs, code := runDump(t, "-image", "-at", time.UnixMilli(b.AppendTime).UTC().Format(time.RFC3339Nano), dir)
	require.Equal(t, 0, code, errs)
	var js struct {
		Provenance struct {
			LastContainedOffset int64 `json:"lastContainedOffset"`
		} `json:"provenance"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &js))
	last := int64(-1)
	for _, x := range sim.Batches() {
		if x.AppendTime <= b.AppendTime {
			last = x.LastOffset()
		}
	}
	assert.Equal(t, last, js.Provenance.LastContainedOffset)

	_, errs, code = runDump(t, "-at", "yesterday", dir)
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "neither an offset nor an RFC 3339 time")
}

// TestDiffCommand: -diff prints image.Diff line by line (JSON with -json)
// and exits as diff(1) does.
func TestDiffCommand(t *testing.T) {
	sim, dir := crashDir(t)
	mid := sim.NextOffset() / 2
	out, errs, code := runDump(t, "-diff", fmt.Sprintf("%s@%d", dir, mid), dir)
	require.Equal(t, 1, code, errs)
	a, err := history.ImageAt(dir, history.AtOffset(mid))
	require.NoError(t, err)
	var want []string
	for _, d := range image.Diff(a, sim.Image(), image.DiffOptions{}) {
		want = append(want, d.String())
	}
	require.NotEmpty(t, want)
	assert.Equal(t, want, lines(out))

	out, _, code = runDump(t, "-diff", "-json", fmt.Sprintf("%s@%d", dir, mid), dir)
	require.Equal(t, 1, code)
	var ds []image.Difference
	require.NoError(t, json.Unmarshal([]byte(out), &ds))
	assert.Len(t, ds, len(want))
	assert.Contains(t, out, `"op": "changed"`)

	out, _, code = runDump(t, "-diff", dir, dir)
	assert.Equal(t, 0, code)
	assert.Empty(t, out)
	out, _, code = runDump(t, "-diff", "-json", dir, dir)
	assert.Equal(t, 0, code)
	assert.Equal(t, "[]\n", out)

	// -at applies to a source without its own point.
	out, _, code = runDump(t, "-diff", "-at", strconv.FormatInt(mid, 10), dir, dir+"@"+strconv.FormatInt(sim.NextOffset()-1, 10))
	assert.Equal(t, 1, code)
	assert.Equal(t, want, lines(out))

	_, errs, code = runDump(t, "-diff", dir+"/nothing-here", dir)
	assert.Equal(t, 2, code)
	assert.NotEmpty(t, errs)
	_, _, code = runDump(t, "-diff", dir)
	assert.Equal(t, 2, code)
}

// TestCheckCommand: -check names the first rejected record with its file,
// offset and the state it contradicted, and exits 1; a healthy log exits 0.
func TestCheckCommand(t *testing.T) {
	sim, dir := crashDir(t)
	out, errs, code := runDump(t, "-check", dir)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "0 errors, 0 warnings")

	// A fence record with the wrong broker epoch, in a segment of its own.
	b, _ := sim.Image().Cluster().Broker(2)
	r := record.NewFenceBrokerRecord()
	r.ID, r.Epoch = 2, b.Epoch()+1
	v, err := record.Append(nil, r, 0)
	require.NoError(t, err)
	w, err := metalog.CreateSegment(metalog.OS{}, dir, sim.NextOffset())
	require.NoError(t, err)
	_, err = w.AppendData(sim.RaftEpoch(), sim.Now().UnixMilli(), v)
	require.NoError(t, err)
	require.NoError(t, w.Close())

	out, errs, code = runDump(t, "-check", dir)
	assert.Equal(t, 1, code, errs)
	first := lines(out)[0]
	assert.Contains(t, first, "first record Kafka's replay rejects: error rejected "+metalog.SegmentName(sim.NextOffset())+" offset "+strconv.FormatInt(sim.NextOffset(), 10))
	assert.Contains(t, first, `"type":"FENCE_BROKER_RECORD"`)
	assert.Contains(t, first, fmt.Sprintf("the registration has epoch %d", b.Epoch()))
	assert.Contains(t, out, "1 errors, 0 warnings")

	out, _, code = runDump(t, "-check", "-json", dir)
	assert.Equal(t, 1, code)
	var fs []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &fs))
	require.Len(t, fs, 1)
	assert.Equal(t, "rejected", fs[0]["rule"])
	assert.Equal(t, float64(sim.NextOffset()), fs[0]["offset"])
}
