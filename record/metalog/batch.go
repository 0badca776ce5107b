package metalog

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/kmeta-go/kmeta/record"
)

// The record batch v2 header is parsed and written here by hand rather than
// through kmsg.RecordBatch: kmsg's ReadFrom copies the records into a new
// slice on every call and does not validate, while this layer must reuse one
// buffer, know byte positions and check every field against Kafka's KRaft
// reader. The layout is DefaultRecordBatch's (magic 2).

// Sizes and positions of the record batch v2 header (DefaultRecordBatch).
const (
	// BatchHeaderSize is the size of the record batch v2 header.
	BatchHeaderSize = 61
	// batchOverhead is the bytes before and including the batchLength field
	// (LOG_OVERHEAD in Kafka): the batch occupies batchLength+12 bytes.
	batchOverhead = 12
	// crcStart is where the bytes covered by the CRC begin (the attributes).
	crcStart = 21

	// DefaultMaxBatchSize is the largest batch the readers accept: 8 MiB,
	// Kafka's KafkaRaftClient.MAX_BATCH_SIZE_BYTES, which is also the
	// max.message.bytes of the metadata log and what BatchAccumulator packs
	// up to. A length field asking for more is treated as damage, so a
	// corrupt length never makes a reader allocate more than this.
	DefaultMaxBatchSize = 8 << 20

	// maxDecompressedSize caps what one gzip batch may inflate to.
	maxDecompressedSize = 4 * DefaultMaxBatchSize
)

// Batch attribute bits (RecordBatch / DefaultRecordBatch).
const (
	AttrCompressionMask = 0x07
	AttrTimestampType   = 0x08 // 1 = LogAppendTime, 0 = CreateTime
	AttrTransactional   = 0x10
	AttrControl         = 0x20
	AttrDeleteHorizon   = 0x40
)

