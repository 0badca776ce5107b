package metalog

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/kmeta-go/kmeta/record"
)

// SnapshotSuffix ends the name of a frozen snapshot file.
const SnapshotSuffix = ".checkpoint"

// SnapshotID names a snapshot as Kafka's OffsetAndEpoch does: EndOffset is
// the offset after the last record the snapshot contains, Epoch the epoch of
// that record.
type SnapshotID struct {
	EndOffset int64
	Epoch     int32
}

// LastContainedOffset is EndOffset-1 (RecordsSnapshotReader's
// lastContainedLogOffset).
func (id SnapshotID) LastContainedOffset() int64 { return id.EndOffset - 1 }

// FileName is the snapshot's file name (Snapshots.filenameFromSnapshotId):
// "<end offset, 20 digits>-<epoch, 10 digits>.checkpoint".
func (id SnapshotID) FileName() string {
	return fmt.Sprintf("%020d-%010d%s", id.EndOffset, id.Epoch, SnapshotSuffix)
}

// String prints the id as Kafka's OffsetAndEpoch.toString does.
func (id SnapshotID) String() string {
	return fmt.Sprintf("OffsetAndEpoch(offset=%d, epoch=%d)", id.EndOffset, id.Epoch)
}

// Less orders snapshot ids as OffsetAndEpoch.compareTo: by offset, then epoch.
func (id SnapshotID) Less(o SnapshotID) bool {
	if id.EndOffset != o.EndOffset {
		return id.EndOffset < o.EndOffset
	}
	return id.Epoch < o.Epoch
}

// ParseSnapshotName parses a frozen snapshot file name as Kafka's
// Snapshots.parse does: "<20 digits>-<10 digits>.checkpoint". The names of
// snapshots being written (".checkpoint.part") or deleted
// (".checkpoint.deleted") are not frozen snapshots and are refused.
func ParseSnapshotName(name string) (SnapshotID, error) {
	var id SnapshotID
	stem, ok := strings.CutSuffix(name, SnapshotSuffix)
	if !ok || len(stem) != 31 || stem[20] != '-' {
		return id, fmt.Errorf("metalog: %q is not a snapshot name (<20-digit end offset>-<10-digit epoch>.checkpoint)", name)
	}
	off, err := parseDigits(stem[:20], name)
	if err != nil {
		return id, err
	}
	ep, err := parseDigits(stem[21:], name)
	if err != nil {
		return id, err
	}
	if ep > math.MaxInt32 {
		return id, fmt.Errorf("metalog: %q: epoch %d does not fit in int32", name, ep)
	}
	return SnapshotID{EndOffset: off, Epoch: int32(ep)}, nil
}

// SnapshotReader reads a snapshot file the way Kafka's
// RecordsSnapshotReader and the metadata loader do. The first batch must be a
// control batch at offset 0 whose first record is a SnapshotHeaderRecord (and
// which may also hold a KRaftVersionRecord and a VotersRecord); offsets inside
// the snapshot start at 0 and continue batch after batch (they are not log
// offsets); the last batch must be a control batch whose first record is a
// SnapshotFooterRecord, the mark RecordsSnapshotWriter.freeze leaves.
//
// Next returns every batch, the control ones included (check IsControl).
// Batches are handed out as they are read, so a snapshot missing its footer
// is only known at its end: Next then returns ErrIncompleteSnapshot instead of
// io.EOF, and whatever was taken from the snapshot must be dropped. Load a
// snapshot only once Next has returned io.EOF, as Kafka's loader applies a
// snapshot's delta only after reading all of it.
type SnapshotReader struct {
	br      *BatchReader
	f       File
	id      SnapshotID
	pending bool // the header batch was read by Open and not yet returned
	footer  bool
	header  *record.SnapshotHeaderRecord
	kraft   *record.KRaftVersionRecord
	voters  *record.VotersRecord
}

