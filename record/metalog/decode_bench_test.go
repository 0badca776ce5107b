package metalog

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kmeta-go/kmeta/internal/sharedtest"
	"github.com/kmeta-go/kmeta/record"
)

// Benchmark inputs: the largest corpus log (a Kafka 3.7 cluster of three
// brokers, mostly NoOpRecords, 2.3 MB) and the largest corpus snapshot (587
// records: topics, partitions and configs of a Kafka 3.6 cluster).
var decodeBenchFiles = []struct{ name, path string }{
	{"log=ogs59-kafka-2", "ogs59__docker-compose-kafka4.10/data/kafka-2/__cluster_metadata-0/00000000000000000000.log"},
	{"snapshot=rjmfernandes", "rjmfernandes__flink-on-prem/data/__cluster_metadata-0/00000000000000014926-0000000001.checkpoint"},
}

// ownAllocs counts the slices and strings a decoded value owns: the
// allocations that are the record's own, beside the record itself.
func ownAllocs(v reflect.Value) int {
	n := 0
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			if v.Elem().Kind() == reflect.String {
				n++ // a nullable string: its box is the string's own too
			}
			n += ownAllocs(v.Elem())
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			n += ownAllocs(v.Field(i))
		}
	case reflect.String:
		if v.Len() > 0 {
			n++
		}
	case reflect.Slice:
		if v.Len() > 0 {
			n++
			for i := 0; i < v.Len(); i++ {
				n += ownAllocs(v.Index(i))
			}
		}
	}
	return n
}

// BenchmarkDecode reads every batch of a corpus file held in memory,
// checking CRCs, and decodes every record into its Go type. It reports
// throughput over the file's bytes, allocations per record, and
// extra-allocs/record: allocations beyond the records' own slices and
// strings (goal: at most 1, the record struct itself).
func BenchmarkDecode(b *testing.B) {
	for _, f := range decodeBenchFiles {
		b.Run(f.name, func(b *testing.B) {
			data, err := os.ReadFile(filepath.Join(sharedtest.Corpus(b), f.path))
			if err != nil {
				b.Skip(err)
			}
			records, own := 0, 0
			var batch Batch
			for p := 0; p < len(data); {
				n, err := ParseBatch(data[p:], &batch)
				if err != nil {
					b.Fatal(err)
				}
				p += n
				for _, e := range batch.Entries {
					records++
					if batch.IsControl() {
						r, err := e.DecodeControl()
						if err != nil {
							b.Fatal(err)
						}
						own += ownAllocs(reflect.ValueOf(r))
						continue
					}
					r, _, err := e.Decode()
					if err != nil {
						b.Fatal(err)
					}
					own += ownAllocs(reflect.ValueOf(r))
				}
			}
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			b.ResetTimer()
			var sink record.Message
			for i := 0; i < b.N; i++ {
				for p := 0; p < len(data); {
					n, err := ParseBatch(data[p:], &batch)
					if err != nil {
						b.Fatal(err)
					}
					p += n
					control := batch.IsControl()
					for _, e := range batch.Entries {
						if control {
							sink, err = e.DecodeControl()
						} else {
							sink, _, err = e.Decode()
						}
						if err != nil {
							b.Fatal(err)
						}
					}
				}
			}
			_ = sink
			b.StopTimer()
			allocs := testing.AllocsPerRun(3, func() {
				for p := 0; p < len(data); {
					n, _ := ParseBatch(data[p:], &batch)
					p += n
					for _, e := range batch.Entries {
						if batch.IsControl() {
							sink, _ = e.DecodeControl()
						} else {
							sink, _, _ = e.Decode()
						}
					}
				}
			})
			b.ReportMetric(allocs/float64(records), "allocs/record")
			b.ReportMetric((allocs-float64(own))/float64(records), "extra-allocs/record")
			b.ReportMetric(float64(records), "records")
		})
	}
}

