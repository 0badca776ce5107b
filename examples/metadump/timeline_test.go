package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/redact"
	"github.com/kmeta-go/kmeta/internal/sharedtest"
	"github.com/kmeta-go/kmeta/publisher/history"
	"github.com/kmeta-go/kmeta/record"
	"github.com/stretchr/testify/require"

	"github.com/kmeta-go/kmeta/record/metalog"
)

// incidentDir writes a simulated incident as a __cluster_metadata-0
// directory: 4 brokers, two topics, broker 2 crashes and is fenced after the
// session timeout (its leaderships move), the active controller fails over,
// broker 3 shuts down in a controlled way, broker 2 comes back, a topic is
// created and one deleted. The simulator is Kafka's controller emulation
// (delta/deltatest), so the log is what QuorumController writes.
func incidentDir(t testing.TB, seed int64) string {
	t.Helper()
	s := deltatest.MustNew(deltatest.Config{Seed: seed, NoOpInterval: 5 * time.Second})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.AddBrokers(4, "a", "b"))
	s.MustCreateTopic("orders", 6, 3)
	s.MustCreateTopic("payments", 3, 2)
	s.MustCreateTopic("scratch", 2, 2)
	must(s.Advance(20 * time.Second))
	must(s.SetTopicConfig("orders", "retention.ms", "3600000"))
	must(s.Advance(40 * time.Second))
	must(s.CrashBroker(2))
	must(s.Advance(15 * time.Second)) // fenced after the 9 s session timeout
	s.Failover(3001)
	must(s.Advance(30 * time.Second))
	must(s.BeginControlledShutdown(3))
	must(s.Advance(4 * time.Second))
	must(s.ControlledShutdown(3))
	must(s.Advance(20 * time.Second))
	must(s.RegisterBroker(deltatest.BrokerSpec{ID: 2, Rack: "b"}))
	must(s.Advance(10 * time.Second))
	must(s.DeleteTopic("scratch"))
	s.MustCreateTopic("audit", 2, 2)
	must(s.Advance(30 * time.Second))
	dir, err := s.WriteDir(t.(interface{ TempDir() string }).TempDir(), deltatest.WriteDirOptions{SegmentBatches: 16})
	must(err)
	return dir
}

// rawCounts counts, straight from the records of the files history.Read
// reads (not through the timeline), the brokers ever registered and the
// partitions ever created.
func rawCounts(t *testing.T, path string) (brokers, partitions int) {
	t.Helper()
	l, err := history.OpenLog(path, nil)
	require.NoError(t, err)
	defer l.Close()
	bs := map[int32]bool{}
	type key struct {
		topic record.UUID
		p     int32
	}
	ps := map[key]bool{}
	count := func(b *metalog.Batch) {
		if b.IsControl() {
			return
		}
		for _, e := range b.Entries {
			r, _, err := e.Decode()
			require.NoError(t, err)
			switch r := r.(type) {
			case *record.RegisterBrokerRecord:
				bs[r.BrokerID] = true
			case *record.PartitionRecord:
				ps[key{r.TopicID, r.PartitionID}] = true
			}
		}
	}
	if snap, _ := l.Snapshot(); snap != nil {
		for {
			b, err := snap.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			require.NoError(t, err)
			count(b)
		}
	}
	require.NoError(t, l.EachBatch(func(_ string, b *metalog.Batch) (bool, error) {
		count(b)
		return true, nil
	}))
	return len(bs), len(ps)
}

