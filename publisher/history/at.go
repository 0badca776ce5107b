package history

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/publisher"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// Point is a point of a metadata log to travel to: an offset or an append
// time.
type Point struct {
	offset int64
	time   time.Time
	byTime bool
}

// AtOffset is the point just after the record at offset: the image holds
// every record at or before it.
func AtOffset(offset int64) Point { return Point{offset: offset} }

// AtTime is the point just after the last batch appended at or before t
// (by the batch's append time, its maxTimestamp).
func AtTime(t time.Time) Point { return Point{time: t, byTime: true} }

// End is the point after the last record.
func End() Point { return Point{offset: math.MaxInt64} }

// ParsePoint reads a point as metadump's -at takes it: a decimal offset,
// or an RFC 3339 time (2026-11-29T03:12:04Z, fractions of a second
// allowed).
func ParsePoint(s string) (Point, error) {
	if o, err := strconv.ParseInt(s, 10, 64); err == nil {
		if o < -1 {
			return Point{}, fmt.Errorf("offset %d is negative", o)
		}
		return AtOffset(o), nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return Point{}, fmt.Errorf("%q is neither an offset nor an RFC 3339 time (2026-11-29T03:12:04Z)", s)
	}
	return AtTime(t), nil
}

// Offset returns the point's offset, false for a time point.
func (p Point) Offset() (int64, bool) { return p.offset, !p.byTime }

// Time returns the point's time, false for an offset point.
func (p Point) Time() (time.Time, bool) { return p.time, p.byTime }

// String returns the point as ParsePoint reads it.
func (p Point) String() string {
	if p.byTime {
		return p.time.UTC().Format(time.RFC3339Nano)
	}
	if p.offset == math.MaxInt64 {
		return "end"
	}
	return strconv.FormatInt(p.offset, 10)
}

// after reports whether a batch lies wholly after the point.
func (p Point) after(b *metalog.Batch) bool {
	if p.byTime {
		return b.AppendTime() > p.time.UnixMilli()
	}
	return b.BaseOffset > p.offset
}

// ImageAt returns the image of path (any source Read takes) as it was at
// at: the image Kafka's loader publishes from the log cut just after the
// point (publisher.Loader, transactions respected: inside an open
// metadata transaction it is the image before it). End() gives the final
// image; any other point outside the log (an offset past its last record,
// a time after its last batch or before its first) is an *OutsideError. A
// directory is read from its latest snapshot at or before an offset point
// (from its earliest start for a time point), then its segments; a point
// before what the files hold is an error.
func ImageAt(path string, at Point) (*image.Image, error) {
	imgs, err := ImagesAt(path, at)
	if err != nil {
		return nil, err
	}
	return imgs[0], nil
}

// ImagesAt returns the images at several points in one pass over the log.
// The points must be in log order (offsets and times ascending).
func ImagesAt(path string, points ...Point) ([]*image.Image, error) {
	if len(points) == 0 {
		return nil, nil
	}
	var upTo *int64
	if o, ok := points[0].Offset(); ok && o != math.MaxInt64 {
		upTo = &o
	}
	l, err := openLog(path, upTo)
	if err != nil {
		return nil, err
	}
	defer l.close()
	ld := publisher.NewLoader(publisher.Config{})
	defer ld.Close()
	last, err := loadStart(ld, l, points[0])
	if err != nil {
		return nil, err
	}
	tr := &travel{path: path, ld: ld, points: points, last: last, out: make([]*image.Image, 0, len(points)), end: logEnd{offset: last}}
	if l.snap != nil {
		tr.end.seen(last, l.snap.LastContainedLogTimestamp())
	}
	if err := tr.run(l); err != nil {
		return nil, err
	}
	for ; tr.i < len(points); tr.i++ {
		if err := tr.end.check(path, points[tr.i]); err != nil {
			return nil, err
		}
		tr.capture()
	}
	return tr.out, nil
}

// OutsideError is ImageAt's error for a point outside the log: an offset
// past its last record, a time after its last batch's append time or
// before its first.
type OutsideError struct {
	Path  string
	Point Point
	// LastOffset and LastTime (milliseconds) are the last record's offset
	// and its batch's append time; FirstTime is the first batch's (or the
	// starting snapshot's) append time.
	LastOffset          int64
	FirstTime, LastTime int64
}

// Error names the point and the end of the log it is outside of.
func (e *OutsideError) Error() string {
	ms := func(t int64) string { return time.UnixMilli(t).UTC().Format(time.RFC3339Nano) }
	if t, ok := e.Point.Time(); ok && t.UnixMilli() < e.FirstTime {
		return fmt.Sprintf("%s: %s is before the log, which starts at %s", e.Path, e.Point, ms(e.FirstTime))
	}
	return fmt.Sprintf("%s: %s is past the end of the log: its last record is at offset %d, appended at %s", e.Path, e.Point, e.LastOffset, ms(e.LastTime))
}

