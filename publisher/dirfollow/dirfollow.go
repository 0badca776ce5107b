// Package dirfollow feeds a __cluster_metadata-0 directory to a
// publisher.Loader, the way a broker's raft client would after a restart:
// the latest snapshot, then the log batches after it, in commits of at most
// 8 MiB (KafkaRaftClient's MAX_FETCH_SIZE_BYTES), then the high watermark at
// the end of the log. Follow keeps polling the directory for new batches
// and new segments, and follows it through everything Kafka's log layer does
// to it (see Follow).
//
// It reads files and Follow sleeps between polls, which is why it lives
// outside the loader's pure core. It is meant for examples, tools and tests
// over copied or live directories. A file reader cannot know Kafka's high
// watermark, so every complete batch found is taken as committed; a live
// Kafka node may append batches that its quorum later truncates, and Follow
// then goes back to what the rewritten log says.
//
// Nothing is dropped in silence: every error of the read and replay path
// reaches the caller (Load's *LoadError, Follow's error or Options.OnError)
// and the loader's fault handler (FaultRead for what could not be read, the
// loader's own faults for records it skipped), naming the file, the byte
// position of the batch and the offset.
//
//	l := publisher.NewLoader(publisher.Config{})
//	cache := publisher.NewCache("")
//	l.Install(cache)
//	if err := dirfollow.Load(l, dir); err != nil { ... }
//	img := cache.Load()
//
// LoadImage does the same in one call and returns the image; LoadPath also
// takes a single snapshot, log segment or bootstrap.checkpoint file.
//
// To keep following a live directory, Start runs Follow on a goroutine of
// its own and returns once the first image is published:
//
//	img, following, err := dirfollow.Start(ctx, l, dir, dirfollow.Options{})
//	if err != nil { ... } // the directory could not be loaded, or ctx ended
//	defer following.Stop()
//
// With Options.AwaitFiles it first waits for a directory that Kafka has not
// written yet (missing, empty, or holding only a .checkpoint.part).
package dirfollow

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/kmeta-go/kmeta/publisher"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// DefaultMaxCommitBytes is KafkaRaftClient.MAX_FETCH_SIZE_BYTES: a broker's
// raft client hands the listener at most this much log per commit.
const DefaultMaxCommitBytes = 8 << 20

// DefaultPoll is how often Follow first looks again for new batches when
// idle; DefaultMaxPoll is what the interval backs off to while nothing
// changes.
const (
	DefaultPoll    = 100 * time.Millisecond
	DefaultMaxPoll = time.Second
)

// maxProblems bounds the problems a LoadError lists one by one; the rest are
// only counted.
const maxProblems = 100

// Options configure Load and Follow.
type Options struct {
	// MaxCommitBytes bounds one commit (at least one batch is always
	// taken). 0 means DefaultMaxCommitBytes.
	MaxCommitBytes int
	// Poll is Follow's first idle interval. 0 means DefaultPoll.
	Poll time.Duration
	// MaxPoll is the longest idle interval: each poll that finds nothing
	// new doubles the interval up to MaxPoll, and new bytes reset it to
	// Poll. 0 means DefaultMaxPoll (or Poll, if Poll is larger).
	MaxPoll time.Duration
	// OnError, when set, makes Follow keep following after an error: it
	// receives the error (a *metalog.CorruptionError, a *RecordError, or an
	// error opening the directory), and Follow reopens the directory
	// after the next idle interval, serving the last good image
	// meanwhile. When nil, Follow returns the first error.
	OnError func(error)
	// AwaitFiles makes Follow (and Start) first wait, polling every Poll,
	// until the directory exists and holds a log segment or a frozen
	// snapshot, rather than open it at once: a node formatted and started
	// after its reader, or a directory holding only a .checkpoint.part
	// (FileRawSnapshotWriter still writing). ctx bounds the wait.
	AwaitFiles bool
	// FS, when set, is the file system the directory is read from, and
	// dir is a name in it: a *metalog.MemFS, metalog.FromIOFS of an
	// archive, a test's files. Nil means metalog.OS{}, the operating system's
	// files, dir a path. Follow needs what metalog.FS says Follow mode
	// needs: open files that show appended bytes, Stat and ReadDir that
	// show new and removed files, and file identities.
	FS metalog.FS
}

