package deltatest

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/internal/kafkaoracle"
	"github.com/kmeta-go/kmeta/internal/sharedtest"
	"github.com/kmeta-go/kmeta/record"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// The simulator runs the oracle harness's ChangesReplicas generator reads:
// it runs TestWriteOracleSimLogs with these flags (see
// internal/kafkaoracle/README.md).
var (
	simLogsDir = flag.String("kmeta.simlogs", "", "write the oracle's simulator runs as metadata directories here")
	simSeed    = flag.Int64("kmeta.simseed", 1, "the oracle harness seed the simulator runs derive from")
)

// oracleSimMVs are the metadata versions of the oracle's simulator runs:
// 3.7-IV4 (directories), 4.0-IV3, 4.4-IV2.
var oracleSimMVs = []image.MetadataVersion{image.MV3_7_IV4, image.MV4_0_IV3, image.MV4_4_IV2}

// oracleSimName names run i at mv of harness seed seed; parseOracleSimName
// reads it back.
func oracleSimName(mv image.MetadataVersion, seed int64) string {
	return fmt.Sprintf("mv%d-seed%d", mv, seed)
}

func parseOracleSimName(name string) (image.MetadataVersion, int64, error) {
	var mv int
	var seed int64
	if _, err := fmt.Sscanf(name, "mv%d-seed%d", &mv, &seed); err != nil {
		return 0, 0, fmt.Errorf("simulator run %q: %w", name, err)
	}
	return image.MetadataVersion(mv), seed, nil
}

// oracleSim runs the simulator for the oracle: four brokers, the three
// coordinator topics (created again when a random operation deleted one),
// then 150 random operations (randomOps) and, from 3.7-IV2 (two log
// directories a broker), directory assignments and failures now and then.
func oracleSim(t testing.TB, mv image.MetadataVersion, seed int64) *Simulator {
	t.Helper()
	s := MustNew(Config{MetadataVersion: mv, Seed: seed})
	for id := int32(1); id <= 4; id++ {
		spec := BrokerSpec{ID: id, Rack: []string{"a", "b"}[id%2]}
		if mv.DirectoryAssignmentSupported() {
			spec.LogDirs = []record.UUID{{byte(id), 1}, {byte(id), 2}}
		}
		if err := s.AddBroker(spec); err != nil {
			t.Fatal(err)
		}
	}
	internal := []TopicSpec{
		{Name: delta.GroupMetadataTopic, Partitions: 5, ReplicationFactor: 3},
		{Name: delta.TransactionStateTopic, Partitions: 3, ReplicationFactor: 3},
		{Name: delta.ShareGroupStateTopic, Partitions: 2, ReplicationFactor: 2},
	}
	ensure := func() {
		for _, spec := range internal {
			if _, ok := s.byName[spec.Name]; !ok {
				if _, err := s.CreateTopic(spec); err != nil && !kafkaError(err) {
					t.Fatal(err)
				}
			}
		}
	}
	ensure()
	rng := rand.New(rand.NewPCG(uint64(seed), uint64(mv)))
	extra := rand.New(rand.NewPCG(uint64(seed), 23))
	randomOps(t, s, rng, 150, func(string) {
		if extra.IntN(6) == 0 {
			ensure()
		}
		if extra.IntN(4) == 0 {
			oracleDirOp(t, s, extra)
		}
	})
	return s
}

// oracleDirOp fails or reassigns a log directory of a random broker.
func oracleDirOp(t testing.TB, s *Simulator, rng *rand.Rand) {
	t.Helper()
	id := opBrokerIDs[rng.IntN(len(opBrokerIDs))]
	b := s.brokers[id]
	if b == nil || !s.mv.DirectoryAssignmentSupported() {
		return
	}
	dirs := b.reg.Directories()
	if len(dirs) == 0 {
		return
	}
	var err error
	switch k := rng.IntN(10); {
	case k < 3:
		err = s.FailLogDir(id, dirs[rng.IntN(len(dirs))])
	default:
		dir := dirs[rng.IntN(len(dirs))]
		if k == 9 {
			dir = record.UUID{byte(id), 9} // not one of the broker's online directories
		}
		if name, ok := (&opGen{s: s, rng: rng}).pickTopic(); ok {
			err = s.AssignReplicaToDir(name, int32(rng.IntN(s.topics[s.byName[name]].numParts())), id, dir)
		}
	}
	if err != nil && !kafkaError(err) {
		t.Fatal(err)
	}
}