// logEnd follows the first and last batch ImagesAt read (a starting
// snapshot counts as a batch at its last contained offset and time).
type logEnd struct {
	offset, first, last int64 // last offset; first and last append times
	any                 bool
}

func (e *logEnd) seen(offset, appendTime int64) {
	if !e.any {
		e.first, e.any = appendTime, true
	}
	e.offset, e.last = offset, appendTime
}

// before returns an *OutsideError for a time point before the first batch
// (b, when nothing was read before it).
func (e *logEnd) before(path string, p Point, b *metalog.Batch) error {
	if t, ok := p.Time(); ok && !e.any && t.UnixMilli() < b.AppendTime() {
		return &OutsideError{Path: path, Point: p, LastOffset: -1, FirstTime: b.AppendTime(), LastTime: b.AppendTime()}
	}
	return nil
}

// check returns an *OutsideError for a point past what was read (only
// called for the points no batch reached).
func (e *logEnd) check(path string, p Point) error {
	if o, ok := p.Offset(); ok && (o == math.MaxInt64 || o <= e.offset) {
		return nil
	}
	if t, ok := p.Time(); ok && e.any && t.UnixMilli() <= e.last {
		return nil
	}
	return &OutsideError{Path: path, Point: p, LastOffset: e.offset, FirstTime: e.first, LastTime: e.last}
}

// loadStart loads the snapshot l starts from, if any, into ld and returns
// the offset the loader is then at (-1 without a snapshot). A first point
// before the snapshot is an error: the log before it is gone.
func loadStart(ld *publisher.Loader, l *Log, first Point) (int64, error) {
	if l.snap == nil {
		return -1, nil
	}
	if o, ok := first.Offset(); ok && o < l.snap.LastContainedLogOffset() {
		return 0, fmt.Errorf("%s: cannot go back to offset %d: the snapshot already holds the log up to offset %d", l.snapshot, o, l.snap.LastContainedLogOffset())
	}
	if t, ok := first.Time(); ok && t.UnixMilli() < l.snap.LastContainedLogTimestamp() {
		return 0, fmt.Errorf("%s: cannot go back to %s: the snapshot already holds the log up to %s", l.snapshot, first, time.UnixMilli(l.snap.LastContainedLogTimestamp()).UTC().Format(time.RFC3339Nano))
	}
	if err := ld.LoadSnapshot(l.snap); err != nil {
		return 0, err
	}
	return l.snap.LastContainedLogOffset(), nil
}

// Contains reports whether the image at p holds a record at offset whose
// batch was appended at appendTime (milliseconds).
func (p Point) Contains(offset, appendTime int64) bool {
	if p.byTime {
		return appendTime <= p.time.UnixMilli()
	}
	return offset <= p.offset
}

// EachBatchUpTo calls fn for the log batches from Start up to the point at,
// in order, the last one cut just after the point (its entries after it
// left out), as ImageAt reads them. Read the snapshot first: a point
// before it is an error. A point outside the log (an offset past its last
// record, a time after its last batch or before its first) is an
// *OutsideError after the batches; End() is not outside.
func (l *Log) EachBatchUpTo(at Point, fn func(file string, b *metalog.Batch) error) error {
	end := logEnd{offset: -1}
	if l.snap != nil {
		o, ms := l.snap.LastContainedLogOffset(), l.snap.LastContainedLogTimestamp()
		if !at.Contains(o, ms) {
			return fmt.Errorf("%s: cannot go back to %s: the snapshot already holds the log up to offset %d", l.snapshot, at, o)
		}
		end.seen(o, ms)
	}
	err := l.eachBatch(func(file string, b *metalog.Batch) (bool, error) {
		if err := end.before(l.path, at, b); err != nil {
			return false, err
		}
		end.seen(b.LastOffset(), b.AppendTime())
		if !at.Contains(b.BaseOffset, b.AppendTime()) {
			return false, nil
		}
		if !at.Contains(b.LastOffset(), b.AppendTime()) {
			// Cut the batch after the point.
			cut := *b
			n := 0
			for n < len(cut.Entries) && at.Contains(cut.Entries[n].Offset, b.AppendTime()) {
				n++
			}
			cut.Entries = cut.Entries[:n]
			cut.LastOffsetDelta = int32(cut.Entries[n-1].Offset - b.BaseOffset)
			return false, fn(file, &cut)
		}
		return true, fn(file, b)
	})
	if err != nil {
		return err
	}
	if at.Contains(end.offset+1, end.last+1) {
		return end.check(l.path, at)
	}
	return nil
}
