package publisher

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// Kafka's snapshot-trigger defaults (KRaftConfigs / MetadataLogConfig).
const (
	// DefaultMaxBytesBetweenSnapshots is
	// metadata.log.max.record.bytes.between.snapshots: 20 MiB.
	DefaultMaxBytesBetweenSnapshots = 20 * 1024 * 1024
	// DefaultMaxSnapshotInterval is metadata.log.max.snapshot.interval.ms:
	// one hour (KIP-876).
	DefaultMaxSnapshotInterval = time.Hour
)

// ErrSnapshotExists is returned by a SnapshotEmitter when a snapshot with
// the image's id is already there; the generator logs it and goes on
// (SnapshotEmitter.maybeEmit).
var ErrSnapshotExists = errors.New("publisher: snapshot already exists")

// SnapshotEmitter writes an image as a snapshot (Kafka's SnapshotEmitter).
// The snapshot's id is (LastContainedOffset+1, LastContainedEpoch) of the
// image's provenance. Emit returns the snapshot's size in bytes.
type SnapshotEmitter interface {
	Emit(img *image.Image) (int64, error)
}

// DirEmitter writes snapshots into a __cluster_metadata-0 directory as
// Kafka's SnapshotEmitter does through the raft client: the image's records
// at its metadata.version (image.Image.Write) in a .checkpoint that
// metalog.CreateSnapshot writes to a temporary file and renames into place
// when complete, so Kafka and metalog.OpenDir can read it.
type DirEmitter struct {
	// FS is the file system Dir is in; nil means metalog.OS{}, the operating
	// system's files.
	FS metalog.FS
	// Dir is the __cluster_metadata-0 directory.
	Dir string
	// KRaftVersion and Voters go into the snapshot's header batch
	// (metalog.SnapshotWriterConfig).
	KRaftVersion int16
	Voters       *record.VotersRecord
	// Now stands in for the clock in the batch timestamps (nil: the wall
	// clock).
	Now func() int64
	// OnLoss is image.WriteOptions.OnLoss: nil refuses to write an image
	// the metadata.version cannot carry, as Kafka's default loss handler.
	OnLoss func(what string) error
}

// SnapshotID is the id the snapshot of img gets.
func SnapshotID(img *image.Image) metalog.SnapshotID {
	p := img.Provenance()
	return metalog.SnapshotID{EndOffset: p.LastContainedOffset + 1, Epoch: p.LastContainedEpoch}
}

// Emit implements SnapshotEmitter.
func (e *DirEmitter) Emit(img *image.Image) (int64, error) {
	id := SnapshotID(img)
	fsys := e.FS
	if fsys == nil {
		fsys = metalog.OS{}
	}
	if _, err := fsys.Stat(fsys.PathJoin(e.Dir, id.FileName())); err == nil {
		return 0, fmt.Errorf("%w: %s", ErrSnapshotExists, id.FileName())
	}
	w, err := metalog.CreateSnapshot(fsys, e.Dir, id, metalog.SnapshotWriterConfig{
		LastContainedLogTimestamp: img.Provenance().LastContainedLogTimeMs,
		KRaftVersion:              e.KRaftVersion,
		Voters:                    e.Voters,
		Now:                       e.Now,
	})
	if err != nil {
		return 0, err
	}
	err = img.Write(image.WriteOptions{OnLoss: e.OnLoss}, func(r record.Record, v int16) error { return w.AppendRecord(r, v) })
	if err != nil {
		w.Close()
		return 0, fmt.Errorf("writing snapshot %s: %w", id.FileName(), err)
	}
	n, err := w.Freeze()
	if err != nil {
		w.Close()
		return 0, err
	}
	return n, nil
}

// SnapshotGeneratorConfig is what NewSnapshotGenerator keeps for the life of
// a SnapshotGenerator. The zero value gives Kafka's defaults.
type SnapshotGeneratorConfig struct {
	// Name is the publisher name; "" means "SnapshotGenerator".
	Name string
	// MaxBytes is metadata.log.max.record.bytes.between.snapshots; 0 means
	// DefaultMaxBytesBetweenSnapshots.
	MaxBytes int64
	// MaxInterval is metadata.log.max.snapshot.interval.ms; 0 means
	// DefaultMaxSnapshotInterval and a negative value disables the time
	// trigger (Kafka's 0).
	MaxInterval time.Duration
	// Now stands in for the clock; nil means time.Now.
	Now func() time.Time
	// Async writes each snapshot on a goroutine of its own, at most one at
	// a time, as Kafka's generator does on its own event queue: while one
	// is being written, triggers are ignored. Otherwise snapshots are
	// written inside OnUpdate, on the loader's goroutine, and a failure is
	// returned to the loader as a publisher fault.
	Async bool
	// Logger receives the generator's log lines; nil discards them.
	Logger *slog.Logger
	// Generated, if set, is called after each snapshot is written
	// (LatestSnapshotGeneratedBytes, LatestSnapshotGeneratedAgeMs).
	Generated func(GeneratedSnapshot)
	// Failed, if set, is called when an Async write fails ("KRaft
	// snapshot file generation error"); nil logs it.
	Failed func(error)
}

// GeneratedSnapshot describes a written snapshot.
type GeneratedSnapshot struct {
	ID     metalog.SnapshotID
	Bytes  int64
	At     time.Time
	Reason string
}

