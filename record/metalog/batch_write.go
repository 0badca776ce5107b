package metalog

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"

	"github.com/kmeta-go/kmeta/record"
)

// BatchBuilder builds one record batch v2 the way Kafka's KRaft writers do:
// raft BatchBuilder for data batches and MemoryRecordsBuilder (through
// MemoryRecords.withLeaderChangeMessage, withSnapshotHeaderRecord, ...) for
// control batches. The header has magic 2, CreateTime, no compression,
// baseTimestamp = maxTimestamp = the append time, producerId -1,
// producerEpoch -1, baseSequence -1, attributes 0 (0x20 for a control
// batch); every record has attributes 0, timestampDelta 0, offsetDelta i, a
// null key (data) or the 4-byte control key (control), and no headers.
//
// The zero value is not usable; start with NewBatchBuilder or
// NewControlBatchBuilder. A builder can be Reset and reused.
type BatchBuilder struct {
	buf        []byte
	baseOffset int64
	epoch      int32
	appendTime int64
	control    bool
	n          int32
}

// NewBatchBuilder starts a data batch at baseOffset written by the leader of
// epoch at appendTime (milliseconds), as raft BatchBuilder does.
func NewBatchBuilder(baseOffset int64, epoch int32, appendTime int64) *BatchBuilder {
	b := &BatchBuilder{}
	b.Reset(baseOffset, epoch, appendTime, false)
	return b
}

// NewControlBatchBuilder starts a control batch (attribute bit 5).
func NewControlBatchBuilder(baseOffset int64, epoch int32, appendTime int64) *BatchBuilder {
	b := &BatchBuilder{}
	b.Reset(baseOffset, epoch, appendTime, true)
	return b
}

// Reset empties the builder for a new batch, keeping its buffer.
func (b *BatchBuilder) Reset(baseOffset int64, epoch int32, appendTime int64, control bool) {
	if cap(b.buf) < BatchHeaderSize {
		b.buf = make([]byte, BatchHeaderSize, 4096)
	}
	b.buf = b.buf[:BatchHeaderSize]
	b.baseOffset, b.epoch, b.appendTime, b.control, b.n = baseOffset, epoch, appendTime, control, 0
}

// Len is the number of records appended.
func (b *BatchBuilder) Len() int { return int(b.n) }

// Size is the size the batch has now, header included.
func (b *BatchBuilder) Size() int { return len(b.buf) }

// NextOffset is the offset the next appended record gets.
func (b *BatchBuilder) NextOffset() int64 { return b.baseOffset + int64(b.n) }

// IsControl reports whether this is a control batch.
func (b *BatchBuilder) IsControl() bool { return b.control }

// RecordSize is the number of bytes a record with a key of keyLen bytes (-1
// for null) and a value of valueLen bytes takes at offsetDelta, length prefix
// included (DefaultRecord.sizeInBytes with no headers).
func RecordSize(offsetDelta int32, keyLen, valueLen int) int {
	body := recordBodySize(offsetDelta, keyLen, valueLen)
	return varintLen(int64(body)) + body
}

func recordBodySize(offsetDelta int32, keyLen, valueLen int) int {
	n := 1 + 1 + varintLen(int64(offsetDelta)) // attributes, timestampDelta 0, offsetDelta
	n += varintLen(int64(keyLen))
	if keyLen > 0 {
		n += keyLen
	}
	n += varintLen(int64(valueLen)) + valueLen
	return n + 1 // header count 0
}

// BytesNeeded is the size the next record (a data record with a value of
// valueLen bytes) adds to the batch: raft BatchBuilder.bytesNeeded without
// the header.
func (b *BatchBuilder) BytesNeeded(valueLen int) int {
	keyLen := -1
	if b.control {
		keyLen = 4
	}
	return RecordSize(b.n, keyLen, valueLen)
}

