package history_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/publisher"
	"github.com/kmeta-go/kmeta/publisher/history"
	"github.com/kmeta-go/kmeta/record"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// brokenLog is one deliberately broken log: a healthy simulated cluster,
// then a batch of records written by the case. want names the finding the
// check must report at the offset of record at (an index into the batch).
type brokenLog struct {
	name    string
	records func(img *image.Image, id record.UUID) []record.Record
	control record.ControlRecord // written as a control batch after the records
	rule    history.Rule
	at      int    // index of the record the finding names
	message string // a piece of the finding's message
}

func pcr(id record.UUID, p int32, set func(r *record.PartitionChangeRecord)) *record.PartitionChangeRecord {
	r := record.NewPartitionChangeRecord()
	r.TopicID, r.PartitionID = id, p
	set(r)
	return r
}

// brokenLogs are the logs TestCheckFindsEachBrokenLog breaks: records the
// replay rejects and partition states Kafka's rules forbid, then states of
// the whole cluster.
func brokenLogs() []brokenLog { return append(brokenPartitionLogs(), brokenClusterLogs()...) }

// brokenPartitionLogs break the replay or a partition's invariants.
func brokenPartitionLogs() []brokenLog {
	return []brokenLog{{
		name: "wrong broker epoch",
		records: func(img *image.Image, _ record.UUID) []record.Record {
			b, _ := img.Cluster().Broker(1)
			r := record.NewBrokerRegistrationChangeRecord()
			r.BrokerID, r.BrokerEpoch, r.Fenced = 1, b.Epoch()+7, 1
			return []record.Record{r}
		},
		rule: history.RuleRejected, message: "but the registration has epoch",
	}, {
		name: "change to an unknown topic",
		records: func(img *image.Image, _ record.UUID) []record.Record {
			return []record.Record{pcr(record.UUID{9, 9, 9}, 0, func(r *record.PartitionChangeRecord) { r.Leader = 2 })}
		},
		rule: history.RuleRejected, message: "unknown topic id",
	}, {
		name: "leader outside the ISR",
		records: func(img *image.Image, id record.UUID) []record.Record {
			return []record.Record{pcr(id, 0, func(r *record.PartitionChangeRecord) { r.Leader, r.ISR = 3, []int32{1, 2} })}
		},
		rule: history.RuleLeaderNotInISR, message: "leader 3 is not in the ISR [1 2]",
	}, {
		name: "ISR outside the replicas",
		records: func(img *image.Image, id record.UUID) []record.Record {
			return []record.Record{pcr(id, 1, func(r *record.PartitionChangeRecord) { r.ISR = []int32{1, 2, 3, 7} })}
		},
		rule: history.RuleISROutsideReplicas, message: "ISR members [7] are not replicas",
	}, {
		name: "leader epoch going back",
		records: func(img *image.Image, id record.UUID) []record.Record {
			p, _ := img.Topics().Partition(id, 0)
			r := p.Record(id, false, false) // re-asserts the partition at its creation epochs
			move := pcr(id, 0, func(c *record.PartitionChangeRecord) { c.Leader = p.Replica(1) })
			return []record.Record{move, r}
		},
		at: 1, rule: history.RuleEpochBackwards, message: "leader epoch went back from 1 to 0",
	}, {
		name: "ELR member in the ISR",
		records: func(img *image.Image, id record.UUID) []record.Record {
			return []record.Record{pcr(id, 1, func(r *record.PartitionChangeRecord) { r.EligibleLeaderReplicas = []int32{1} })}
		},
		rule: history.RuleELR, message: "are in both the ELR [1] and the ISR",
	}, {
		name: "last known ELR kept with a leader",
		records: func(img *image.Image, id record.UUID) []record.Record {
			return []record.Record{pcr(id, 1, func(r *record.PartitionChangeRecord) { r.LastKnownELR = []int32{3} })}
		},
		rule: history.RuleELR, message: "last known ELR [3] kept while",
	}, {
		name: "ELR with a full ISR",
		records: func(img *image.Image, id record.UUID) []record.Record {
			p, _ := img.Topics().Partition(id, 1)
			out := p.Replica(2)
			return []record.Record{pcr(id, 1, func(r *record.PartitionChangeRecord) {
				r.ISR = []int32{p.Replica(0), p.Replica(1)}
				r.EligibleLeaderReplicas = []int32{out}
			})}
		},
		rule: history.RuleELR, message: "not empty while the ISR",
	}}
}