// TestWriteOracleSimLogs writes the oracle's simulator runs (harness seed
// -kmeta.simseed) as metadata directories under -kmeta.simlogs; without the
// flag it does nothing. The ChangesReplicas generator runs it.
func TestWriteOracleSimLogs(t *testing.T) {
	if *simLogsDir == "" {
		t.Skip("no -kmeta.simlogs")
	}
	if err := os.RemoveAll(*simLogsDir); err != nil {
		t.Fatal(err)
	}
	for _, mv := range oracleSimMVs {
		for i := range int64(3) {
			seed := *simSeed*10 + i
			s := oracleSim(t, mv, seed)
			if _, err := s.WriteDir(filepath.Join(*simLogsDir, oracleSimName(mv, seed)), WriteDirOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// replicaVector is one line of changes-replicas: what Kafka's
// TopicsDelta.localChanges, ReplicaManager.applyDelta and
// BrokerMetadataPublisher.updateCoordinator compute for one delta of one
// input, by broker id.
type replicaVector struct {
	Input      string                     `json:"input"`
	Batch      int                        `json:"batch"`
	BaseOffset int64                      `json:"baseOffset"`
	Brokers    map[string]json.RawMessage `json:"brokers"`
}

// TestOracleReplicaAndCoordinatorChanges: for every delta of every corpus
// metadata directory and of the seeded simulator runs, and every broker id
// registered before or after it or holding a replica of a partition it
// touches, delta.Delta.ReplicaChanges (in and out of
// controlled shutdown) and delta.Delta.Coordinators equal what Kafka 4.4
// computes (changes-replicas vectors): TopicsDelta.localChanges itself, and
// the transcribed ReplicaManager.applyDelta, Partition.makeLeader /
// makeFollower and BrokerMetadataPublisher.updateCoordinator. Deltas with no
// vector must give nothing for any broker. On every one of these deltas the
// change sets also equal image.Diff of its two images (checkChangeSets).
func TestOracleReplicaAndCoordinatorChanges(t *testing.T) {
	want := map[string]map[int]replicaVector{}
	var order []string
	kafkaoracle.Decode(t, "changes-replicas", func(n int, v *replicaVector) {
		if want[v.Input] == nil {
			want[v.Input] = map[int]replicaVector{}
			order = append(order, v.Input)
		}
		want[v.Input][v.Batch] = *v
	})
	for _, input := range order {
		t.Run(input, func(t *testing.T) {
			dir := oracleInputDir(t, input)
			checked := 0
			replayDirDeltas(t, dir, func(batch int, d *delta.Delta, img *image.Image) {
				checkChangeSets(t, fmt.Sprintf("%s batch %d", input, batch), d, img)
				got := deltaVectors(d, img)
				w := want[input][batch]
				if len(got) != len(w.Brokers) {
					t.Fatalf("%s batch %d (offset %d): brokers %v, Kafka %v", input, batch, w.BaseOffset, keys(got), keys(w.Brokers))
				}
				for id, gv := range got {
					var a, b any
					if err := json.Unmarshal(gv, &a); err != nil {
						t.Fatal(err)
					}
					if err := json.Unmarshal(w.Brokers[id], &b); err != nil {
						t.Fatal(err)
					}
					if !reflect.DeepEqual(a, b) {
						t.Fatalf("%s batch %d (offset %d) broker %s:\n kmeta %s\n Kafka %s", input, batch, w.BaseOffset, id, gv, w.Brokers[id])
					}
					checked++
				}
			})
			if checked == 0 && len(want[input]) > 0 {
				t.Fatalf("%s: no vector checked", input)
			}
		})
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// oracleInputDir is the metadata directory of an input of the vectors: a
// corpus directory, or a simulator run written afresh.
func oracleInputDir(t *testing.T, input string) string {
	if rel, ok := strings.CutPrefix(input, "corpus:"); ok {
		return sharedtest.Path(t, "corpus", filepath.FromSlash(rel))
	}
	rel, ok := strings.CutPrefix(input, "sim:")
	if !ok {
		t.Fatalf("input %q", input)
	}
	mv, seed, err := parseOracleSimName(strings.Split(rel, "/")[0])
	if err != nil {
		t.Fatal(err)
	}
	dir, err := oracleSim(t, mv, seed).WriteDir(t.TempDir(), WriteDirOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// replayDirDeltas replays a metadata directory as the ChangesReplicas
// generator does: the latest snapshot as one delta from the empty image,
// then each data batch after it as one delta (transaction markers and
// NoOpRecords aside; a batch of nothing else is no delta), calling fn with
// the delta's number, the delta and the image it applies to.
func replayDirDeltas(t *testing.T, dir string, fn func(batch int, d *delta.Delta, img *image.Image)) {
	r, err := metalog.OpenDir(metalog.OS{}, dir, metalog.Finished)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	img, n := image.Empty(), 0
	if snap := r.Snapshot(); snap != nil {
		d := delta.NewSnapshot(img)
		for {
			b, err := snap.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if b.IsControl() {
				continue
			}
			replayOracleBatch(t, d, b)
		}
		d.FinishSnapshot()
		img = applyDelta(t, d, image.Provenance{LastContainedOffset: snap.LastContainedLogOffset()})
		fn(n, d, img)
		n++
	}
	for {
		b, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if b.IsControl() {
			continue
		}
		d := delta.New(img)
		if !replayOracleBatch(t, d, b) {
			continue
		}
		img = applyDelta(t, d, image.Provenance{LastContainedOffset: b.LastOffset(), LastContainedEpoch: b.PartitionLeaderEpoch})
		fn(n, d, img)
		n++
	}
}

func replayOracleBatch(t *testing.T, d *delta.Delta, b *metalog.Batch) bool {
	recs, err := b.DecodeRecords()
	if err != nil {
		t.Fatal(err)
	}
	any := false
	for _, r := range recs {
		switch r.Record.(type) {
		case *record.BeginTransactionRecord, *record.EndTransactionRecord, *record.AbortTransactionRecord, *record.NoOpRecord:
			continue
		}
		any = true
		if err := d.ReplayAt(r.Offset, r.Record); err != nil {
			t.Fatal(err)
		}
	}
	return any
}

func applyDelta(t *testing.T, d *delta.Delta, p image.Provenance) *image.Image {
	img, err := d.Apply(p)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// deltaVectors is what kmeta computes for the delta in the vectors' form,
// for every broker registered in its base or its image, or holding a replica
// of a partition it touches, with anything to do.
func deltaVectors(d *delta.Delta, img *image.Image) map[string]json.RawMessage {
	ids := map[int32]bool{}
	for b := range d.Base().Cluster().Brokers() {
		ids[b.ID()] = true
	}
	for b := range img.Cluster().Brokers() {
		ids[b.ID()] = true
	}
	tc := d.Topics()
	for _, id := range append(tc.Created, tc.Changed...) {
		for _, p := range d.ChangedPartitions(id) {
			if np, ok := img.Topics().Partition(id, p); ok {
				for _, r := range np.Replicas() {
					ids[r] = true
				}
			}
			if bp, ok := d.Base().Topics().Partition(id, p); ok {
				for _, r := range bp.Replicas() {
					ids[r] = true
				}
			}
		}
	}
	for _, id := range tc.Deleted {
		if bt, ok := d.Base().Topics().ByID(id); ok {
			for p := range bt.Partitions() {
				for _, r := range p.Replicas() {
					ids[r] = true
				}
			}
		}
	}
	out := map[string]json.RawMessage{}
	for id := range ids {
		v := brokerVector(d, id)
		if len(v) == 0 {
			continue
		}
		raw, _ := json.Marshal(v)
		out[fmt.Sprint(id)] = raw
	}
	return out
}

func brokerVector(d *delta.Delta, id int32) map[string]any {
	v := map[string]any{}
	rc := d.ReplicaChanges(id, false)
	stop := map[delta.TopicPartition]bool{}
	for _, f := range d.ReplicaChanges(id, true).Followers {
		stop[f.TopicPartition] = f.StopFetching
	}
	var deletes, leaders, followers, dirs [][]any
	for _, x := range rc.Deletes {
		deletes = append(deletes, []any{x.Topic, x.Partition, x.DeleteRemoteLog})
	}
	for _, x := range rc.Leaders {
		leaders = append(leaders, []any{x.Topic, x.Partition, x.TopicID.String(), x.Elected})
	}
	for _, x := range rc.Followers {
		if x.StopFetching || x.StartFetching != x.NewLeaderEpoch {
			panic("follower flags outside controlled shutdown")
		}
		followers = append(followers, []any{x.Topic, x.Partition, x.TopicID.String(), x.LeaderChanged, x.NewLeaderEpoch, stop[x.TopicPartition]})
	}
	for tp, dir := range rc.Directories {
		dirs = append(dirs, []any{tp.Topic, tp.Partition, tp.TopicID.String(), dir.String()})
	}
	sortVec(dirs)
	put := func(k string, l [][]any) {
		if len(l) > 0 {
			v[k] = l
		}
	}
	put("deletes", deletes)
	put("leaders", leaders)
	put("followers", followers)
	put("directories", dirs)
	if len(dirs) > 0 {
		v["assignDirectories"] = rc.AssignDirectories
	}
	var coord [][]any
	for _, c := range d.Coordinators(id) {
		kind := "resignation"
		if c.Elected {
			kind = "election"
		}
		var epoch any
		if c.HasEpoch {
			epoch = c.LeaderEpoch
		}
		coord = append(coord, []any{c.Topic, c.Partition, kind, epoch})
	}
	put("coordinators", coord)
	return v
}

// sortVec sorts rows [topic, partition, ...] by topic then partition.
func sortVec(rows [][]any) {
	less := func(a, b []any) bool {
		if a[0].(string) != b[0].(string) {
			return a[0].(string) < b[0].(string)
		}
		return a[1].(int32) < b[1].(int32)
	}
	for i := 1; i < len(rows); i++ {
		for j := i; j > 0 && less(rows[j], rows[j-1]); j-- {
			rows[j], rows[j-1] = rows[j-1], rows[j]
		}
	}
}

// TestCoordinatorResignsOnlyLedPartitionsOnTopicDeletion: deleting
// __consumer_offsets on a broker that led one of its three partitions and
// followed the other two deletes three replicas (LocalChanges) but resigns
// one coordinator partition, without epoch, as
// BrokerMetadataPublisher.updateCoordinator does (the deleted topic's
// partitions the broker led); a broker that only followed resigns nothing.
// Only a led partition's remote log is deleted.
func TestCoordinatorResignsOnlyLedPartitionsOnTopicDeletion(t *testing.T) {
	s := MustCluster(4)
	if _, err := s.CreateTopic(TopicSpec{Name: delta.GroupMetadataTopic, Assignment: [][]int32{{1, 2, 4}, {2, 1, 4}, {3, 1, 4}}}); err != nil {
		t.Fatal(err)
	}
	d, _, err := s.Step(func() error { return s.DeleteTopic(delta.GroupMetadataTopic) })
	if err != nil {
		t.Fatal(err)
	}
	if got := len(d.LocalChanges(1).Deletes); got != 3 {
		t.Fatalf("broker 1 deletes %d replicas, want 3", got)
	}
	got := d.Coordinators(1)
	want := []delta.CoordinatorChange{{Topic: delta.GroupMetadataTopic, Partition: 0}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("broker 1's coordinator changes %+v, want %+v", got, want)
	}
	if got := d.Coordinators(4); len(got) != 0 || len(d.LocalChanges(4).Deletes) != 3 {
		t.Fatalf("broker 4, which only followed: coordinator changes %+v", got)
	}
	for _, b := range []int32{1, 2, 3, 4} {
		rc := d.ReplicaChanges(b, false)
		for _, del := range rc.Deletes {
			if del.DeleteRemoteLog != (del.Partition == b-1) {
				t.Fatalf("broker %d %s-%d: DeleteRemoteLog %v (only the led partition's remote log goes)", b, del.Topic, del.Partition, del.DeleteRemoteLog)
			}
		}
	}
}