// TestTimelineOfSimulatedIncident: the timeline of a simulated incident
// shows what the simulator did: broker 2 fenced about 9 s after its crash
// (BrokerHeartbeatManager's session timeout), broker 3 in controlled shutdown,
// the raft failover as a new epoch led by 3001, every partition once, and
// final leaders equal to the final image's.
func TestTimelineOfSimulatedIncident(t *testing.T) {
	dir := incidentDir(t, 11)
	tl, err := buildTimeline(dir, false)
	require.NoError(t, err)
	nb, np := rawCounts(t, dir)
	require.Len(t, tl.Brokers, nb)
	require.Len(t, tl.Partitions, np)

	lane := func(id int32) lane {
		for _, l := range tl.Brokers {
			if l.ID == id {
				return l
			}
		}
		t.Fatalf("no lane for broker %d", id)
		return lane{}
	}
	states := func(id int32) []int64 {
		var out []int64
		for _, s := range lane(id).Segs {
			out = append(out, s[2])
		}
		return out
	}
	require.Contains(t, states(2), int64(laneFenced))
	require.Contains(t, states(3), int64(laneShutdown))
	require.NotContains(t, states(1), int64(laneFenced), "broker 1 was only fenced before its first heartbeat")
	for _, s := range lane(2).Segs[1:] {
		if s[2] == laneFenced {
			// Crash at +60 s, fenced once 9 s pass without a heartbeat
			// (checked every SessionTimeout/8).
			crash := tl.Start + 60_000
			require.InDelta(t, crash+9_000, s[0], 3_000, "fenced at %s", fmtMs(s[0]))
			break
		}
	}
	var leaders []int32
	for _, r := range tl.Raft {
		leaders = append(leaders, r.Leader)
	}
	require.Contains(t, leaders, int32(3001))
	require.Greater(t, tl.Totals["leaderChanges"], 0)
	require.Greater(t, tl.Totals["isrShrinks"], 0)

	final, err := imageAt(dir, -1)
	require.NoError(t, err)
	deleted := 0
	for _, p := range tl.Partitions {
		if p.Deleted {
			deleted++
			require.Equal(t, "scratch", p.Topic)
			continue
		}
		l, e, ok := final.Leader(p.Topic, p.Partition)
		require.True(t, ok, "%s-%d", p.Topic, p.Partition)
		require.Equal(t, l, p.Leader, "%s-%d", p.Topic, p.Partition)
		require.Equal(t, e, p.Epoch)
	}
	require.Equal(t, 2, deleted)

	// Every moment's diff is the diff of the images at its two ends, each
	// rebuilt by time travel.
	require.NotEmpty(t, tl.Moments)
	for _, m := range tl.Moments {
		a := image.Empty()
		if m.From >= 0 {
			a, err = imageAt(dir, m.From)
			require.NoError(t, err)
		}
		b, err := imageAt(dir, m.Offset)
		require.NoError(t, err)
		ds, total := image.DiffTotal(a, b, image.DiffOptions{Sensitive: redact.IsSensitive})
		all := diffLines(ds)
		require.Len(t, all, total)
		require.Equal(t, all[:min(len(all), 40)], m.Diff, "moment at offset %d", m.Offset)
		require.Equal(t, total-len(m.Diff), m.More)
	}
}

// TestTimelineText: the terminal summary names the brokers, the fencing and
// the partitions that moved most.
func TestTimelineText(t *testing.T) {
	dir := incidentDir(t, 11)
	out, errs, code := runDump(t, "-timeline", dir)
	require.Equal(t, 0, code, errs)
	for _, want := range []string{"brokers: 4", "broker 2", "fenced", "shutting down", "raft leader epochs: 2", "leader 3001", "most leader changes:", "orders-"} {
		require.Contains(t, out, want)
	}
}

// TestTimelineHTMLSelfContained: the report loads nothing from elsewhere (no
// src= or href= to another document, no fonts, no fetch) and carries its data
// inline.
func TestTimelineHTMLSelfContained(t *testing.T) {
	dir := incidentDir(t, 11)
	out := filepath.Join(t.TempDir(), "report.html")
	_, errs, code := runDump(t, "-timeline", "-o", out, dir)
	require.Equal(t, 0, code, errs)
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	html := string(data)
	for _, bad := range []string{"src=", "href=", "@import", "url(", "fetch(", "XMLHttpRequest", "@font-face", "http://", "https://"} {
		require.NotContains(t, html, bad)
	}
	require.NotContains(t, html, "/*TIMELINE_DATA*/null")
	require.Contains(t, html, `"brokers":[{"id":1`)
}