// RecordError is a record the loader skipped (publisher's Skip mode) or a
// batch it could not load, located in the directory. It adds the file's
// facts once: the file and, in a log segment, the byte position of the
// batch. Which record it was and why is Err's to say (the loader's
// *publisher.Fault, holding a *publisher.ReplayError and the
// *delta.RecordError; or the error loading the batch).
type RecordError struct {
	// File is the segment's or snapshot's path.
	File string
	// Position is the byte position of the batch in File; -1 inside a
	// snapshot, whose batches the loader reads itself.
	Position int64
	// Offset is the record's log offset; a snapshot's last contained
	// offset for a record of a snapshot; the batch's base offset for a
	// batch that could not be loaded; -1 when no offset applies.
	Offset int64
	// Err is the cause.
	Err error
}

// Error names the file, the batch's byte position and the cause:
// "meta/00000000000000001000.log: batch at byte 0: loading metadata:
// delta: PARTITION_RECORD at offset 1001 {…}: unknown topic id …".
func (e *RecordError) Error() string {
	if e.Position < 0 {
		return fmt.Sprintf("%s: %v", e.File, e.Err)
	}
	return fmt.Sprintf("%s: batch at byte %d: %v", e.File, e.Position, e.Err)
}

// Unwrap returns Err, for errors.Is and errors.As.
func (e *RecordError) Unwrap() error { return e.Err }

// LoadError is what Load returns when it loaded the directory, published
// its image, and yet left something out: records the loader skipped
// (*RecordError) and a batch cut short at the end of the newest segment
// (a *metalog.CorruptionError wrapping metalog.ErrIncompleteTail that says
// how many bytes of which file at which offset were left out; Kafka's log
// recovery truncates such a tail). The image stays published.
type LoadError struct {
	// Dir is the directory (or the file, for LoadPath) that was loaded.
	Dir string
	// Problems are the first problems, in log order.
	Problems []error
	// Count is the number of problems, Problems and those past its limit.
	Count int
}

// Error names the directory, the number of problems and the first three.
func (e *LoadError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "dirfollow: %s: loaded, leaving out %d problem(s)", e.Dir, e.Count)
	for i, p := range e.Problems {
		if i == 3 {
			fmt.Fprintf(&b, "; and %d more", e.Count-3)
			break
		}
		fmt.Fprintf(&b, "; %v", p)
	}
	return b.String()
}

// Unwrap returns the problems, for errors.Is and errors.As.
func (e *LoadError) Unwrap() []error { return e.Problems }

// Load feeds the directory once: its latest snapshot, every complete batch
// after it, then the high watermark just past the last batch, so that the
// loader catches up and publishes. It returns an error naming file, byte
// position and offset for what it could not read (the image then stays at
// what was loaded before it), and a *LoadError when it loaded the
// directory but left records or a cut-short tail out.
func Load(l *publisher.Loader, dir string) error {
	return LoadWith(l, dir, Options{})
}

// LoadWith is Load with options.
func LoadWith(l *publisher.Loader, dir string, opts Options) error {
	f := newFollower(l, dir, opts)
	stop := l.WatchFaults(f.onFault)
	defer stop()
	defer f.close()
	if err := f.open(); err != nil {
		f.readError(err)
		return err
	}
	if _, err := f.feed(); err != nil {
		f.readError(err)
		return err
	}
	if f.tail != nil {
		f.problem(f.tailProblem())
	}
	if f.count > 0 {
		return &LoadError{Dir: dir, Problems: f.problems, Count: f.count}
	}
	return nil
}