// BenchmarkDecoder is BenchmarkDecode with the reusing Decoder, as a
// pipeline that copies each record at once (a snapshot load) would decode.
func BenchmarkDecoder(b *testing.B) {
	for _, f := range decodeBenchFiles {
		b.Run(f.name, func(b *testing.B) {
			data, err := os.ReadFile(filepath.Join(sharedtest.Corpus(b), f.path))
			if err != nil {
				b.Skip(err)
			}
			var batch Batch
			var d record.Decoder
			records := 0
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				records = 0
				for p := 0; p < len(data); {
					n, err := ParseBatch(data[p:], &batch)
					if err != nil {
						b.Fatal(err)
					}
					p += n
					if batch.IsControl() {
						continue
					}
					for _, e := range batch.Entries {
						records++
						if _, _, err := d.Decode(e.Value); err != nil {
							b.Fatal(err)
						}
					}
				}
			}
			b.ReportMetric(float64(testing.AllocsPerRun(1, func() {
				for p := 0; p < len(data); {
					n, _ := ParseBatch(data[p:], &batch)
					p += n
					if !batch.IsControl() {
						for _, e := range batch.Entries {
							_, _, _ = d.Decode(e.Value)
						}
					}
				}
			}))/float64(records), "allocs/record")
		})
	}
}

// BenchmarkEncode encodes the decoded records of the same files back into
// batches of the same shape.
func BenchmarkEncode(b *testing.B) {
	for _, f := range decodeBenchFiles {
		b.Run(f.name, func(b *testing.B) {
			data, err := os.ReadFile(filepath.Join(sharedtest.Corpus(b), f.path))
			if err != nil {
				b.Skip(err)
			}
			type dec struct {
				base    int64
				epoch   int32
				time    int64
				control bool
				recs    []record.Record
				vers    []int16
				ctl     []record.ControlRecord
			}
			var batches []dec
			var batch Batch
			for p := 0; p < len(data); {
				n, err := ParseBatch(data[p:], &batch)
				if err != nil {
					b.Fatal(err)
				}
				p += n
				d := dec{base: batch.BaseOffset, epoch: batch.PartitionLeaderEpoch, time: batch.MaxTimestamp, control: batch.IsControl()}
				for _, e := range batch.Entries {
					if d.control {
						r, err := e.DecodeControl()
						if err != nil {
							b.Fatal(err)
						}
						d.ctl = append(d.ctl, r)
						continue
					}
					r, v, err := e.Decode()
					if err != nil {
						b.Fatal(err)
					}
					d.recs, d.vers = append(d.recs, r), append(d.vers, v)
				}
				batches = append(batches, d)
			}
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			b.ResetTimer()
			bb := NewBatchBuilder(0, 0, 0)
			var out []byte
			for i := 0; i < b.N; i++ {
				out = out[:0]
				for _, d := range batches {
					bb.Reset(d.base, d.epoch, d.time, d.control)
					for j, r := range d.recs {
						if err := bb.AppendRecord(r, d.vers[j]); err != nil {
							b.Fatal(err)
						}
					}
					for _, r := range d.ctl {
						if err := bb.AppendControlRecord(r); err != nil {
							b.Fatal(err)
						}
					}
					enc, err := bb.Build()
					if err != nil {
						b.Fatal(err)
					}
					out = append(out, enc...)
				}
			}
			b.StopTimer()
			if len(out) != len(data) {
				b.Fatalf("encoded %d bytes, the file has %d", len(out), len(data))
			}
		})
	}
}

// TestDecoderMatchesDecodeSnapshot decodes every record of the corpus
// snapshot of decodeBenchFiles twice, once with the reusing record.Decoder
// and once with record.Decode, forwards and backwards, and checks the two
// records are equal at each step, so reuse never leaks one record's fields
// into the next (record's TestDecoderMatchesDecode does it for the vectors).
func TestDecoderMatchesDecodeSnapshot(t *testing.T) {
	s, err := OpenSnapshot(OS{}, filepath.Join(sharedtest.Corpus(t), decodeBenchFiles[1].path))
	require.NoError(t, err)
	defer s.Close()
	var values [][]byte
	for {
		b, err := s.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		for _, e := range b.Entries {
			if !b.IsControl() {
				values = append(values, append([]byte(nil), e.Value...))
			}
		}
	}
	require.NotEmpty(t, values)
	for i := len(values) - 1; i >= 0; i-- {
		values = append(values, values[i])
	}
	var d record.Decoder
	for i, v := range values {
		want, wv, err := record.Decode(v)
		require.NoError(t, err)
		got, gv, err := d.Decode(v)
		require.NoError(t, err)
		require.Equal(t, wv, gv)
		require.Equal(t, want, got, "value %d", i)
		enc, err := record.Append(nil, got, gv)
		require.NoError(t, err)
		require.Equal(t, v, enc)
	}
}