// OpenSnapshot opens the snapshot name of fsys (OS{} for the operating
// system's files), whose base name gives its id, and reads its header batch;
// errors name it as name. Close it when done.
func OpenSnapshot(fsys FS, name string) (*SnapshotReader, error) {
	id, err := ParseSnapshotName(fsys.PathBase(name))
	if err != nil {
		return nil, err
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	s, err := NewSnapshotReader(f, name, id)
	if err != nil {
		f.Close()
		return nil, err
	}
	s.f = f
	return s, nil
}

// NewSnapshotReader reads a snapshot with the given id from r (name is used
// in errors) and reads its header batch.
func NewSnapshotReader(r io.Reader, name string, id SnapshotID) (*SnapshotReader, error) {
	br := NewBatchReader(r, name, Finished)
	br.SetNextOffset(0)
	s := &SnapshotReader{br: br, id: id}
	b, err := br.Next()
	if errors.Is(err, io.EOF) {
		return nil, &CorruptionError{File: name, Position: 0, Offset: 0, Err: fmt.Errorf("%w: empty snapshot file", ErrIncompleteSnapshot)}
	}
	if err != nil {
		return nil, err
	}
	if err := s.readHeader(b); err != nil {
		return nil, &CorruptionError{File: name, Position: b.Position, Offset: b.BaseOffset, Err: err}
	}
	s.pending = true
	return s, nil
}

func (s *SnapshotReader) readHeader(b *Batch) error {
	if !b.IsControl() {
		return fmt.Errorf("%w: the first batch of a snapshot is a data batch, want a control batch with a SnapshotHeaderRecord", record.ErrCorrupt)
	}
	for i, e := range b.Entries {
		t, _ := e.ControlType() // checked by ParseBatch
		if i == 0 && t != record.ControlSnapshotHeader {
			return fmt.Errorf("%w: the first record of a snapshot is %s, want SNAPSHOT_HEADER", record.ErrCorrupt, t)
		}
		switch t {
		case record.ControlSnapshotHeader, record.ControlKRaftVersion, record.ControlKRaftVoters:
			if t == record.ControlSnapshotHeader && i != 0 {
				return fmt.Errorf("%w: a second SnapshotHeaderRecord at offset %d", record.ErrCorrupt, e.Offset)
			}
			r, err := e.DecodeControl()
			if err != nil {
				return fmt.Errorf("%w: %s at offset %d: %v", record.ErrCorrupt, t, e.Offset, err)
			}
			switch r := r.(type) {
			case *record.SnapshotHeaderRecord:
				s.header = r
			case *record.KRaftVersionRecord:
				s.kraft = r
			case *record.VotersRecord:
				s.voters = r
			}
		case record.ControlSnapshotFooter:
			return fmt.Errorf("%w: SnapshotFooterRecord in the header batch", record.ErrCorrupt)
		}
	}
	return nil
}

// ID is the snapshot id from the file name.
func (s *SnapshotReader) ID() SnapshotID { return s.id }

// LastContainedLogOffset is ID().EndOffset-1, the log offset the snapshot
// covers up to (RecordsSnapshotReader.lastContainedLogOffset).
func (s *SnapshotReader) LastContainedLogOffset() int64 { return s.id.EndOffset - 1 }

// LastContainedLogEpoch is the epoch in the snapshot id.
func (s *SnapshotReader) LastContainedLogEpoch() int32 { return s.id.Epoch }

// LastContainedLogTimestamp is the LastContainedLogTimestamp of the
// SnapshotHeaderRecord: the append time of the last log batch the snapshot
// covers (RecordsSnapshotReader.lastContainedLogTimestamp).
func (s *SnapshotReader) LastContainedLogTimestamp() int64 { return s.header.LastContainedLogTimestamp }

// Header returns the SnapshotHeaderRecord of the header batch.
func (s *SnapshotReader) Header() *record.SnapshotHeaderRecord { return s.header }

// KRaftVersion returns the KRaftVersion of the KRaftVersionRecord in the
// header batch, written when kraft.version >= 1 (KIP-853), and whether there
// was one. Without one the snapshot was written at kraft.version 0.
func (s *SnapshotReader) KRaftVersion() (int16, bool) {
	if s.kraft == nil {
		return 0, false
	}
	return s.kraft.KRaftVersion, true
}

// Voters returns the VotersRecord of the header batch (the voter set at the
// snapshot's offset, kraft.version >= 1), or nil. The caller may keep it.
func (s *SnapshotReader) Voters() *record.VotersRecord { return s.voters }

// Name is the path or name the reader was given.
func (s *SnapshotReader) Name() string { return s.br.Name() }

// Next returns the next batch of the snapshot, the header batch first. See
// SnapshotReader for io.EOF and ErrIncompleteSnapshot. The batch is valid
// until the next call.
func (s *SnapshotReader) Next() (*Batch, error) {
	if s.pending {
		s.pending = false
		return &s.br.batch, nil
	}
	b, err := s.br.Next()
	if errors.Is(err, io.EOF) {
		if !s.footer {
			return nil, s.br.failAt(ErrIncompleteSnapshot)
		}
		// Read to its end: the buffer (as large as the snapshot's largest
		// batch, up to 8 MiB) is no longer needed by a reader kept open.
		s.br.release()
		return nil, io.EOF
	}
	if err != nil {
		return nil, err
	}
	if s.footer {
		return nil, s.br.failAtBatch(b, fmt.Errorf("%w: batch after the SnapshotFooterRecord", record.ErrCorrupt))
	}
	if b.IsControl() {
		for i, e := range b.Entries {
			t, _ := e.ControlType()
			switch {
			case t == record.ControlSnapshotFooter && i == 0:
				s.footer = true
			case t == record.ControlSnapshotFooter, t == record.ControlSnapshotHeader:
				return nil, s.br.failAtBatch(b, fmt.Errorf("%w: %s at offset %d inside the snapshot", record.ErrCorrupt, t, e.Offset))
			}
		}
	}
	return b, nil
}

// Close closes the file opened by OpenSnapshot.
func (s *SnapshotReader) Close() error {
	if s.f != nil {
		return s.f.Close()
	}
	return nil
}

// failAt records a sticky error at the reader's current position.
func (r *BatchReader) failAt(err error) error { return r.fail(err) }

// failAtBatch records a sticky error about a batch already returned.
func (r *BatchReader) failAtBatch(b *Batch, err error) error {
	r.err = &CorruptionError{File: r.name, Position: b.Position, Offset: b.BaseOffset, Err: err}
	return r.err
}

// SnapshotWriterConfig is what NewSnapshotWriter and CreateSnapshot keep for
// the life of a SnapshotWriter: what Kafka's RecordsSnapshotWriter.Builder is
// given. The zero value gives Kafka's defaults.
type SnapshotWriterConfig struct {
	// LastContainedLogTimestamp goes into the SnapshotHeaderRecord: the
	// append time of the last log batch the snapshot covers.
	LastContainedLogTimestamp int64
	// KRaftVersion is the kraft.version at the snapshot's offset. From 1 on
	// the header batch also holds a KRaftVersionRecord and, when Voters is
	// set, a VotersRecord (KIP-853). 0 (a static quorum) writes neither.
	KRaftVersion int16
	// Voters is the VotersRecord (written at version 0) to write when
	// KRaftVersion >= 1; nil writes none. It is an error with KRaftVersion 0.
	Voters *record.VotersRecord
	// MaxBatchSize bounds each batch, header included (BatchAccumulator's
	// maxBatchSize). 0 means DefaultMaxBatchSize, the 8 MiB
	// KafkaRaftClient.createSnapshot gives.
	MaxBatchSize int
	// Now returns the time in milliseconds, standing in for Kafka's Time. It
	// is called when the header batch is built, when each data batch is
	// started, and when the footer batch is built, in that order, as
	// RecordsSnapshotWriter calls Time. nil means the wall clock.
	Now func() int64
}

// SnapshotWriter writes a snapshot as Kafka's RecordsSnapshotWriter does for
// the controller's SnapshotEmitter: a control batch at offset 0 with the
// SnapshotHeaderRecord (and KRaftVersionRecord, VotersRecord when
// kraft.version >= 1); data batches whose offsets continue from there, packed
// one record at a time up to MaxBatchSize as BatchAccumulator packs
// non-atomic appends (so the 1024-record chunks of SnapshotEmitter do not
// show in the file: only the size limit starts a new batch); and, on Freeze, a
// control batch with the SnapshotFooterRecord. Every batch carries the
// snapshot's epoch as its partition leader epoch.
//
// Completed batches are written out as they fill, so memory stays at one
// batch.
type SnapshotWriter struct {
	w       io.Writer
	id      SnapshotID
	max     int
	now     func() int64
	b       BatchBuilder
	open    bool // b holds a started data batch
	next    int64
	size    int64
	frozen  bool
	err     error
	fsys    FS
	file    File
	tmpPath string
	path    string
}

// NewSnapshotWriter starts writing a snapshot with the given id to w: it
// writes the header batch at once. Call Freeze to finish it.
func NewSnapshotWriter(w io.Writer, id SnapshotID, cfg SnapshotWriterConfig) (*SnapshotWriter, error) {
	if cfg.KRaftVersion == 0 && cfg.Voters != nil {
		return nil, fmt.Errorf("metalog: a voter set is not expected when kraft.version is 0")
	}
	if cfg.KRaftVersion < 0 {
		return nil, fmt.Errorf("metalog: negative kraft.version %d", cfg.KRaftVersion)
	}
	s := &SnapshotWriter{w: w, id: id, max: cfg.MaxBatchSize, now: cfg.Now}
	if s.max <= 0 {
		s.max = DefaultMaxBatchSize
	}
	if s.now == nil {
		s.now = func() int64 { return time.Now().UnixMilli() }
	}
	s.b.Reset(0, id.Epoch, s.now(), true)
	ctl := []record.ControlRecord{&record.SnapshotHeaderRecord{Version: 0, LastContainedLogTimestamp: cfg.LastContainedLogTimestamp}}
	if cfg.KRaftVersion > 0 {
		ctl = append(ctl, &record.KRaftVersionRecord{Version: 0, KRaftVersion: cfg.KRaftVersion})
		if cfg.Voters != nil {
			ctl = append(ctl, cfg.Voters)
		}
	}
	for _, r := range ctl {
		if err := s.b.AppendControlRecord(r); err != nil {
			return nil, err
		}
	}
	if err := s.writeBatch(); err != nil {
		return nil, err
	}
	return s, nil
}

// CreateSnapshot starts writing the snapshot id into dir of fsys. It writes
// to a temporary "<name>-<random>.checkpoint.part" file that Freeze syncs and
// renames to id.FileName() atomically (FileRawSnapshotWriter,
// Snapshots.createTempFile); Close without Freeze removes it.
func CreateSnapshot(fsys FS, dir string, id SnapshotID, cfg SnapshotWriterConfig) (*SnapshotWriter, error) {
	name := id.FileName()
	f, tmp, err := createTemp(fsys, dir, strings.TrimSuffix(name, SnapshotSuffix)+"-", SnapshotSuffix+".part")
	if err != nil {
		return nil, err
	}
	s, err := NewSnapshotWriter(f, id, cfg)
	if err != nil {
		f.Close()
		fsys.Remove(tmp)
		return nil, err
	}
	s.fsys, s.file, s.tmpPath, s.path = fsys, f, tmp, fsys.PathJoin(dir, name)
	return s, nil
}

// createTemp creates a new file prefix<random>suffix in dir, as
// os.CreateTemp does.
func createTemp(fsys FS, dir, prefix, suffix string) (File, string, error) {
	for try := 0; ; try++ {
		p := fsys.PathJoin(dir, prefix+strconv.FormatUint(uint64(rand.Uint32()), 10)+suffix)
		f, err := fsys.Create(p)
		if err == nil {
			return f, p, nil
		}
		if !errors.Is(err, fs.ErrExist) || try == 10000 {
			return nil, "", err
		}
	}
}

// Path is where the frozen snapshot is (or will be) for a writer made by
// CreateSnapshot.
func (s *SnapshotWriter) Path() string { return s.path }

// ID is the snapshot id.
func (s *SnapshotWriter) ID() SnapshotID { return s.id }

// Append adds data records given as framed values (from Append, or values
// read from another snapshot or log).
func (s *SnapshotWriter) Append(values ...[]byte) error {
	for _, v := range values {
		if err := s.room(len(v)); err != nil {
			return err
		}
		if err := s.b.Append(v); err != nil {
			return s.setErr(err)
		}
	}
	return nil
}

// AppendRecord adds a data record, framed at version.
func (s *SnapshotWriter) AppendRecord(r record.Record, version int16) error {
	n, err := record.Size(r, version)
	if err != nil {
		return err
	}
	if err := s.room(n); err != nil {
		return err
	}
	if err := s.b.AppendRecord(r, version); err != nil {
		return s.setErr(err)
	}
	return nil
}

// room makes sure the current data batch can take a record with a value of n
// bytes: BatchAccumulator.maybeAllocateBatch with BatchBuilder.bytesNeeded.
func (s *SnapshotWriter) room(n int) error {
	if s.err != nil {
		return s.err
	}
	if s.frozen {
		return fmt.Errorf("metalog: append to snapshot %s after Freeze", s.id.FileName())
	}
	if !s.open {
		s.b.Reset(s.next, s.id.Epoch, s.now(), false)
		s.open = true
	}
	need := s.b.BytesNeeded(n)
	if s.b.Size()+need <= s.max {
		return nil
	}
	if BatchHeaderSize+RecordSize(0, -1, n) > s.max {
		return fmt.Errorf("metalog: a record of %d bytes exceeds the maximum batch size %d", n, s.max)
	}
	if err := s.writeBatch(); err != nil {
		return err
	}
	s.b.Reset(s.next, s.id.Epoch, s.now(), false)
	s.open = true
	return nil
}

func (s *SnapshotWriter) writeBatch() error {
	data, err := s.b.Build()
	if err != nil {
		return s.setErr(err)
	}
	if _, err := s.w.Write(data); err != nil {
		return s.setErr(err)
	}
	s.size += int64(len(data))
	s.next = s.b.NextOffset()
	s.open = false
	return nil
}

func (s *SnapshotWriter) setErr(err error) error {
	if s.err == nil {
		s.err = err
	}
	return err
}

// Freeze writes the last data batch and the footer batch; for a writer made
// by CreateSnapshot it then syncs the file, closes it and renames it into
// place. It returns the size of the snapshot in bytes.
func (s *SnapshotWriter) Freeze() (int64, error) {
	if s.err != nil {
		return 0, s.err
	}
	if s.frozen {
		return s.size, nil
	}
	if s.open && s.b.Len() > 0 {
		if err := s.writeBatch(); err != nil {
			return 0, err
		}
	}
	s.b.Reset(s.next, s.id.Epoch, s.now(), true)
	if err := s.b.AppendControlRecord(&record.SnapshotFooterRecord{Version: 0}); err != nil {
		return 0, s.setErr(err)
	}
	if err := s.writeBatch(); err != nil {
		return 0, err
	}
	s.frozen = true
	if s.file != nil {
		if err := s.file.Sync(); err != nil {
			return 0, s.setErr(err)
		}
		if err := s.file.Close(); err != nil {
			return 0, s.setErr(err)
		}
		s.file = nil
		if err := s.fsys.Rename(s.tmpPath, s.path); err != nil {
			return 0, s.setErr(err)
		}
	}
	return s.size, nil
}

// Close releases the writer. Before Freeze it abandons the snapshot and, for
// a writer made by CreateSnapshot, removes the temporary file.
func (s *SnapshotWriter) Close() error {
	if s.file == nil {
		return nil
	}
	err := s.file.Close()
	s.file = nil
	if !s.frozen {
		if rerr := s.fsys.Remove(s.tmpPath); err == nil {
			err = rerr
		}
	}
	return err
}
