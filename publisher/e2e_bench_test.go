package publisher

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/internal/benchtest"
	"github.com/kmeta-go/kmeta/record"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// End to end: the bytes of a metadata file in, a published image out, as a
// broker waits for it. Each benchmark reads the file from memory through
// record's readers (CRCs checked), decodes every record, and feeds the
// Loader exactly as a raft client does (LoadSnapshot of the file's reader for a snapshot,
// HandleCommit per committed batch for a log), with the Cache installed; it
// ends when the Cache holds the image of the file's last offset. Kafka's
// side of the same files is internal/kafkaoracle's BenchE2E
// (RecordsSnapshotReader / RecordsBatchReader into MetadataLoader's
// handleLoadSnapshot / handleCommit until a MetadataPublisher is handed the
// image), run by internal/kafkaoracle/bench-e2e.sh, which writes the files
// with TestE2EFiles and prints both sides' rows from one run.
//
// The cluster is the JMH benchmarks' (10 partitions per topic, RF 3, 10 000
// replicas per broker, round-robin leaders) with its brokers registered and
// unfenced, at metadata.version 4.4-IV2. partitions=10M allocates several GB
// and runs only with KMETA_BENCH10M=1.

var e2eSizes = []struct {
	name   string
	topics int
}{{"topics=100000", 100000}, {"partitions=10M", 1000000}}

const (
	e2ePartitions    = 10
	e2eRF            = 3
	e2eReplicasPerBr = 10000
	// e2eSegmentRecords is the size of the log-segment benchmark's file.
	e2eSegmentRecords = 1000000
)

// e2eFile is one benchmark input: the file's bytes, its name as Kafka
// names it, and the offset whose image ends the load.
type e2eFile struct {
	name   string
	data   []byte
	last   int64
	topics int
	id     metalog.SnapshotID // snapshots only
}

// e2eCache holds the files across benchmarks (writing 1 M partitions takes
// seconds); the 10 M snapshot is not cached.
var e2eCache sync.Map

func e2eBrokers(topics int) int {
	n := topics * e2ePartitions * e2eRF / e2eReplicasPerBr
	return max(n-n%e2eRF, e2eRF)
}

// e2eRecords calls yield with the cluster's records: metadata.version, the
// brokers' registrations and unfencings, then each topic and its partitions.
func e2eRecords(topics int, yield func(record.Record, int16) error) error {
	fl := record.NewFeatureLevelRecord()
	fl.Name, fl.FeatureLevel = image.MetadataVersionFeature, int16(image.MV4_4_IV2)
	if err := yield(fl, 0); err != nil {
		return err
	}
	brokers := e2eBrokers(topics)
	for id := range brokers {
		rb := record.NewRegisterBrokerRecord()
		rb.BrokerID, rb.BrokerEpoch, rb.IncarnationID = int32(id), int64(100+id), record.UUID{byte(id >> 8), byte(id), 1}
		rb.EndPoints = []record.BrokerEndpoint{{Name: "PLAINTEXT", Host: fmt.Sprintf("broker%d", id), Port: 9092}}
		rb.Fenced = false
		rb.LogDirs = []record.UUID{{byte(id >> 8), byte(id), 2}}
		if err := yield(rb, image.MV4_4_IV2.RegisterBrokerRecordVersion()); err != nil {
			return err
		}
	}
	r := rand.New(rand.NewPCG(uint64(topics), 7))
	leader := 0
	pv := image.MV4_4_IV2.PartitionRecordVersion()
	for t := range topics {
		var id record.UUID
		for i := range id {
			id[i] = byte(r.Uint32())
		}
		tr := record.NewTopicRecord()
		tr.Name, tr.TopicID = fmt.Sprintf("topic%d", t), id
		if err := yield(tr, 0); err != nil {
			return err
		}
		for p := range e2ePartitions {
			pr := record.NewPartitionRecord()
			pr.TopicID, pr.PartitionID = id, int32(p)
			reps := make([]int32, e2eRF)
			dirs := make([]record.UUID, e2eRF)
			for i := range reps {
				b := (leader + i) % brokers
				reps[i], dirs[i] = int32(b), record.UUID{byte(b >> 8), byte(b), 2}
			}
			pr.Replicas, pr.ISR, pr.Directories = reps, reps, dirs
			pr.RemovingReplicas, pr.AddingReplicas = []int32{}, []int32{}
			pr.Leader, pr.LeaderEpoch, pr.PartitionEpoch = int32(leader), 0, 0
			leader = (leader + 1) % brokers
			if err := yield(pr, pv); err != nil {
				return err
			}
		}
	}
	return nil
}

