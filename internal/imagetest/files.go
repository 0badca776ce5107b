package imagetest

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/kmeta-go/kmeta/record"
)

// This file is a small, test-only reader of uncompressed record batch v2
// files (log segments, snapshots, bootstrap files). It exists so the image
// tests can read the corpus before the record package's file readers land on
// main; it checks nothing that those readers check (CRCs, offsets) and should
// be replaced by them.

// Batch is one parsed batch of a metadata file.
type Batch struct {
	BaseOffset int64
	Epoch      int32
	LastOffset int64
	AppendTime int64
	Control    bool
	Records    []record.Record // data records, decoded
}

// ReadBatches parses every batch of a file.
func ReadBatches(tb testing.TB, path string) []Batch {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	bs, err := parseBatches(data)
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	return bs
}

func parseBatches(data []byte) ([]Batch, error) {
	var out []Batch
	err := ForEachBatch(data, func(b Batch) error { out = append(out, b); return nil })
	return out, err
}

// ForEachBatch parses data batch by batch, decoding each data record, and
// calls fn with each batch.
func ForEachBatch(data []byte, fn func(Batch) error) error {
	for len(data) >= 12 {
		base := int64(binary.BigEndian.Uint64(data))
		length := int(int32(binary.BigEndian.Uint32(data[8:])))
		if length <= 0 || 12+length > len(data) {
			break // a torn tail, as Kafka's recovery truncates
		}
		b := data[12 : 12+length]
		data = data[12+length:]
		if len(b) < 49 {
			return fmt.Errorf("short batch at offset %d", base)
		}
		epoch := int32(binary.BigEndian.Uint32(b[0:]))
		attrs := int16(binary.BigEndian.Uint16(b[9:]))
		lastDelta := int32(binary.BigEndian.Uint32(b[11:]))
		maxTS := int64(binary.BigEndian.Uint64(b[23:]))
		count := int(int32(binary.BigEndian.Uint32(b[45:])))
		if attrs&7 != 0 {
			return fmt.Errorf("compressed batch at offset %d", base)
		}
		bt := Batch{BaseOffset: base, Epoch: epoch, LastOffset: base + int64(lastDelta), AppendTime: maxTS, Control: attrs&0x20 != 0}
		rs := b[49:]
		for i := 0; i < count; i++ {
			l, n := binary.Varint(rs)
			if n <= 0 || int(l) > len(rs)-n {
				return fmt.Errorf("bad record length in batch %d", base)
			}
			rec := rs[n : n+int(l)]
			rs = rs[n+int(l):]
			rec = rec[1:]             // attributes
			_, n = binary.Varint(rec) // timestamp delta
			rec = rec[n:]
			_, n = binary.Varint(rec) // offset delta
			rec = rec[n:]
			kl, n := binary.Varint(rec)
			rec = rec[n:]
			if kl > 0 {
				rec = rec[kl:]
			}
			vl, n := binary.Varint(rec)
			rec = rec[n:]
			if bt.Control || vl < 0 {
				continue
			}
			r, _, err := record.Decode(rec[:vl])
			if err != nil {
				return fmt.Errorf("batch %d record %d: %w", base, i, err)
			}
			bt.Records = append(bt.Records, r)
		}
		if err := fn(bt); err != nil {
			return err
		}
	}
	return nil
}

// AppendBatch appends an uncompressed data batch v2 holding values (record
// values, framed metadata records) to dst. The CRC is left zero: this is for
// benchmarks and tests that read with ForEachBatch.
func AppendBatch(dst []byte, baseOffset int64, epoch int32, values [][]byte) []byte {
	start := len(dst)
	dst = binary.BigEndian.AppendUint64(dst, uint64(baseOffset))
	dst = binary.BigEndian.AppendUint32(dst, 0) // length, patched below
	dst = binary.BigEndian.AppendUint32(dst, uint32(epoch))
	dst = append(dst, 2)                        // magic
	dst = binary.BigEndian.AppendUint32(dst, 0) // crc
	dst = binary.BigEndian.AppendUint16(dst, 0) // attributes
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(values)-1))
	dst = binary.BigEndian.AppendUint64(dst, 0)
	dst = binary.BigEndian.AppendUint64(dst, 0)
	dst = binary.BigEndian.AppendUint64(dst, ^uint64(0))
	dst = binary.BigEndian.AppendUint16(dst, ^uint16(0))
	dst = binary.BigEndian.AppendUint32(dst, ^uint32(0))
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(values)))
	var rec []byte
	for i, v := range values {
		rec = rec[:0]
		rec = append(rec, 0)
		rec = binary.AppendVarint(rec, 0)
		rec = binary.AppendVarint(rec, int64(i))
		rec = binary.AppendVarint(rec, -1)
		rec = binary.AppendVarint(rec, int64(len(v)))
		rec = append(rec, v...)
		rec = binary.AppendVarint(rec, 0)
		dst = binary.AppendVarint(dst, int64(len(rec)))
		dst = append(dst, rec...)
	}
	binary.BigEndian.PutUint32(dst[start+8:], uint32(len(dst)-start-12))
	return dst
}

// SnapshotID parses "<offset>-<epoch>.checkpoint".
func SnapshotID(name string) (offset int64, epoch int32, ok bool) {
	base := strings.TrimSuffix(filepath.Base(name), ".checkpoint")
	var o int64
	var e int32
	if _, err := fmt.Sscanf(base, "%020d-%010d", &o, &e); err != nil {
		return 0, 0, false
	}
	return o, e, true
}

// DirFiles returns a __cluster_metadata-0 directory's latest snapshot ("" if
// none) and its segments in base-offset order, as Kafka's start-up chooses
// them (KafkaRaftClient: only the latest snapshot is used).
func DirFiles(tb testing.TB, dir string) (snapshot string, segments []string) {
	tb.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	var best int64 = -1
	for _, e := range ents {
		n := e.Name()
		switch {
		case strings.HasSuffix(n, ".checkpoint"):
			if o, _, ok := SnapshotID(n); ok && o > best {
				best, snapshot = o, filepath.Join(dir, n)
			}
		case strings.HasSuffix(n, ".log"):
			segments = append(segments, filepath.Join(dir, n))
		}
	}
	sort.Strings(segments)
	return snapshot, segments
}
