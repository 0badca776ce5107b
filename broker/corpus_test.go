package broker_test

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kmeta-go/kmeta/broker"
	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/group"
	"github.com/kmeta-go/kmeta/internal/kafkaoracle"
	"github.com/kmeta-go/kmeta/internal/sharedtest"
	"github.com/kmeta-go/kmeta/record"
	"github.com/kmeta-go/kmeta/record/metalog"
)

type corpusVector struct {
	File           string           `json:"file"`
	Batch          int              `json:"batch"`
	Offset         int64            `json:"offset"`
	ReplayError    *string          `json:"replayError"`
	MVChanged      *int16           `json:"mvChanged"`
	ChangedBrokers []int32          `json:"changedBrokers"`
	IDs            []int32          `json:"ids"`
	Refresh        []int32          `json:"refresh"`
	TrackerErrors  []int32          `json:"trackerErrors"`
	ValidatorFault *string          `json:"validatorFault"`
	Finalized      map[string]int16 `json:"finalized"`
	IncompatProd   map[string]int16 `json:"incompatibleProduction"`
	IncompatTest   map[string]int16 `json:"incompatibleTesting"`
	Final          bool             `json:"final"`
	TopicHashes    map[string]int64 `json:"topicHashes"`
	GroupHash      int64            `json:"groupHash"`
	ReplicaEPs     [][4]any         `json:"replicaEndpoints"`
}

// corpusBatches returns the data batches of a metadata file as the
// harness's BrokerCorpus replays them: a snapshot or bootstrap file as one
// batch; a log segment batch by batch, after the smallest snapshot of its
// directory that reaches its base offset when it does not start at 0 (nil
// when there is none).
func corpusBatches(t *testing.T, path string) (snapshot, batches [][]record.Record) {
	name := filepath.Base(path)
	if strings.HasSuffix(name, metalog.SnapshotSuffix) {
		return nil, [][]record.Record{readSnapshot(t, path)}
	}
	base, err := metalog.ParseSegmentName(name)
	if err != nil {
		t.Fatal(err)
	}
	start := int64(0)
	if base > 0 {
		ents, err := os.ReadDir(filepath.Dir(path))
		if err != nil {
			t.Fatal(err)
		}
		best := ""
		for _, e := range ents {
			id, err := metalog.ParseSnapshotName(e.Name())
			if err == nil && id.EndOffset >= base && (best == "" || id.EndOffset < start) {
				best, start = e.Name(), id.EndOffset
			}
		}
		if best == "" {
			return nil, nil
		}
		snapshot = [][]record.Record{readSnapshot(t, filepath.Join(filepath.Dir(path), best))}
	}
	seg, err := metalog.OpenSegment(metalog.OS{}, path, metalog.Finished)
	if err != nil {
		t.Fatal(err)
	}
	defer seg.Close()
	for {
		b, err := seg.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if b.IsControl() || b.LastOffset() < start {
			continue
		}
		batches = append(batches, decode(t, b))
	}
	if snapshot == nil && base > 0 {
		return nil, nil
	}
	return snapshot, batches
}