// Follow is Load followed by polling the directory until ctx ends: each
// time new complete batches appear they are fed as commits. A loader that
// already holds records (after a Load of the same directory) is not taken
// back to the snapshot: Follow goes on from the loader's last offset, so
// the published images never go back. It returns ctx's error, or (without
// Options.OnError) the first error.
//
// What Follow does in each state Kafka's log layer leaves the directory in
// (UnifiedLog and LogSegment, KafkaMetadataLog's snapshots and cleaning,
// the raft client's truncation):
//
//   - An empty active segment (UnifiedLog.roll, or truncateFullyAndStartAt
//     after a snapshot at its base offset): wait for its first batch.
//   - A batch being appended (cut short at the end of the newest segment):
//     wait; it is fed once complete. Cut short in a segment that a later
//     segment follows, it is damage and reported.
//   - A segment roll: at the end of a segment, take the segment named after
//     the next offset as soon as it exists.
//   - A new snapshot (.checkpoint.part written, then renamed to
//     .checkpoint by FileRawSnapshotWriter.freeze): nothing to do while the
//     log still holds what comes next; .part and .deleted files are never
//     read.
//   - Retention after a snapshot (KafkaMetadataLog.deleteBeforeSnapshot:
//     older segments and snapshots deleted): a follower at the end keeps
//     reading the newest segment; a follower behind whose next segment is
//     gone reopens the directory and loads the latest snapshot, as a raft
//     follower fetches a snapshot when its offset falls below the log start.
//   - A tail truncated and rewritten (UnifiedLog.truncateTo, the raft client
//     truncating a diverging uncommitted suffix): detected when the segment
//     is shorter than what was read or the last batch read is no longer
//     there with its CRC; Follow reopens the directory and, when its log no
//     longer holds the batch it last fed, reloads from the latest snapshot
//     (or from the empty image without one), so the image goes back to what
//     the rewritten log says.
//   - The directory deleted or replaced: the open segment is no longer the
//     file at its path; Follow reopens the directory, as for a truncation.
//     A directory that cannot be opened, or that holds no segment at all
//     (Kafka's log always has an active segment), is an error and the last
//     good image stays.
//
// Follow never loops without progress: a poll that finds nothing new sleeps,
// and the sleep doubles up to Options.MaxPoll while nothing changes. Damage
// that a fresh read of the directory finds again is an error naming the
// file, the byte position and the offset; it goes to the loader's fault
// handler (FaultRead) and to the caller, and the last good image stays
// published. Records the loader skips go to the caller too, as
// *RecordError.
//
// Follow feeds l on the caller's goroutine, so while it runs that goroutine
// is the loader's (publisher.Loader is single-goroutine): install the
// publishers before, or from a publisher, and call l's other methods after
// Follow returns; Image, Watch, WaitForOffset and Stats may be called
// meanwhile from anywhere.
func Follow(ctx context.Context, l *publisher.Loader, dir string, opts Options) error {
	f := newFollower(l, dir, opts)
	f.live = true
	if p := l.Stats().Loaded.LastContainedOffset; p >= 0 {
		// The loader already holds the log up to p (Load of the same
		// directory, as the proxy does before it serves): go on from
		// there rather than going back to the snapshot and publishing
		// older images again.
		f.opened = true
		f.pos = fed{last: p, unverified: true}
	}
	stop := l.WatchFaults(f.onFault)
	defer stop()
	defer f.close()
	poll := opts.Poll
	if poll <= 0 {
		poll = DefaultPoll
	}
	maxPoll := opts.MaxPoll
	if maxPoll <= 0 {
		maxPoll = max(DefaultMaxPoll, poll)
	}
	if opts.AwaitFiles && !f.opened {
		if err := f.await(ctx, poll); err != nil {
			return err
		}
	}
	wait := poll
	t := time.NewTimer(0)
	defer t.Stop()
	<-t.C
	for {
		progressed, err := f.step()
		if err != nil {
			f.readError(err)
			if opts.OnError == nil {
				return err
			}
			opts.OnError(err)
			f.close()
			// Read the directory again only once it changed since the
			// read that failed began: damage that stays is reported
			// once, not re-read at every poll.
			f.failFile = failedFile(err)
			f.failed = fingerprint(f.pre, f.failFile)
		}
		if progressed {
			wait = poll
		} else {
			wait = min(2*wait, maxPoll)
		}
		if err := f.flushProblems(); err != nil {
			return err
		}
		t.Reset(wait)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// fed identifies the last batch fed to the loader, or the snapshot.
type fed struct {
	last     int64 // last offset fed, -1 if none
	base     int64
	crc      uint32
	snapshot bool // last is a snapshot's last contained offset
	// unverified: last is where the loader stood when Follow began (after
	// a Load of the directory); the batch's CRC is not known.
	unverified bool
}

type follower struct {
	l    *publisher.Loader
	dir  string
	opts Options
	live bool

	d      *metalog.DirReader
	pos    fed
	opened bool // the directory has been opened once

	// The batch being fed, to locate the faults the loader raises for it.
	curFile string
	curPos  int64

	// pre lists the directory as it was before the last fresh read;
	// failed fingerprints it for the file the last error named.
	pre      map[string]string
	failed   string
	failFile string
	tail     error // the cut-short tail of the last feed, if any
	problems []error
	count    int
	pending  []error // Follow: problems not yet given to the caller
}

func newFollower(l *publisher.Loader, dir string, opts Options) *follower {
	return &follower{l: l, dir: dir, opts: opts, pos: fed{last: -1}}
}

func (f *follower) close() {
	if f.d != nil {
		f.d.Close()
		f.d = nil
	}
}

// open opens the directory and loads its latest snapshot.
func (f *follower) open() error {
	d, err := f.openDir()
	if err != nil {
		return err
	}
	if err := f.loadSnapshot(d); err != nil {
		d.Close()
		return err
	}
	f.d = d
	f.opened = true
	return nil
}

// loadSnapshot loads d's snapshot, or the empty image when d has none and
// the loader holds something (a reload after a truncation).
func (f *follower) loadSnapshot(d *metalog.DirReader) error {
	f.curFile, f.curPos = "", -1
	if s := d.Snapshot(); s != nil {
		f.curFile = s.Name()
		if err := f.l.LoadSnapshot(s); err != nil {
			if ce := (*metalog.CorruptionError)(nil); errors.As(err, &ce) {
				return err // it names the file
			}
			return &RecordError{File: s.Name(), Position: -1, Offset: s.LastContainedLogOffset(), Err: err}
		}
		f.pos = fed{last: s.ID().EndOffset - 1, snapshot: true}
		return nil
	}
	if f.pos.last >= 0 {
		if err := f.l.LoadSnapshot(publisher.Snapshot{LastContainedOffset: -1, LastContainedEpoch: -1, LastContainedLogTime: -1}.Reader()); err != nil {
			return err
		}
	}
	f.pos = fed{last: -1}
	return nil
}

// reopen opens the directory again after it changed under the reader and
// continues from where the loader stands when the new log still holds the
// batch fed last; otherwise (the follower fell behind the log start, or the
// log was truncated and rewritten) it reloads from the latest snapshot.
func (f *follower) reopen() error {
	f.close()
	if !f.hasSegment() {
		// Kafka's log always has an active segment (UnifiedLog rolls or
		// recreates one, truncateFullyAndStartAt makes one): a directory
		// without any is being deleted or replaced. Keep the last good
		// image rather than take it for an empty log.
		return fmt.Errorf("dirfollow: %s: no log segment (the directory is being deleted or replaced?); serving the image at offset %d", f.dir, f.pos.last)
	}
	d, err := f.openDir()
	if err != nil {
		return err
	}
	p := f.pos.last
	if s := d.Snapshot(); s != nil && s.ID().EndOffset-1 > p {
		// Behind the log start: catch up from the snapshot.
		if err := f.loadSnapshot(d); err != nil {
			d.Close()
			return err
		}
		f.d = d
		return nil
	}
	if p < 0 || p == d.StartOffset()-1 {
		// Nothing fed yet, or the snapshot ends where the loader stands:
		// a snapshot holds only committed records, which no truncation
		// removes.
		f.d = d
		return nil
	}
	for {
		b, err := d.Next()
		if err != nil || b.LastOffset() > p {
			break
		}
		if b.LastOffset() < p {
			continue
		}
		if f.pos.unverified || b.BaseOffset == f.pos.base && b.CRC == f.pos.crc {
			f.d = d
			return nil
		}
		break
	}
	// Diverged: what the loader holds is no longer the directory's log.
	d.Close()
	return f.reload()
}

// openDir opens the directory for following.
func (f *follower) openDir() (*metalog.DirReader, error) {
	return metalog.OpenDir(f.fsys(), f.dir, metalog.Follow)
}

// fsys is Options.FS, or metalog.OS{}.
func (f *follower) fsys() metalog.FS {
	if f.opts.FS == nil {
		return metalog.OS{}
	}
	return f.opts.FS
}

// readDir lists the directory.
func (f *follower) readDir() ([]fs.DirEntry, error) { return f.fsys().ReadDir(f.dir) }

// stat describes name: the directory, or a file as metalog's errors name it.
func (f *follower) stat(name string) (fs.FileInfo, error) { return f.fsys().Stat(name) }

// hasSegment reports whether the directory holds a log segment.
func (f *follower) hasSegment() bool {
	ents, err := f.readDir()
	if err != nil {
		return true // let OpenDir say what is wrong
	}
	for _, e := range ents {
		if _, err := metalog.ParseSegmentName(e.Name()); err == nil {
			return true
		}
	}
	return false
}

// reload reads the directory from its latest snapshot (or from the empty
// image without one) into the loader.
func (f *follower) reload() error {
	f.close()
	if f.pos.last < 0 {
		f.pos.last = 0 // make loadSnapshot reset the loader
	}
	d, err := f.openDir()
	if err != nil {
		return err
	}
	if err := f.loadSnapshot(d); err != nil {
		d.Close()
		return err
	}
	f.d = d
	return nil
}

// step is one poll of Follow: open the directory if needed, feed what is
// new, and when nothing is, check that the directory still holds what was
// read.
func (f *follower) step() (progressed bool, err error) {
	if f.d == nil && f.failed != "" {
		if fingerprint(f.listing(), f.failFile) == f.failed {
			return false, nil
		}
		f.failed = ""
	}
	fresh := f.d == nil // the directory is read afresh in this step
	if fresh {
		f.pre = f.listing()
		if !f.opened {
			if err := f.open(); err != nil {
				return false, err
			}
		} else if err := f.reopen(); err != nil {
			return false, err
		}
		progressed = true
	}
	n, err := f.feed()
	if n > 0 {
		progressed = true
	}
	if errors.Is(err, publisher.ErrOffset) {
		// The loader is not where the directory's log continues (it was
		// fed something else before Follow): start over from the
		// snapshot.
		if err := f.reload(); err != nil {
			return progressed, err
		}
		_, err = f.feed()
		return true, err
	}
	if err == nil && n == 0 {
		err = f.d.Verify()
	}
	if err == nil {
		return progressed, nil
	}
	if fresh {
		if errors.Is(err, metalog.ErrLogChanged) {
			// Changed again while it was being read: a change, not
			// damage; read it afresh at the next poll.
			f.close()
			return false, nil
		}
		return progressed, err
	}
	// Something changed under the reader (or the bytes are damaged):
	// read the directory afresh before calling it damage.
	f.pre = f.listing()
	if rerr := f.reopen(); rerr != nil {
		return progressed, rerr
	}
	_, err = f.feed()
	return true, err
}

// listing describes the directory and each file in it by size and
// modification time.
func (f *follower) listing() map[string]string {
	out := map[string]string{}
	if st, err := f.stat(f.dir); err != nil {
		out[""] = err.Error()
	} else {
		out[""] = fmt.Sprintf("%d", st.ModTime().UnixNano())
	}
	ents, _ := f.readDir()
	for _, e := range ents {
		if info, err := e.Info(); err == nil {
			out[e.Name()] = fmt.Sprintf("%d %d", info.Size(), info.ModTime().UnixNano())
		}
	}
	return out
}

// failedFile is the base name of the file an error names, or "".
func failedFile(err error) string {
	var ce *metalog.CorruptionError
	if errors.As(err, &ce) {
		return filepath.Base(ce.File)
	}
	return ""
}

// fingerprint describes a listing by the names of its files and the file
// an error named by its size and modification time: what changes when
// Kafka's log layer changes what was read. Appends to another segment do
// not undo damage; a segment or snapshot added, deleted or renamed may.
func fingerprint(listing map[string]string, file string) string {
	names := make([]string, 0, len(listing))
	for n := range listing {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	fmt.Fprintf(&b, "dir %s; file %q %s;", listing[""], file, listing[file])
	for _, n := range names {
		b.WriteString(n)
		b.WriteByte(';')
	}
	return b.String()
}

// onFault records the faults the loader raises for the batch being fed.
func (f *follower) onFault(ft *publisher.Fault) {
	switch ft.Kind {
	case publisher.FaultReplay, publisher.FaultApply, publisher.FaultControl:
	default:
		return
	}
	f.problem(&RecordError{File: f.curFile, Position: f.curPos, Offset: ft.Offset, Err: ft})
}

func (f *follower) problem(err error) {
	if f.live {
		if len(f.pending) < maxProblems {
			f.pending = append(f.pending, err)
		}
		return
	}
	f.count++
	if len(f.problems) < maxProblems {
		f.problems = append(f.problems, err)
	}
}

// flushProblems gives Follow's caller the problems met since the last poll.
func (f *follower) flushProblems() error {
	p := f.pending
	f.pending = nil
	for _, err := range p {
		if f.opts.OnError == nil {
			return err
		}
		f.opts.OnError(err)
	}
	return nil
}

// readError reports what could not be read to the loader's fault handler.
func (f *follower) readError(err error) {
	if ft := (*publisher.Fault)(nil); errors.As(err, &ft) || errors.Is(err, publisher.ErrHalted) {
		return // the loader reported it already
	}
	off := f.pos.last + 1
	var ce *metalog.CorruptionError
	if errors.As(err, &ce) {
		off = ce.Offset
	}
	f.l.ReportReadError(off, err)
}

// tailProblem describes the tail cut short at the end of a load: how many
// bytes of which file, from which position and offset, were left out.
func (f *follower) tailProblem() error {
	var ce *metalog.CorruptionError
	if !errors.As(f.tail, &ce) {
		return f.tail
	}
	left := int64(-1)
	if st, err := f.stat(ce.File); err == nil {
		left = st.Size() - ce.Position
	}
	what := strings.TrimPrefix(ce.Err.Error(), metalog.ErrIncompleteTail.Error()+": ")
	return &metalog.CorruptionError{File: ce.File, Position: ce.Position, Offset: ce.Offset,
		Err: &tailError{what: what, left: left}}
}

// tailError is a batch cut short at the end of a finished load.
type tailError struct {
	what string
	left int64
}

func (e *tailError) Error() string {
	return fmt.Sprintf("%s at the end of the newest segment; %d bytes left out, as Kafka's log recovery truncates them", e.what, e.left)
}

func (e *tailError) Unwrap() error { return metalog.ErrIncompleteTail }
