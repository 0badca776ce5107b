package metalog

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/kmeta-go/kmeta/internal/sharedtest"
)

// fuzzSeeds adds the first bytes of every corpus file (kraft, kraft-2,
// kraft-4.3) and every control
// vector batch as seeds, when ../shared is there.
func fuzzSeeds(f *testing.F, limit int) {
	if sharedtest.Dir(skipless{f}) == "" {
		return
	}
	for _, folder := range []string{"kraft", "kraft-2", "kraft-4.3"} {
		root := filepath.Join(sharedtest.Dir(f), "corpus", folder)
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || filepath.Ext(p) == ".md" {
				return nil
			}
			data, err := os.ReadFile(p)
			if err == nil {
				f.Add(data[:min(len(data), limit)])
			}
			return nil
		})
	}
	vecs, _ := filepath.Glob(filepath.Join(sharedtest.Dir(f), "vectors", "records", "*", "v*.batch.bin"))
	for _, p := range vecs {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
}

// skipless lets fuzzSeeds ask for the shared directory without skipping the
// fuzz target when it is absent (the target still runs on its own seeds).
type skipless struct{ testing.TB }

func (skipless) Skip(...any)          {}
func (skipless) Skipf(string, ...any) {}
func (skipless) Helper()              {}

// FuzzBatchReader: the batch reader never panics on any input, in either
// mode; and every batch it yields is a fixed point of encode/decode:
// AppendBatch then ParseBatch gives the same batch, and encoding that again
// gives the same bytes.
func FuzzBatchReader(f *testing.F) {
	b := NewBatchBuilder(0, 1, 1)
	b.Append([]byte{1, 20, 0, 0})
	seed, _ := b.Build()
	f.Add(seed)
	fuzzSeeds(f, 8<<10)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, mode := range []Mode{Finished, Follow} {
			r := NewBatchReader(bytes.NewReader(data), "fuzz", mode)
			for {
				b, err := r.Next()
				if err != nil {
					var ce *CorruptionError
					if !errors.Is(err, io.EOF) && !errors.As(err, &ce) {
						t.Fatalf("error without position: %v", err)
					}
					break
				}
				checkFixedPoint(t, b)
				b.DecodeRecords()
				b.DecodeControlRecords()
			}
		}
		var b Batch
		if _, err := ParseBatch(data, &b); err == nil {
			checkFixedPoint(t, &b)
		}
	})
}

func checkFixedPoint(t *testing.T, b *Batch) {
	enc := AppendBatch(nil, b)
	var again Batch
	n, err := ParseBatch(enc, &again)
	if err != nil {
		t.Fatalf("re-encoded batch does not parse: %v", err)
	}
	if n != len(enc) || again.BaseOffset != b.BaseOffset || again.PartitionLeaderEpoch != b.PartitionLeaderEpoch ||
		again.Attributes != b.Attributes&^AttrCompressionMask || again.BaseTimestamp != b.BaseTimestamp ||
		again.MaxTimestamp != b.MaxTimestamp || again.ProducerID != b.ProducerID || again.ProducerEpoch != b.ProducerEpoch ||
		again.BaseSequence != b.BaseSequence || len(again.Entries) != len(b.Entries) {
		t.Fatalf("re-encoded batch differs: %+v vs %+v", again, *b)
	}
	for i := range b.Entries {
		x, y := b.Entries[i], again.Entries[i]
		if x.Offset != y.Offset || !bytes.Equal(x.Key, y.Key) || (x.Key == nil) != (y.Key == nil) || !bytes.Equal(x.Value, y.Value) {
			t.Fatalf("entry %d differs after re-encoding", i)
		}
	}
	if enc2 := AppendBatch(nil, &again); !bytes.Equal(enc, enc2) {
		t.Fatalf("encode(decode(encode(b))) != encode(b)")
	}
}

// FuzzDirReader: a __cluster_metadata-0 directory made of a snapshot and a
// segment cut from the input never makes the directory reader panic, and
// what it yields has continuous offsets starting after the snapshot.
func FuzzDirReader(f *testing.F) {
	f.Add([]byte{0, 0}, []byte{})
	if sharedtest.Dir(skipless{f}) != "" {
		root := filepath.Join(sharedtest.Dir(f), "corpus", "kraft")
		for _, pair := range [][2]string{
			{"Eb-raheeem__Real-Time-Stock-Market-Analysis/kafka-data/__cluster_metadata-0/00000000000000007161-0000000001.checkpoint",
				"Eb-raheeem__Real-Time-Stock-Market-Analysis/kafka-data/__cluster_metadata-0/00000000000000000000.log"},
			{"hiage__kafka-raft/data/kafka1/bootstrap.checkpoint", "furkancets__flink-docker/kafka/data/__cluster_metadata-0/00000000000000000000.log"},
		} {
			s, err1 := os.ReadFile(filepath.Join(root, pair[0]))
			l, err2 := os.ReadFile(filepath.Join(root, pair[1]))
			if err1 == nil && err2 == nil {
				f.Add(s, l[:min(len(l), 16<<10)])
			}
		}
	}
	f.Fuzz(func(t *testing.T, snap, log []byte) {
		dir := t.TempDir()
		// The snapshot is named so that it covers offsets 0..3 of the log.
		if len(snap) > 0 {
			os.WriteFile(filepath.Join(dir, SnapshotID{EndOffset: 4, Epoch: 1}.FileName()), snap, 0o644)
		}
		os.WriteFile(filepath.Join(dir, SegmentName(0)), log, 0o644)
		for _, mode := range []Mode{Finished, Follow} {
			d, err := OpenDir(OS{}, dir, mode)
			if err != nil {
				continue
			}
			if s := d.Snapshot(); s != nil {
				for {
					b, err := s.Next()
					if err != nil {
						break
					}
					b.DecodeRecords()
				}
			}
			next := d.StartOffset()
			for {
				b, err := d.Next()
				if err != nil {
					break
				}
				if b.BaseOffset != next {
					t.Fatalf("batch at %d, want %d", b.BaseOffset, next)
				}
				next = b.NextOffset()
			}
			d.Close()
		}
	})
}