func readSnapshot(t *testing.T, path string) []record.Record {
	open := metalog.OpenSnapshot
	if filepath.Base(path) == "bootstrap.checkpoint" {
		open = metalog.OpenBootstrap
	}
	s, err := open(metalog.OS{}, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var recs []record.Record
	for {
		b, err := s.Next()
		if errors.Is(err, io.EOF) {
			return recs
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if !b.IsControl() {
			recs = append(recs, decode(t, b)...)
		}
	}
}

func decode(t *testing.T, b *metalog.Batch) []record.Record {
	recs, err := b.DecodeRecords()
	if err != nil {
		t.Fatal(err)
	}
	out := make([]record.Record, len(recs))
	for i, r := range recs {
		out[i] = r.Record
	}
	return out
}

func apply(t *testing.T, img *image.Image, recs []record.Record) (*delta.Delta, *image.Image) {
	d := delta.New(img)
	for _, r := range recs {
		if err := d.Replay(r); err != nil {
			t.Fatalf("replay: %v", err)
		}
	}
	next, err := d.Apply(image.EmptyProvenance)
	if err != nil {
		t.Fatal(err)
	}
	return d, next
}

// TestKafkaCorpusBrokerPublishers replays every corpus log, snapshot and
// bootstrap file one delta per batch, as the harness fed Kafka 4.4's
// MetadataDelta, and after each delta checks what Kafka's broker-side
// publishers decided (broker-corpus vectors): BrokerRegistrationTracker for
// every broker id involved (TrackRegistration), MetadataVersionConfigValidator
// with several log directories (ValidateMetadataVersion) and
// BrokerFeatures.incompatibleFeatures of the finalized features
// (IncompatibleFeatures); batches without a vector decide nothing in
// either. After each file's last batch, the group coordinator's topic
// hashes, group hash and getPartitionReplicaEndpoints equal Kafka's.
func TestKafkaCorpusBrokerPublishers(t *testing.T) {
	shared := sharedtest.Dir(t)
	byFile := map[string][]*corpusVector{}
	kafkaoracle.Decode(t, "broker-corpus", func(n int, v *corpusVector) {
		byFile[v.File] = append(byFile[v.File], v)
	})
	var updates, finals int
	for _, file := range slices.Sorted(maps.Keys(byFile)) {
		t.Run(file, func(t *testing.T) {
			lines := byFile[file]
			snapshot, batches := corpusBatches(t, filepath.Join(shared, file))
			img := image.Empty()
			for _, s := range snapshot {
				_, img = apply(t, img, s)
			}
			at := map[int]*corpusVector{}
			var final *corpusVector
			for _, l := range lines {
				if l.ReplayError != nil {
					t.Fatalf("Kafka's replay failed at batch %d (%s): not expected of a Kafka-written file", l.Batch, *l.ReplayError)
				}
				if l.Final {
					final = l
				} else {
					at[l.Batch] = l
				}
			}
			for i, recs := range batches {
				base := img
				var d *delta.Delta
				d, img = apply(t, img, recs)
				updates++
				checkUpdate(t, fmt.Sprintf("batch %d", i), d, base, img, at[i])
			}
			if final == nil {
				t.Fatal("no final vector")
			}
			finals++
			checkFinal(t, img, final)
		})
	}
	if updates == 0 || finals == 0 {
		t.Fatal("no corpus file replayed")
	}
}

func checkUpdate(t *testing.T, where string, d *delta.Delta, base, img *image.Image, v *corpusVector) {
	mv, mvChanged := d.MetadataVersionChanged()
	if v == nil {
		if mvChanged || len(d.Brokers().Changed) > 0 {
			t.Errorf("%s: metadata.version %v / brokers %v changed; Kafka's delta touched neither", where, mvChanged, d.Brokers().Changed)
		}
		return
	}
	if mvChanged != (v.MVChanged != nil) || (mvChanged && int16(mv) != *v.MVChanged) {
		t.Errorf("%s: metadata.version change %v %v, Kafka %v", where, mv, mvChanged, v.MVChanged)
	}
	for _, id := range d.Brokers().Changed {
		if !slices.Contains(v.ChangedBrokers, id) {
			t.Errorf("%s: broker %d changed; Kafka's delta did not touch it", where, id)
		}
	}
	for _, id := range v.IDs {
		got, err := broker.TrackRegistration(d, img, id)
		if (err != nil) != slices.Contains(v.TrackerErrors, id) || got != slices.Contains(v.Refresh, id) {
			t.Errorf("%s: broker %d: refresh %v error %v; Kafka refreshes %v, errors %v", where, id, got, err, v.Refresh, v.TrackerErrors)
		}
	}
	if err := broker.ValidateMetadataVersion(d, img, true); (err != nil) != (v.ValidatorFault != nil) {
		t.Errorf("%s: validator %v, Kafka %v", where, err, v.ValidatorFault)
	}
	if v.Finalized != nil {
		fin := broker.FinalizedLevels(img.Features())
		if !maps.Equal(fin, v.Finalized) {
			t.Errorf("%s: finalized %v, Kafka %v", where, fin, v.Finalized)
		}
		if got := broker.IncompatibleFeatures(broker.DefaultSupportedFeatures(false), fin); !maps.Equal(got, v.IncompatProd) {
			t.Errorf("%s: incompatible %v, Kafka %v", where, got, v.IncompatProd)
		}
		if got := broker.IncompatibleFeatures(broker.DefaultSupportedFeatures(true), fin); !maps.Equal(got, v.IncompatTest) {
			t.Errorf("%s: incompatible (unstable) %v, Kafka %v", where, got, v.IncompatTest)
		}
	}
}

func checkFinal(t *testing.T, img *image.Image, v *corpusVector) {
	hashes := map[string]int64{}
	for tp := range img.Topics().All() {
		hashes[tp.Name()] = group.TopicHashOf(img, tp)
	}
	if !maps.Equal(hashes, v.TopicHashes) {
		t.Errorf("topic hashes %v, Kafka %v", hashes, v.TopicHashes)
	}
	if g := group.GroupHash(hashes); g != v.GroupHash {
		t.Errorf("group hash %d, Kafka %d", g, v.GroupHash)
	}
	for _, e := range v.ReplicaEPs {
		tp, _ := img.Topic(e[0].(string))
		got := img.AppendReplicaEndpoints(nil, tp, int32(e[1].(float64)), e[2].(string))
		want := e[3].(map[string]any)
		if len(got) != len(want) {
			t.Errorf("%v-%v %v: replica endpoints %+v, Kafka %v", e[0], e[1], e[2], got, want)
		}
		for _, g := range got {
			w, ok := want[strconv.Itoa(int(g.ID))].(map[string]any)
			if !ok || w["host"] != g.Host || int32(w["port"].(float64)) != g.Port {
				t.Errorf("%v-%v %v: replica %+v, Kafka %v", e[0], e[1], e[2], g, w)
			}
		}
	}
}