// Compression codecs of the attribute bits (CompressionType ids).
const (
	CompressionNone   = 0
	CompressionGzip   = 1
	CompressionSnappy = 2
	CompressionLZ4    = 3
	CompressionZstd   = 4
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Entry is one record of a batch as KRaft stores it: its offset, its key (nil
// for data records, the 4-byte control key for control records) and its value
// (a framed metadata record, or a control record value without frame).
//
// Key and Value alias the buffer of the reader (or the slice given to
// ParseBatch) and stay valid only until the next call to that reader's Next
// (or until the caller reuses the slice). Copy them to keep them longer.
type Entry struct {
	Offset int64
	Key    []byte
	Value  []byte
}

// Decode decodes a data record value with Decode (frame, then body).
func (e Entry) Decode() (record.Record, int16, error) { return record.Decode(e.Value) }

// ControlType returns the type in a control record's key.
func (e Entry) ControlType() (record.ControlType, error) { return record.ControlKeyType(e.Key) }

// DecodeControl decodes a control record at the version Kafka's reader uses
// (ControlRecordUtils' current versions, 0 for every type today).
func (e Entry) DecodeControl() (record.ControlRecord, error) {
	return record.DecodeControl(e.Key, e.Value, -1)
}

// DecodeControlVersion decodes a control record at the given version (a
// control value does not carry its version; the reader must know it).
func (e Entry) DecodeControlVersion(version int16) (record.ControlRecord, error) {
	return record.DecodeControl(e.Key, e.Value, version)
}

// Batch is one record batch v2 (DefaultRecordBatch) read the way Kafka's raft
// RecordsIterator reads it, with the fields of its header and its records.
//
// A *Batch returned by a reader's Next, and its Entries, are reused by the
// next call to Next: copy what must outlive it.
type Batch struct {
	// Position is the byte position of the batch in its file (or stream).
	Position int64

	BaseOffset           int64
	Length               int32 // batchLength: bytes after this field
	PartitionLeaderEpoch int32 // not covered by the CRC
	Magic                int8
	CRC                  uint32 // CRC-32C of the bytes from the attributes to the end
	Attributes           int16
	LastOffsetDelta      int32
	BaseTimestamp        int64
	// MaxTimestamp is what Kafka's metadata loader takes as the batch's
	// append time (Batch.appendTimestamp in raft, lastContainedLogTimeMs).
	MaxTimestamp  int64
	ProducerID    int64
	ProducerEpoch int16
	BaseSequence  int32
	NumRecords    int32

	// Entries are the records, in offset order. See Entry for how long their
	// bytes stay valid.
	Entries []Entry

	inflated []byte // reused buffer for a gzip batch's records
}

// LastOffset is the offset of the batch's last record.
func (b *Batch) LastOffset() int64 { return b.BaseOffset + int64(b.LastOffsetDelta) }

// NextOffset is the offset that follows the batch.
func (b *Batch) NextOffset() int64 { return b.LastOffset() + 1 }

// AppendTime is the batch's append time: its maxTimestamp, which Kafka's
// loader uses as the time of the batch (raft Batch.appendTimestamp).
func (b *Batch) AppendTime() int64 { return b.MaxTimestamp }

// Size is the number of bytes the batch occupies (batchLength + 12).
func (b *Batch) Size() int { return int(b.Length) + batchOverhead }

// IsControl reports attribute bit 5: a control batch (LeaderChange,
// SnapshotHeader, SnapshotFooter, KRaftVersion, Voters records).
func (b *Batch) IsControl() bool { return b.Attributes&AttrControl != 0 }

// IsTransactional reports attribute bit 4. KRaft never sets it.
func (b *Batch) IsTransactional() bool { return b.Attributes&AttrTransactional != 0 }

// Compression returns the codec id of attribute bits 0-2.
func (b *Batch) Compression() int { return int(b.Attributes & AttrCompressionMask) }

// DecodedRecord is a data record of a batch decoded to its Go type.
type DecodedRecord struct {
	Offset  int64
	Record  record.Record
	Version int16
}

// Decode decodes the batch into the one decoded batch type, record.Batch:
// its header's base offset, leader epoch, append time and size, and its
// records (DecodeRecords, with their versions) or control records
// (DecodeControlRecords). The result owns its bytes; b may be reused.
func (b *Batch) Decode() (record.Batch, error) {
	out := record.Batch{BaseOffset: b.BaseOffset, LeaderEpoch: b.PartitionLeaderEpoch, AppendTime: b.AppendTime(), Size: b.Size()}
	if b.IsControl() {
		c, err := b.DecodeControlRecords()
		out.Control = c
		return out, err
	}
	recs, err := b.DecodeRecords()
	out.Records = make([]record.VersionedRecord, len(recs))
	for i, r := range recs {
		out.Records[i] = record.VersionedRecord{Record: r.Record, Version: r.Version}
	}
	return out, err
}

// DecodeRecords decodes every record of a data batch with Decode. The records
// own their bytes (they do not alias the batch).
func (b *Batch) DecodeRecords() ([]DecodedRecord, error) {
	if b.IsControl() {
		return nil, fmt.Errorf("%w: DecodeRecords on a control batch at offset %d", record.ErrCorrupt, b.BaseOffset)
	}
	out := make([]DecodedRecord, 0, len(b.Entries))
	for _, e := range b.Entries {
		r, v, err := e.Decode()
		if err != nil {
			return out, fmt.Errorf("record at offset %d: %w", e.Offset, err)
		}
		out = append(out, DecodedRecord{Offset: e.Offset, Record: r, Version: v})
	}
	return out, nil
}

// DecodeControlRecords decodes every record of a control batch at the version
// Kafka's reader uses (DecodeControl with version -1).
func (b *Batch) DecodeControlRecords() ([]record.ControlRecord, error) {
	return b.DecodeControlRecordsVersion(-1)
}

// DecodeControlRecordsVersion decodes every record of a control batch at the
// given version (-1 for Kafka's default).
func (b *Batch) DecodeControlRecordsVersion(version int16) ([]record.ControlRecord, error) {
	if !b.IsControl() {
		return nil, fmt.Errorf("%w: DecodeControlRecords on a data batch at offset %d", record.ErrCorrupt, b.BaseOffset)
	}
	out := make([]record.ControlRecord, 0, len(b.Entries))
	for _, e := range b.Entries {
		r, err := record.DecodeControl(e.Key, e.Value, version)
		if err != nil {
			return out, fmt.Errorf("control record at offset %d: %w", e.Offset, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// batchLengthOf returns the total size of the batch whose first bytes are
// hdr (at least 12 bytes), or an error when its length field is impossible.
func batchSizeOf(hdr []byte, max int) (int, error) {
	l := int32(binary.BigEndian.Uint32(hdr[8:12]))
	if l < BatchHeaderSize-batchOverhead {
		return 0, fmt.Errorf("%w: batch length %d is smaller than the %d-byte header", record.ErrCorrupt, l, BatchHeaderSize)
	}
	if int64(l)+batchOverhead > int64(max) {
		return 0, fmt.Errorf("%w: batch length %d exceeds the maximum batch size %d", record.ErrCorrupt, l, max)
	}
	return int(l) + batchOverhead, nil
}

// ParseBatch parses one record batch v2 at the start of data into b, reusing
// b's Entries, and returns the number of bytes it occupies. b.Position is left
// for the caller to set. The entries alias data (or b's own buffer for a gzip
// batch).
//
// It applies the checks of Kafka's raft RecordsIterator (with CRC validation,
// as the raft client reads) and DefaultRecordBatch: magic 2, CRC-32C over
// bytes 21..end, a record count; every record has timestampDelta 0 and no
// headers; a data record has a null key and a non-empty value; a control
// record has a key of at least 4 bytes with a non-negative key version
// (ControlRecordType.parseTypeId) and a non-empty value. It also checks what
// Kafka's BatchBuilder always writes and its reader assumes: offset deltas
// 0,1,2..., lastOffsetDelta = count-1, at least one record, a record that
// ends exactly where its length says and no bytes after the last record.
func ParseBatch(data []byte, b *Batch) (int, error) {
	return parseBatch(data, b, DefaultMaxBatchSize)
}

func parseBatch(data []byte, b *Batch, max int) (int, error) {
	if len(data) < BatchHeaderSize {
		return 0, fmt.Errorf("%w: %d bytes, a batch header needs %d", record.ErrCorrupt, len(data), BatchHeaderSize)
	}
	if m := int8(data[16]); m != 2 {
		return 0, fmt.Errorf("%w: magic %d, only record batch v2 (magic 2) is supported", record.ErrCorrupt, m)
	}
	size, err := batchSizeOf(data, max)
	if err != nil {
		return 0, err
	}
	if len(data) < size {
		return 0, fmt.Errorf("%w: batch of %d bytes cut short at %d", record.ErrCorrupt, size, len(data))
	}
	data = data[:size]
	if err := parseHeader(data, b); err != nil {
		return 0, err
	}
	if got := crc32.Checksum(data[crcStart:], castagnoli); got != b.CRC {
		return 0, fmt.Errorf("%w: CRC-32C is %#08x, header says %#08x", record.ErrCorrupt, got, b.CRC)
	}
	recs := data[BatchHeaderSize:]
	switch c := b.Compression(); c {
	case CompressionNone:
	case CompressionGzip:
		if recs, err = b.inflate(recs); err != nil {
			return 0, err
		}
	default:
		return 0, fmt.Errorf("%w: codec %d (attributes %#04x); Kafka writes metadata batches uncompressed", ErrUnsupportedCompression, c, uint16(b.Attributes))
	}
	if err := b.parseRecords(recs); err != nil {
		return 0, err
	}
	return size, nil
}

func parseHeader(data []byte, b *Batch) error {
	be := binary.BigEndian
	b.BaseOffset = int64(be.Uint64(data[0:]))
	b.Length = int32(be.Uint32(data[8:]))
	b.PartitionLeaderEpoch = int32(be.Uint32(data[12:]))
	b.Magic = int8(data[16])
	b.CRC = be.Uint32(data[17:])
	b.Attributes = int16(be.Uint16(data[21:]))
	b.LastOffsetDelta = int32(be.Uint32(data[23:]))
	b.BaseTimestamp = int64(be.Uint64(data[27:]))
	b.MaxTimestamp = int64(be.Uint64(data[35:]))
	b.ProducerID = int64(be.Uint64(data[43:]))
	b.ProducerEpoch = int16(be.Uint16(data[51:]))
	b.BaseSequence = int32(be.Uint32(data[53:]))
	b.NumRecords = int32(be.Uint32(data[57:]))
	b.Entries = b.Entries[:0]
	if b.BaseOffset < 0 {
		return fmt.Errorf("%w: negative base offset %d", record.ErrCorrupt, b.BaseOffset)
	}
	return nil
}

func (b *Batch) inflate(recs []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(recs))
	if err != nil {
		return nil, fmt.Errorf("%w: gzip records: %v", record.ErrCorrupt, err)
	}
	buf := bytes.NewBuffer(b.inflated[:0])
	n, err := buf.ReadFrom(io.LimitReader(zr, maxDecompressedSize+1))
	if err != nil {
		return nil, fmt.Errorf("%w: gzip records: %v", record.ErrCorrupt, err)
	}
	if n > maxDecompressedSize {
		return nil, fmt.Errorf("%w: gzip records inflate past %d bytes", record.ErrCorrupt, maxDecompressedSize)
	}
	b.inflated = buf.Bytes()
	return b.inflated, nil
}

func (b *Batch) parseRecords(p []byte) error {
	n := b.NumRecords
	if n <= 0 {
		return fmt.Errorf("%w: record count %d; KRaft batches hold at least one record", record.ErrCorrupt, n)
	}
	if b.LastOffsetDelta != n-1 {
		return fmt.Errorf("%w: lastOffsetDelta %d with %d records", record.ErrCorrupt, b.LastOffsetDelta, n)
	}
	if int64(b.BaseOffset)+int64(b.LastOffsetDelta) < b.BaseOffset {
		return fmt.Errorf("%w: last offset overflows", record.ErrCorrupt)
	}
	// Every record takes at least 7 bytes; a count that cannot fit is damage
	// and must not size an allocation.
	if int64(n)*7 > int64(len(p)) {
		return fmt.Errorf("%w: record count %d cannot fit in %d bytes", record.ErrCorrupt, n, len(p))
	}
	if cap(b.Entries) < int(n) {
		b.Entries = make([]Entry, 0, n)
	}
	control := b.IsControl()
	for i := int32(0); i < n; i++ {
		var e Entry
		var rest []byte
		ok := false
		if !control {
			e.Value, rest, ok = commonDataRecord(p, i)
		}
		if !ok {
			var err error
			if e, rest, err = parseRecord(p, i, control); err != nil {
				return fmt.Errorf("%w: record %d of %d: %v", record.ErrCorrupt, i, n, err)
			}
		}
		e.Offset = b.BaseOffset + int64(i)
		b.Entries = append(b.Entries, e)
		p = rest
	}
	if len(p) != 0 {
		return fmt.Errorf("%w: %d bytes after the last of %d records", record.ErrCorrupt, len(p), n)
	}
	return nil
}

var errTruncatedVarint = errors.New("truncated varint")

// parseRecord parses one DefaultRecord with the KRaft rules (see ParseBatch).
func parseRecord(p []byte, i int32, control bool) (Entry, []byte, error) {
	var e Entry
	size, k, err := varint32(p)
	if err != nil {
		return e, nil, fmt.Errorf("length: %v", err)
	}
	p = p[k:]
	if size <= 0 {
		return e, nil, fmt.Errorf("non-positive length %d", size)
	}
	if int(size) > len(p) {
		return e, nil, fmt.Errorf("length %d past the end of the batch (%d bytes left)", size, len(p))
	}
	r, rest := p[:size], p[size:]
	// attributes: unused, Kafka ignores them; BatchBuilder writes 0.
	if r[0] != 0 {
		return e, nil, fmt.Errorf("record attributes %#02x, KRaft writes 0", r[0])
	}
	r = r[1:]
	td, k := binary.Varint(r)
	if k <= 0 {
		return e, nil, fmt.Errorf("timestampDelta: bad varlong")
	}
	if td != 0 {
		return e, nil, fmt.Errorf("timestampDelta %d, KRaft requires 0", td)
	}
	r = r[k:]
	od, k, err := varint32(r)
	if err != nil {
		return e, nil, fmt.Errorf("offsetDelta: %v", err)
	}
	if od != i {
		return e, nil, fmt.Errorf("offsetDelta %d, want %d", od, i)
	}
	r = r[k:]
	if e.Key, r, err = varBytes(r, "key"); err != nil {
		return e, nil, err
	}
	if control {
		if len(e.Key) < 4 {
			return e, nil, fmt.Errorf("control record key of %d bytes (null=-1 counts as missing), want at least 4", len(e.Key))
		}
		if _, err := record.ControlKeyType(e.Key); err != nil {
			return e, nil, err
		}
	} else if e.Key != nil {
		return e, nil, fmt.Errorf("data record with a key of %d bytes, KRaft writes a null key", len(e.Key))
	}
	if e.Value, r, err = varBytes(r, "value"); err != nil {
		return e, nil, err
	}
	if len(e.Value) == 0 {
		return e, nil, fmt.Errorf("missing or empty value")
	}
	hc, k, err := varint32(r)
	if err != nil {
		return e, nil, fmt.Errorf("header count: %v", err)
	}
	if hc != 0 {
		return e, nil, fmt.Errorf("%d headers, KRaft requires 0", hc)
	}
	if len(r) != k {
		return e, nil, fmt.Errorf("%d bytes left inside the record after its headers", len(r)-k)
	}
	return e, rest, nil
}

// commonDataRecord parses the data record at the start of p, the i-th of its
// batch, when it has the shape BatchBuilder gives every KRaft data record
// (attributes 0, timestampDelta 0, offsetDelta i, null key, a value shorter
// than 1 MiB, no headers) and its length, offsetDelta and value length are
// varints of at most three bytes: it returns the value and the rest of p. For
// anything else it returns false, and parseRecord reads the record with
// every check and names what is wrong; whatever it accepts, parseRecord
// accepts with the same value.
func commonDataRecord(p []byte, i int32) (value, rest []byte, ok bool) {
	size, k := varint3(p)
	if k == 0 || size <= 0 || int(size) > len(p)-k {
		return nil, nil, false
	}
	r, rest := p[k:k+int(size)], p[k+int(size):]
	// attributes 0, timestampDelta 0
	if len(r) < 2 || r[0] != 0 || r[1] != 0 {
		return nil, nil, false
	}
	od, k := varint3(r[2:])
	if k == 0 || od != i {
		return nil, nil, false
	}
	r = r[2+k:]
	if len(r) < 1 || r[0] != 1 { // key length -1: null
		return nil, nil, false
	}
	l, k := varint3(r[1:])
	if k == 0 || l <= 0 || int(l) != len(r)-1-k-1 {
		return nil, nil, false
	}
	r = r[1+k:]
	if r[l] != 0 { // no headers
		return nil, nil, false
	}
	return r[:l:l], rest, true
}

// varint3 reads a zig-zag varint of one to three bytes, as varint32 does;
// 0 bytes read for a longer or cut-short one.
func varint3(p []byte) (int32, int) {
	var v uint32
	switch {
	case len(p) >= 1 && p[0] < 0x80:
		v = uint32(p[0])
		return int32(v>>1) ^ -int32(v&1), 1
	case len(p) >= 2 && p[1] < 0x80:
		v = uint32(p[0]&0x7f) | uint32(p[1])<<7
		return int32(v>>1) ^ -int32(v&1), 2
	case len(p) >= 3 && p[2] < 0x80:
		v = uint32(p[0]&0x7f) | uint32(p[1]&0x7f)<<7 | uint32(p[2])<<14
		return int32(v>>1) ^ -int32(v&1), 3
	}
	return 0, 0
}

// varBytes reads a zig-zag varint length (-1 = null) and that many bytes.
func varBytes(p []byte, what string) ([]byte, []byte, error) {
	l, k, err := varint32(p)
	if err != nil {
		return nil, nil, fmt.Errorf("%s length: %v", what, err)
	}
	p = p[k:]
	if l < -1 {
		return nil, nil, fmt.Errorf("%s length %d", what, l)
	}
	if l == -1 {
		return nil, p, nil
	}
	if int(l) > len(p) {
		return nil, nil, fmt.Errorf("%s length %d past the end of the record (%d bytes left)", what, l, len(p))
	}
	return p[:l:l], p[l:], nil
}

// varint32 reads a zig-zag varint of at most 5 bytes, as Kafka's
// ByteUtils.readVarint (which refuses a sixth byte). Bits past 32 in the fifth
// byte are refused here rather than dropped.
func varint32(p []byte) (int32, int, error) {
	var v uint32
	for i := 0; i < 5; i++ {
		if i >= len(p) {
			return 0, 0, errTruncatedVarint
		}
		c := p[i]
		if i == 4 && c > 0x0f {
			return 0, 0, errors.New("varint does not fit in 32 bits")
		}
		v |= uint32(c&0x7f) << (7 * i)
		if c < 0x80 {
			return int32(v>>1) ^ -int32(v&1), i + 1, nil
		}
	}
	return 0, 0, errors.New("varint longer than 5 bytes")
}

func varintLen(v int64) int {
	u := uint64(v<<1) ^ uint64(v>>63)
	n := 1
	for u >= 0x80 {
		u >>= 7
		n++
	}
	return n
}