// SnapshotGenerator is the publisher that writes a snapshot after enough
// log (Kafka's SnapshotGenerator): a SNAPSHOT manifest (a
// snapshot loaded, or its first full-image update) resets its counters; each
// LOG_DELTA adds its bytes, and when they reach MaxBytes, or else when
// MaxInterval has passed since the last snapshot, it emits one. Time is
// only looked at when a log delta arrives. Images cut inside a batch (not
// batch-aligned) are never written, nor anything while disabled.
type SnapshotGenerator struct {
	emitter SnapshotEmitter
	cfg     SnapshotGeneratorConfig
	log     *slog.Logger

	mu       sync.Mutex
	bytes    int64
	last     time.Time
	disabled string
	inflight bool
	latest   GeneratedSnapshot
	wg       sync.WaitGroup
}

// NewSnapshotGenerator returns a generator writing through e.
func NewSnapshotGenerator(e SnapshotEmitter, cfg SnapshotGeneratorConfig) *SnapshotGenerator {
	if cfg.Name == "" {
		cfg.Name = "SnapshotGenerator"
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultMaxBytesBetweenSnapshots
	}
	if cfg.MaxInterval == 0 {
		cfg.MaxInterval = DefaultMaxSnapshotInterval
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	g := &SnapshotGenerator{emitter: e, cfg: cfg, log: cfg.Logger}
	if g.log == nil {
		g.log = slog.New(slog.DiscardHandler)
	}
	g.last = cfg.Now()
	return g
}

// Name implements Publisher.
func (g *SnapshotGenerator) Name() string { return g.cfg.Name }

// OnUpdate implements Publisher (SnapshotGenerator.onMetadataUpdate).
func (g *SnapshotGenerator) OnUpdate(u Update) error {
	img, m := u.Image, u.Manifest
	g.mu.Lock()
	if m.Type == SnapshotLoad {
		g.bytes, g.last = 0, g.cfg.Now()
		g.mu.Unlock()
		return nil
	}
	g.bytes += m.NumBytes
	var reason string
	if g.bytes >= g.cfg.MaxBytes {
		reason = fmt.Sprintf("we have replayed at least %d bytes", g.cfg.MaxBytes)
	} else if g.cfg.MaxInterval > 0 && g.cfg.Now().Sub(g.last) >= g.cfg.MaxInterval {
		reason = fmt.Sprintf("we have waited at least %v", g.cfg.MaxInterval)
	}
	if reason == "" {
		g.mu.Unlock()
		return nil
	}
	switch {
	case g.disabled != "":
		g.mu.Unlock()
		g.log.Info("not scheduling a snapshot: snapshots are disabled", "reason", g.disabled)
		return nil
	case !img.Provenance().BatchAligned:
		g.mu.Unlock()
		g.log.Debug("not scheduling a snapshot: the image is not batch-aligned", "offset", img.Provenance().LastContainedOffset)
		return nil
	case g.cfg.Async:
		if g.inflight {
			g.mu.Unlock()
			return nil
		}
		g.inflight = true
		g.wg.Add(1)
		g.mu.Unlock()
		go func() {
			defer g.wg.Done()
			err := g.emit(img, reason)
			g.mu.Lock()
			g.inflight = false
			g.mu.Unlock()
			if err != nil {
				if g.cfg.Failed != nil {
					g.cfg.Failed(err)
				} else {
					g.log.Error("KRaft snapshot file generation error", "err", err)
				}
			}
		}()
		return nil
	}
	g.mu.Unlock()
	return g.emit(img, reason)
}

// emit resets the counters and writes the snapshot.
func (g *SnapshotGenerator) emit(img *image.Image, reason string) error {
	g.mu.Lock()
	g.bytes, g.last = 0, g.cfg.Now()
	g.mu.Unlock()
	g.log.Info("creating new KRaft snapshot", "id", SnapshotID(img).String(), "reason", reason)
	n, err := g.emitter.Emit(img)
	if errors.Is(err, ErrSnapshotExists) {
		g.log.Info("not generating snapshot: it already exists", "id", SnapshotID(img).String())
		return nil
	}
	if err != nil {
		return err
	}
	gs := GeneratedSnapshot{ID: SnapshotID(img), Bytes: n, At: g.cfg.Now(), Reason: reason}
	g.mu.Lock()
	g.latest = gs
	g.mu.Unlock()
	if g.cfg.Generated != nil {
		g.cfg.Generated(gs)
	}
	return nil
}

// Disable stops the generator from writing snapshots (Kafka's
// disabledReason: a metadata loading fault, a controller fault, shutdown).
// A fault handler may call it on loader faults as Kafka's does.
func (g *SnapshotGenerator) Disable(reason string) {
	g.mu.Lock()
	if g.disabled == "" {
		g.disabled = reason
	}
	g.mu.Unlock()
}

// Latest returns the last snapshot this generator wrote (zero ID if none).
func (g *SnapshotGenerator) Latest() GeneratedSnapshot {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.latest
}

// Close implements Publisher: it disables the generator and waits for a
// snapshot being written.
func (g *SnapshotGenerator) Close() error {
	g.Disable("the generator is closed")
	g.wg.Wait()
	return nil
}