// brokenClusterLogs leave the cluster in a state Kafka's controller never
// does: a fenced leader, a stale controller registration, a leaderless
// partition with live replicas.
func brokenClusterLogs() []brokenLog {
	return []brokenLog{{
		name: "fenced broker left with leaderships",
		records: func(img *image.Image, id record.UUID) []record.Record {
			p, _ := img.Topics().Partition(id, 0)
			b, _ := img.Cluster().Broker(p.Leader())
			r := record.NewBrokerRegistrationChangeRecord()
			r.BrokerID, r.BrokerEpoch, r.Fenced = b.ID(), b.Epoch(), 1
			return []record.Record{r}
		},
		rule: history.RuleFencedLeader, message: "is fenced",
	}, {
		name: "stale controller registration",
		records: func(img *image.Image, id record.UUID) []record.Record {
			r := record.NewRegisterControllerRecord()
			r.ControllerID, r.IncarnationID = 3001, record.UUID{1}
			r.EndPoints = []record.ControllerEndpoint{{Name: "CONTROLLER", Host: "c1", Port: 9093}}
			return []record.Record{r}
		},
		control: &record.VotersRecord{Voters: []record.VotersRecordVoter{{VoterID: 3000, VoterDirectoryID: record.UUID{2},
			Endpoints: []record.VotersRecordEndpoint{{Name: "CONTROLLER", Host: "c0", Port: 9093}}}}},
		rule: history.RuleStaleController, message: "controller 3001 is registered but not in the voter set [3000]",
	}, {
		name: "leaderless with live replicas",
		records: func(img *image.Image, id record.UUID) []record.Record {
			return []record.Record{pcr(id, 1, func(r *record.PartitionChangeRecord) { r.Leader, r.ISR = -1, []int32{} })}
		},
		rule: history.RuleLeaderless, message: "are unfenced but none is electable",
	}}
}

// healthyCluster is the log every broken case starts from.
func healthyCluster(t *testing.T) (*deltatest.Simulator, string) {
	sim := deltatest.MustCluster(3)
	sim.MustCreateTopic("orders", 2, 3)
	return sim, writeSim(t, sim, deltatest.WriteDirOptions{})
}

// appendBroken writes the case's records as one batch (and its control
// record as a control batch) in a new segment after the simulator's log,
// and returns the offset of each record.
func appendBroken(t *testing.T, sim *deltatest.Simulator, dir string, recs []record.Record, ctl record.ControlRecord) []int64 {
	w, err := metalog.CreateSegment(metalog.OS{}, dir, sim.NextOffset())
	require.NoError(t, err)
	var vals [][]byte
	var offs []int64
	for i, r := range recs {
		v, err := record.Append(nil, r, r.HighestVersion())
		require.NoError(t, err)
		vals = append(vals, v)
		offs = append(offs, sim.NextOffset()+int64(i))
	}
	ms := sim.Now().UnixMilli() + 1000
	_, err = w.AppendData(sim.RaftEpoch(), ms, vals...)
	require.NoError(t, err)
	if ctl != nil {
		bb := metalog.NewControlBatchBuilder(w.NextOffset(), sim.RaftEpoch(), ms)
		require.NoError(t, bb.AppendControlRecord(ctl))
		batch, err := bb.Build()
		require.NoError(t, err)
		_, err = w.AppendBatch(batch)
		require.NoError(t, err)
	}
	require.NoError(t, w.Close())
	return offs
}

// TestCheckFindsEachBrokenLog: Check reports each deliberately broken log
// at the offset of the record that broke it, and nothing else that fails;
// the healthy log it starts from has no finding at all.
func TestCheckFindsEachBrokenLog(t *testing.T) {
	_, dir := healthyCluster(t)
	fs, err := history.Check(dir, history.Options{})
	require.NoError(t, err)
	assert.Empty(t, fs, "the healthy log")

	for _, c := range brokenLogs() {
		t.Run(c.name, func(t *testing.T) {
			sim, dir := healthyCluster(t)
			img := sim.Image()
			id, _ := img.Topics().IDOf("orders")
			recs := c.records(img, id)
			offs := appendBroken(t, sim, dir, recs, c.control)
			fs, err := history.Check(dir, history.Options{})
			require.NoError(t, err)
			var hit *history.Finding
			for i := range fs {
				f := &fs[i]
				if f.Rule == c.rule && f.At.Offset == offs[c.at] {
					if hit == nil || strings.Contains(f.Message, c.message) {
						hit = f
					}
					continue
				}
				assert.Less(t, f.Severity, history.Warning, "no other failing finding: %s", f)
			}
			require.NotNil(t, hit, "a %s finding at offset %d in %v", c.rule, offs[c.at], fs)
			assert.Contains(t, hit.Message, c.message)
			assert.Equal(t, metalog.SegmentName(sim.NextOffset()), hit.At.File)
			assert.Equal(t, recs[c.at].Type(), hit.Record.Type(), "the finding names the record")
			assert.GreaterOrEqual(t, hit.Severity, history.Warning, "a finding that fails the check")
			if c.rule == history.RuleRejected {
				first, ok := (&history.History{Findings: fs}).FirstRejection()
				require.True(t, ok)
				assert.Equal(t, offs[c.at], first.At.Offset)
			}
		})
	}
}