// Append adds a data record whose value is a framed metadata record (the
// bytes Append or MetadataRecordSerde produce). An empty value is refused, as
// Kafka's reader refuses it.
func (b *BatchBuilder) Append(value []byte) error {
	if b.control {
		return fmt.Errorf("metalog: Append on a control batch; use AppendControl")
	}
	if len(value) == 0 {
		return fmt.Errorf("metalog: empty record value")
	}
	b.appendEntry(nil, value)
	return nil
}

// AppendRecord frames r at version (Append) and adds it as a data record.
func (b *BatchBuilder) AppendRecord(r record.Record, version int16) error {
	if b.control {
		return fmt.Errorf("metalog: AppendRecord on a control batch")
	}
	n, err := record.Size(r, version)
	if err != nil {
		return err
	}
	b.buf = binary.AppendVarint(b.buf, int64(recordBodySize(b.n, -1, n)))
	b.buf = append(b.buf, 0, 0) // attributes, timestampDelta
	b.buf = binary.AppendVarint(b.buf, int64(b.n))
	b.buf = binary.AppendVarint(b.buf, -1)
	b.buf = binary.AppendVarint(b.buf, int64(n))
	start := len(b.buf)
	if b.buf, err = record.Append(b.buf, r, version); err != nil {
		return err
	}
	if got := len(b.buf) - start; got != n {
		return fmt.Errorf("metalog: %s v%d encoded to %d bytes, its size said %d", r.Type(), version, got, n)
	}
	b.buf = append(b.buf, 0)
	b.n++
	return nil
}

// AppendControl adds a control record of type t with its value (the body of
// the control message at version 0, no frame) and the 4-byte key Kafka writes.
func (b *BatchBuilder) AppendControl(t record.ControlType, value []byte) error {
	if !b.control {
		return fmt.Errorf("metalog: AppendControl on a data batch")
	}
	if len(value) == 0 {
		return fmt.Errorf("metalog: empty control record value")
	}
	var key [4]byte
	record.AppendControlKey(key[:0], t)
	b.appendEntry(key[:], value)
	return nil
}

// controlVersion is the version Kafka's ControlRecordUtils writes every KRaft
// control record at (its *_CURRENT_VERSION constants; record.DecodeControl
// reads at it when given version -1).
const controlVersion = 0

// AppendControlRecord adds the control record r, its value encoded at version
// 0 as Kafka's ControlRecordUtils writes every KRaft control record.
func (b *BatchBuilder) AppendControlRecord(r record.ControlRecord) error {
	v, err := r.AppendBody(nil, controlVersion)
	if err != nil {
		return err
	}
	return b.AppendControl(r.ControlType(), v)
}

func (b *BatchBuilder) appendEntry(key, value []byte) {
	keyLen := -1
	if key != nil {
		keyLen = len(key)
	}
	b.buf = binary.AppendVarint(b.buf, int64(recordBodySize(b.n, keyLen, len(value))))
	b.buf = append(b.buf, 0, 0)
	b.buf = binary.AppendVarint(b.buf, int64(b.n))
	b.buf = binary.AppendVarint(b.buf, int64(keyLen))
	b.buf = append(b.buf, key...)
	b.buf = binary.AppendVarint(b.buf, int64(len(value)))
	b.buf = append(b.buf, value...)
	b.buf = append(b.buf, 0)
	b.n++
}

// Build finishes the header and returns the batch bytes. They alias the
// builder's buffer until the next Reset or append. A batch needs at least one
// record.
func (b *BatchBuilder) Build() ([]byte, error) {
	if b.n == 0 {
		return nil, fmt.Errorf("metalog: empty batch at offset %d", b.baseOffset)
	}
	var attrs int16
	if b.control {
		attrs = AttrControl
	}
	putHeader(b.buf, &Batch{
		BaseOffset:           b.baseOffset,
		PartitionLeaderEpoch: b.epoch,
		Attributes:           attrs,
		LastOffsetDelta:      b.n - 1,
		BaseTimestamp:        b.appendTime,
		MaxTimestamp:         b.appendTime,
		ProducerID:           -1,
		ProducerEpoch:        -1,
		BaseSequence:         -1,
		NumRecords:           b.n,
	})
	return b.buf, nil
}