// e2eSnapshot writes the cluster of topics topics as a snapshot file
// (RecordsSnapshotWriter's batching, as SnapshotEmitter appends).
func e2eSnapshot(tb testing.TB, topics int) e2eFile {
	var buf bytes.Buffer
	n := int64(0)
	_ = e2eRecords(topics, func(record.Record, int16) error { n++; return nil })
	id := metalog.SnapshotID{EndOffset: n, Epoch: 1}
	w, err := metalog.NewSnapshotWriter(&buf, id, metalog.SnapshotWriterConfig{LastContainedLogTimestamp: 1, Now: func() int64 { return 1 }})
	if err != nil {
		tb.Fatal(err)
	}
	if err := e2eRecords(topics, w.AppendRecord); err != nil {
		tb.Fatal(err)
	}
	if _, err := w.Freeze(); err != nil {
		tb.Fatal(err)
	}
	return e2eFile{name: id.FileName(), data: buf.Bytes(), last: n - 1, topics: topics, id: id}
}

// e2eSegment writes a log segment of about records records as the
// controller commits them: one batch for metadata.version and the brokers,
// then one batch per topic (its TopicRecord and PartitionRecords, as
// CreateTopics commits them), appended one second apart.
func e2eSegment(tb testing.TB, records int) e2eFile {
	topics := records / (e2ePartitions + 1)
	var out []byte
	bb := metalog.NewBatchBuilder(0, 1, 1)
	flush := func() {
		if bb.Len() == 0 {
			return
		}
		data, err := bb.Build()
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, data...)
		next := bb.NextOffset()
		bb.Reset(next, 1, 1+next, false)
	}
	err := e2eRecords(topics, func(r record.Record, v int16) error {
		if r.Type() == record.TypeTopicRecord {
			flush()
		}
		return bb.AppendRecord(r, v)
	})
	if err != nil {
		tb.Fatal(err)
	}
	last := bb.NextOffset() - 1
	flush()
	return e2eFile{name: metalog.SegmentName(0), data: out, last: last, topics: topics}
}

func e2eCached(tb testing.TB, key string, mk func() e2eFile) e2eFile {
	if v, ok := e2eCache.Load(key); ok {
		return v.(e2eFile)
	}
	f := mk()
	e2eCache.Store(key, f)
	return f
}

// e2eLoadSnapshot is the measured step for a snapshot: bytes to the image
// the Cache publishes.
func e2eLoadSnapshot(f e2eFile) (*image.Image, error) {
	l := NewLoader(Config{})
	cache := NewCache("cache")
	if err := l.Install(cache); err != nil {
		return nil, err
	}
	l.SetHighWatermark(f.last + 1)
	r, err := metalog.NewSnapshotReader(bytes.NewReader(f.data), f.name, f.id)
	if err != nil {
		return nil, err
	}
	if err := l.LoadSnapshot(r); err != nil {
		return nil, err
	}
	return e2eWant(cache, f.last)
}

// e2eReplaySegment is the measured step for a log segment: every batch
// handed to the Loader as its own commit, one image published per commit.
func e2eReplaySegment(f e2eFile) (*image.Image, error) {
	l := NewLoader(Config{})
	cache := NewCache("cache")
	if err := l.Install(cache); err != nil {
		return nil, err
	}
	l.SetHighWatermark(f.last + 1)
	br := metalog.NewBatchReader(bytes.NewReader(f.data), f.name, metalog.Finished)
	for {
		b, err := br.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		mb, err := DecodeBatch(b)
		if err != nil {
			return nil, err
		}
		if err := l.HandleCommit(mb); err != nil {
			return nil, err
		}
	}
	return e2eWant(cache, f.last)
}