// TestTimelineCorpus: every corpus directory gives a timeline whose lanes and
// rows match the raw records, and whose final leaders are the final image's.
func TestTimelineCorpus(t *testing.T) {
	corpus := sharedtest.Corpus(t)
	var dirs []string
	filepath.WalkDir(corpus, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Name() == metalog.MetadataPartitionDir {
			dirs = append(dirs, p)
		}
		return nil
	})
	require.NotEmpty(t, dirs)
	checked := 0
	for _, d := range dirs {
		name, _ := filepath.Rel(corpus, d)
		t.Run(strings.ReplaceAll(name, "/", "_"), func(t *testing.T) {
			final, err := imageAt(d, -1)
			if err != nil {
				// Logs of releases the record package cannot read yet fail
				// the same way in every mode; the timeline says so too.
				_, terr := buildTimeline(d, false)
				require.Error(t, terr)
				t.Skipf("not replayable here: %v", err)
			}
			tl, err := buildTimeline(d, false)
			require.NoError(t, err)
			nb, np := rawCounts(t, d)
			require.Len(t, tl.Brokers, nb)
			require.Len(t, tl.Partitions, np)
			for _, p := range tl.Partitions {
				if p.Deleted {
					continue
				}
				l, _, ok := final.Leader(p.Topic, p.Partition)
				require.True(t, ok)
				require.Equal(t, l, p.Leader, "%s-%d", p.Topic, p.Partition)
			}
			checked++
		})
	}
	require.Positive(t, checked)
}

// TestTimelineAgreesWithHistory: the timeline's counts per partition
// (leader changes, ISR shrinks) and per broker (fencings) equal package
// history's, which replays the same log record by record through
// delta.Delta; over the simulated incident and every corpus directory.
func TestTimelineAgreesWithHistory(t *testing.T) {
	dirs := map[string]string{"simulated": incidentDir(t, 11)}
	if c := sharedtest.Find(); c != "" {
		filepath.WalkDir(filepath.Join(c, "corpus"), func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() && d.Name() == metalog.MetadataPartitionDir {
				rel, _ := filepath.Rel(c, p)
				dirs[strings.ReplaceAll(rel, "/", "_")] = p
			}
			return nil
		})
	}
	for name, dir := range dirs {
		t.Run(name, func(t *testing.T) {
			h, err := history.Read(dir, history.Options{Limit: -1})
			if err != nil || h.Failed() {
				t.Skipf("history cannot replay it here: %v", err)
			}
			tl, err := buildTimeline(dir, false)
			require.NoError(t, err)
			type key struct {
				topic string
				p     int32
			}
			want := map[key][2]int{}
			for _, p := range h.Partitions() {
				if p.Current().Exists() {
					want[key{p.Topic, p.Partition}] = [2]int{p.LeaderChanges, p.ISRShrinks}
				}
			}
			got := map[key][2]int{}
			for _, p := range tl.Partitions {
				if _, ok := want[key{p.Topic, p.Partition}]; ok && !p.Deleted {
					got[key{p.Topic, p.Partition}] = [2]int{p.Changes, p.Shrinks}
				}
			}
			// A partition a directory's snapshot holds has no history
			// of its own there: history keeps partitions the log changes.
			require.Equal(t, want, got)
			fencedLanes := map[int32]int{}
			for _, l := range tl.Brokers {
				prev := int64(-1)
				for _, s := range l.Segs {
					if s[2] == laneFenced && prev != laneFenced {
						fencedLanes[l.ID]++
					}
					prev = s[2]
				}
			}
			for _, b := range h.Brokers() {
				// history counts a registration that starts fenced as a
				// fencing; the lanes show only fenced spans that last.
				require.LessOrEqual(t, fencedLanes[b.ID], b.Fencings, "broker %d", b.ID)
			}
		})
	}
}