// putHeader writes the header of h into buf[:61], with the length from
// len(buf) and the CRC over buf[21:] (DefaultRecordBatch.writeHeader).
func putHeader(buf []byte, h *Batch) {
	be := binary.BigEndian
	be.PutUint64(buf[0:], uint64(h.BaseOffset))
	be.PutUint32(buf[8:], uint32(len(buf)-batchOverhead))
	be.PutUint32(buf[12:], uint32(h.PartitionLeaderEpoch))
	buf[16] = 2
	be.PutUint16(buf[21:], uint16(h.Attributes))
	be.PutUint32(buf[23:], uint32(h.LastOffsetDelta))
	be.PutUint64(buf[27:], uint64(h.BaseTimestamp))
	be.PutUint64(buf[35:], uint64(h.MaxTimestamp))
	be.PutUint64(buf[43:], uint64(h.ProducerID))
	be.PutUint16(buf[51:], uint16(h.ProducerEpoch))
	be.PutUint32(buf[53:], uint32(h.BaseSequence))
	be.PutUint32(buf[57:], uint32(h.NumRecords))
	be.PutUint32(buf[17:], crc32.Checksum(buf[crcStart:], castagnoli))
}

// AppendBatch appends the encoding of b to dst: its header fields (base
// offset, epoch, attributes, timestamps, producer fields) and its entries,
// with the length and CRC recomputed. Re-encoding a batch read from Kafka's
// files gives its bytes back exactly. A gzip batch is written uncompressed
// (its compression bits cleared): this package writes no compressed batch,
// as Kafka writes none for metadata.
func AppendBatch(dst []byte, b *Batch) []byte {
	start := len(dst)
	dst = append(dst, make([]byte, BatchHeaderSize)...)
	for _, e := range b.Entries {
		keyLen := -1
		if e.Key != nil {
			keyLen = len(e.Key)
		}
		od := int32(e.Offset - b.BaseOffset)
		dst = binary.AppendVarint(dst, int64(recordBodySize(od, keyLen, len(e.Value))))
		dst = append(dst, 0, 0)
		dst = binary.AppendVarint(dst, int64(od))
		dst = binary.AppendVarint(dst, int64(keyLen))
		dst = append(dst, e.Key...)
		dst = binary.AppendVarint(dst, int64(len(e.Value)))
		dst = append(dst, e.Value...)
		dst = append(dst, 0)
	}
	h := *b
	h.Attributes &^= AttrCompressionMask
	h.NumRecords = int32(len(b.Entries))
	putHeader(dst[start:], &h)
	return dst
}

// AppendDecoded appends the encoding of a decoded batch to dst as Kafka's
// raft layer writes it (BatchBuilder): a data batch of b.Records at their
// versions, or a control batch of b.Control, at b's base offset, leader
// epoch and append time.
func AppendDecoded(dst []byte, b *record.Batch) ([]byte, error) {
	var bb BatchBuilder
	bb.Reset(b.BaseOffset, b.LeaderEpoch, b.AppendTime, len(b.Control) > 0)
	if len(b.Control) > 0 && len(b.Records) > 0 {
		return dst, fmt.Errorf("metalog: batch at offset %d mixes data and control records", b.BaseOffset)
	}
	for _, c := range b.Control {
		if err := bb.AppendControlRecord(c); err != nil {
			return dst, fmt.Errorf("metalog: batch at offset %d: %w", b.BaseOffset, err)
		}
	}
	for _, r := range b.Records {
		if err := bb.AppendRecord(r.Record, r.Version); err != nil {
			return dst, fmt.Errorf("metalog: batch at offset %d: %w", b.BaseOffset, err)
		}
	}
	data, err := bb.Build()
	if err != nil {
		return dst, err
	}
	return append(dst, data...), nil
}