// TestCheckCorpus: every real corpus directory and every corpus file that
// stands alone (a snapshot, a bootstrap file, a segment from offset 0)
// checks clean: no error, no warning; each note explains why a Kafka log
// holds it. A segment that starts later is checked within its directory:
// alone it lacks the state its records change.
func TestCheckCorpus(t *testing.T) {
	paths := corpusDirs(t)
	for _, d := range corpusDirs(t) {
		ents, _ := os.ReadDir(d)
		for _, e := range ents {
			n := e.Name()
			if _, err := metalog.ParseSnapshotName(n); err == nil || n == "00000000000000000000.log" {
				paths = append(paths, filepath.Join(d, n))
			}
		}
		if _, err := os.Stat(filepath.Join(d, "..", metalog.BootstrapFileName)); err == nil {
			paths = append(paths, filepath.Join(d, "..", metalog.BootstrapFileName))
		}
	}
	notes := map[history.Rule]int{}
	verified := 0
	for _, p := range paths {
		t.Run(corpusName(p), func(t *testing.T) {
			h := readCorpus(t, p)
			verified += h.SnapshotsVerified
			for _, f := range h.Findings {
				assert.Equal(t, history.Info, f.Severity, "%s", f)
				assert.NotEmpty(t, f.Explanation, "%s", f)
				notes[f.Rule]++
			}
			assert.False(t, h.Failed())
		})
	}
	t.Logf("notes: %v; %d later snapshots equal to the log replayed to their offset", notes, verified)
	if raceEnabled {
		return // the large directories were skipped
	}
	assert.Positive(t, verified)
	// The corpus holds single-broker clusters shut down with their
	// partitions leaderless, and a 3.2 cluster whose brokers re-registered
	// while leading.
	assert.Positive(t, notes[history.RuleLeaderless])
	assert.Positive(t, notes[history.RuleFencedLeader])
	for r := range notes {
		assert.True(t, r == history.RuleLeaderless || r == history.RuleFencedLeader, "unexpected note %s", r)
	}
}

// TestCheckSnapshotMismatch: a snapshot that is not the image of the log
// at its offset is an error at that snapshot.
func TestCheckSnapshotMismatch(t *testing.T) {
	sim, _ := healthyCluster(t)
	sim.MustCreateTopic("audit", 1, 1)
	last := sim.Batches()[len(sim.Batches())-1]
	dir := writeSim(t, sim, deltatest.WriteDirOptions{})
	good, err := sim.ImageAt(last.LastOffset())
	require.NoError(t, err)
	bld := image.NewBuilder(good)
	var lost []record.UUID // the snapshot lost every topic
	for t := range good.Topics().All() {
		lost = append(lost, t.ID())
	}
	require.NoError(t, bld.PutTopics(lost, nil))
	bad := bld.Image(good.Provenance())
	_, err = (&publisher.DirEmitter{Dir: dir}).Emit(bad)
	require.NoError(t, err)

	h, err := history.Read(dir, history.Options{})
	require.NoError(t, err)
	assert.Equal(t, 1, h.SnapshotsVerified)
	require.Len(t, h.Findings, 1, "%v", h.Findings)
	f := h.Findings[0]
	assert.Equal(t, history.RuleSnapshotMismatch, f.Rule)
	assert.Equal(t, last.LastOffset(), f.At.Offset)
	assert.Equal(t, publisher.SnapshotID(bad).FileName(), f.At.File)
	assert.Contains(t, f.Message, "removed topic audit")

	// The same snapshot written from the right image is verified clean.
	dir2 := writeSim(t, sim, deltatest.WriteDirOptions{SnapshotAt: last.LastOffset()})
	h, err = history.Read(dir2, history.Options{})
	require.NoError(t, err)
	assert.Equal(t, 1, h.SnapshotsVerified)
	assert.Empty(t, h.Findings)
}

// TestCheckELRScenario: a simulated ELR cluster (min.insync.replicas 2,
// RF 3) losing two brokers and getting them back fills and empties ELRs
// as Kafka's PartitionChangeBuilder does; none of it is a finding.
func TestCheckELRScenario(t *testing.T) {
	sim, err := deltatest.New(deltatest.Config{MinInSyncReplicas: 2})
	require.NoError(t, err)
	require.NoError(t, sim.AddBrokers(3))
	sim.MustCreateTopic("orders", 6, 3)
	require.NoError(t, sim.Advance(time.Second))
	require.NoError(t, sim.CrashBroker(1))
	require.NoError(t, sim.Advance(12*time.Second))
	require.NoError(t, sim.CrashBroker(2))
	require.NoError(t, sim.Advance(12*time.Second))
	require.NoError(t, sim.Heartbeat(1))
	require.NoError(t, sim.Heartbeat(2))
	require.NoError(t, sim.Advance(5*time.Second))
	for p := int32(0); p < 6; p++ {
		require.NoError(t, sim.ExpandISR("orders", p, 1))
		require.NoError(t, sim.ExpandISR("orders", p, 2))
	}
	dir := writeSim(t, sim, deltatest.WriteDirOptions{})
	h, err := history.Read(dir, history.Options{})
	require.NoError(t, err)
	withELR := 0
	for _, p := range h.Partitions() {
		for _, ev := range p.Events {
			if len(ev.After.ELR) > 0 {
				withELR++
			}
		}
	}
	assert.Positive(t, withELR, "the scenario fills ELRs")
	for _, f := range h.Findings {
		assert.Less(t, f.Severity, history.Warning, "%s", f)
	}
}