func e2eWant(cache *Cache, last int64) (*image.Image, error) {
	img := cache.Load()
	if img == nil || img.Provenance().LastContainedOffset != last {
		return nil, fmt.Errorf("published %v, want the image of offset %d", img.Provenance(), last)
	}
	return img, nil
}

// BenchmarkEndToEndSnapshot: a snapshot file's bytes to the image the Cache
// publishes (read, CRC, decode, replay, apply, publish).
func BenchmarkEndToEndSnapshot(b *testing.B) {
	for _, s := range e2eSizes {
		b.Run(s.name, func(b *testing.B) {
			f := e2eSnapshotFor(b, s.topics)
			e2eRun(b, f, e2eLoadSnapshot)
		})
	}
}

// BenchmarkEndToEndSegment: a log segment of 1 M records (90 909 topics
// created one commit each) replayed commit by commit, an image published
// after each.
func BenchmarkEndToEndSegment(b *testing.B) {
	b.Run("records=1M", func(b *testing.B) {
		f := e2eCached(b, "segment", func() e2eFile { return e2eSegment(b, e2eSegmentRecords) })
		e2eRun(b, f, e2eReplaySegment)
	})
}

func e2eSnapshotFor(b *testing.B, topics int) e2eFile {
	if topics > 100000 {
		if os.Getenv("KMETA_BENCH10M") != "1" {
			b.Skip("10 M partitions allocate several GB: set KMETA_BENCH10M=1 to run")
		}
		return e2eSnapshot(b, topics)
	}
	return e2eCached(b, fmt.Sprint("snapshot", topics), func() e2eFile { return e2eSnapshot(b, topics) })
}

func e2eRun(b *testing.B, f e2eFile, load func(e2eFile) (*image.Image, error)) {
	b.SetBytes(int64(len(f.data)))
	b.ReportAllocs()
	b.ResetTimer()
	start := benchtest.ProcessCPU()
	for b.Loop() {
		if _, err := load(f); err != nil {
			b.Fatal(err)
		}
	}
	benchtest.ReportCPU(b, start)
}

// TestE2EFiles: the benchmarks' files load into images holding every topic
// and partition they were written with. With KMETA_E2E_DIR set it also
// writes them there (a snapshot at 100 000 topics, the 1 M-record segment,
// and with KMETA_BENCH10M=1 the 10 M-partition snapshot), each in a
// __cluster_metadata-0 directory of its own, for Kafka's side of the
// benchmark (internal/kafkaoracle/bench-e2e.sh).
func TestE2EFiles(t *testing.T) {
	dir := os.Getenv("KMETA_E2E_DIR")
	topics, records := 2000, 22000
	if dir != "" {
		topics, records = 100000, e2eSegmentRecords
	}
	files := map[string]e2eFile{"snapshot-100000": e2eSnapshot(t, topics), "segment-1M": e2eSegment(t, records)}
	if dir != "" && os.Getenv("KMETA_BENCH10M") == "1" {
		files["snapshot-10M"] = e2eSnapshot(t, 1000000)
	}
	for name, f := range files {
		load := e2eReplaySegment
		if f.id.EndOffset > 0 {
			load = e2eLoadSnapshot
		}
		img, err := load(f)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got, want := img.Topics().Len(), f.topics; got != want {
			t.Fatalf("%s: %d topics, want %d", name, got, want)
		}
		if got, want := img.Topics().NumPartitions(), f.topics*e2ePartitions; got != want {
			t.Fatalf("%s: %d partitions, want %d", name, got, want)
		}
		if got, want := img.Cluster().NumBrokers(), e2eBrokers(f.topics); got != want {
			t.Fatalf("%s: %d brokers, want %d", name, got, want)
		}
		if dir == "" {
			continue
		}
		d := filepath.Join(dir, name, "__cluster_metadata-0")
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, f.name), f.data, 0o644); err != nil {
			t.Fatal(err)
		}
		meta := fmt.Sprintf("%s\t%s\t%d\t%d\n", name, filepath.Join(d, f.name), f.last, len(f.data))
		if err := appendFile(filepath.Join(dir, "FILES.tsv"), meta); err != nil {
			t.Fatal(err)
		}
	}
}

func appendFile(path, s string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(s); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