// imageAt is history.ImageAt at an offset, or at the end for -1.
func imageAt(path string, offset int64) (*image.Image, error) {
	if offset < 0 {
		return history.ImageAt(path, history.End())
	}
	return history.ImageAt(path, history.AtOffset(offset))
}

// TestTimelineDamagedLog: a flipped byte in a segment ends the report there
// (what was read before it is written) with an error naming the file and
// the offset, and exit status 1.
func TestTimelineDamagedLog(t *testing.T) {
	dir := incidentDir(t, 11)
	segs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	require.NotEmpty(t, segs)
	seg := segs[len(segs)-1]
	data, err := os.ReadFile(seg)
	require.NoError(t, err)
	data[len(data)/2] ^= 0xff
	require.NoError(t, os.WriteFile(seg, data, 0o644))
	out := filepath.Join(t.TempDir(), "report.html")
	_, errs, code := runDump(t, "-timeline", "-o", out, dir)
	require.Equal(t, 1, code)
	require.Contains(t, errs, filepath.Base(seg))
	require.Contains(t, errs, "offset")
	_, err = os.Stat(out)
	require.NoError(t, err, "the report of what was read")
	_, errs, code = runDump(t, "-shell", "-c", "ls", dir)
	require.Equal(t, 1, code)
	require.Contains(t, errs, filepath.Base(seg))
}

// snapshotFile writes the simulated incident with a snapshot and returns the
// snapshot file: a source that is one image and no log.
func snapshotFile(t *testing.T) string {
	t.Helper()
	s := deltatest.MustNew(deltatest.Config{Seed: 3})
	require.NoError(t, s.AddBrokers(3))
	s.MustCreateTopic("orders", 4, 3)
	dir, err := s.WriteDir(t.TempDir(), deltatest.WriteDirOptions{SnapshotAt: s.NextOffset() - 1})
	require.NoError(t, err)
	cps, _ := filepath.Glob(filepath.Join(dir, "*.checkpoint"))
	require.Len(t, cps, 1)
	return cps[0]
}

// TestTimelineOfSnapshot: a snapshot file is one moment: its brokers and
// partitions, no moments, no raft epochs.
func TestTimelineOfSnapshot(t *testing.T) {
	tl, err := buildTimeline(snapshotFile(t), false)
	require.NoError(t, err)
	require.Len(t, tl.Brokers, 3)
	require.Len(t, tl.Partitions, 4)
	require.Empty(t, tl.Moments)
	out, errs, code := runDump(t, "-timeline", snapshotFile(t))
	require.Equal(t, 0, code, errs)
	require.Contains(t, out, "brokers: 3")
}

// TestTimelineTornTail: a batch cut short at the end of the last segment is
// damage, as the dump and -image call it: the timeline of what was read
// before it is printed, then the error saying where it ends, exit 1.
func TestTimelineTornTail(t *testing.T) {
	dir := incidentDir(t, 11)
	segs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	seg := segs[len(segs)-1]
	st, err := os.Stat(seg)
	require.NoError(t, err)
	require.NoError(t, os.Truncate(seg, st.Size()-5))
	full, err := buildTimeline(incidentDir(t, 11), false)
	require.NoError(t, err)
	tl, err := buildTimeline(dir, false)
	var ce *metalog.CorruptionError
	require.ErrorAs(t, err, &ce)
	require.Less(t, tl.LastOffset, full.LastOffset)
	out, errs, code := runDump(t, "-timeline", dir)
	require.Equal(t, 1, code, errs)
	require.Contains(t, out, "brokers: ")
	require.Contains(t, errs, "the timeline ends at offset")
	require.Contains(t, errs, filepath.Base(seg))
}
