package dirfollow_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kmeta-go/kmeta/delta/deltatest/kafkalog"
	"github.com/kmeta-go/kmeta/publisher"
	"github.com/kmeta-go/kmeta/publisher/dirfollow"
	"github.com/kmeta-go/kmeta/record"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// faultLog is a loader whose fault handler, Fault hook and stats are
// watched.
type faultLog struct {
	l       *publisher.Loader
	handled []*publisher.Fault
	hooked  int
}

func newFaultLog() *faultLog {
	f := &faultLog{}
	f.l = publisher.NewLoader(publisher.Config{
		Hooks:        publisher.Hooks{Fault: func(*publisher.Fault) { f.hooked++ }},
		FaultHandler: func(_ *publisher.Loader, ft *publisher.Fault) { f.handled = append(f.handled, ft) },
	})
	return f
}

// TestLoadReportsSkippedRecords: a PartitionRecord naming a topic the image
// does not have is rejected by the delta (TopicsDelta.replay), skipped by
// the loader (Skip mode, as a broker does) and reported: to the fault
// handler and the Fault hook, in Stats.ReplayErrors, and to Load's caller
// as a *dirfollow.RecordError naming the segment, the batch's byte position
// and the record's offset.
func TestLoadReportsSkippedRecords(t *testing.T) {
	dir := t.TempDir()
	seg, err := metalog.CreateSegment(metalog.OS{}, dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := seg.AppendData(1, 1000, topic(t, "a", 1)...); err != nil {
		t.Fatal(err)
	}
	orphan := topic(t, "b", 2)[1] // its TopicRecord is missing
	if _, err := seg.AppendData(1, 1001, orphan); err != nil {
		t.Fatal(err)
	}
	seg.Close()
	f := newFaultLog()
	err = dirfollow.Load(f.l, dir)
	var le *dirfollow.LoadError
	if !errors.As(err, &le) || le.Count != 1 {
		t.Fatalf("Load returned %v, want a LoadError with one problem", err)
	}
	var re *dirfollow.RecordError
	if !errors.As(le.Problems[0], &re) || re.Offset != 2 || re.Position <= 0 || filepath.Base(re.File) != metalog.SegmentName(0) {
		t.Fatalf("problem %v", le.Problems[0])
	}
	if len(f.handled) != 1 || f.handled[0].Kind != publisher.FaultReplay || f.hooked != 1 || f.l.Stats().ReplayErrors != 1 {
		t.Errorf("fault handler %v, hook %d, stats %+v", f.handled, f.hooked, f.l.Stats())
	}
	if img, _ := f.l.Watch(); img == nil || img.Topics().Len() != 1 {
		t.Errorf("the image of what loaded was not published: %v", img)
	}
}

// TestLoadReportsDamage: a damaged batch (bad CRC) stops Load with a
// *metalog.CorruptionError naming file, byte position and offset; the
// loader's fault handler gets it as a FaultRead, counted in
// Stats.ReadErrors and by the Fault hook.
func TestLoadReportsDamage(t *testing.T) {
	dir := t.TempDir()
	seg, err := metalog.CreateSegment(metalog.OS{}, dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := seg.AppendData(1, int64(i), topic(t, fmt.Sprint(i), byte(i+1))...); err != nil {
			t.Fatal(err)
		}
	}
	seg.Close()
	p := filepath.Join(dir, metalog.SegmentName(0))
	b, _ := os.ReadFile(p)
	b[len(b)-1] ^= 0xff // the last batch's last byte
	os.WriteFile(p, b, 0o644)
	f := newFaultLog()
	err = dirfollow.Load(f.l, dir)
	var ce *metalog.CorruptionError
	if !errors.As(err, &ce) || !errors.Is(err, record.ErrCorrupt) || ce.Offset != 4 || ce.Position == 0 || ce.File != p {
		t.Fatalf("Load returned %v", err)
	}
	if len(f.handled) != 1 || f.handled[0].Kind != publisher.FaultRead || f.handled[0].Offset != 4 || f.hooked != 1 || f.l.Stats().ReadErrors != 1 {
		t.Errorf("fault handler %v, hook %d, stats %+v", f.handled, f.hooked, f.l.Stats())
	}
}

// TestLoadTailNotInNewestSegment: a batch cut short at the end of a segment
// that a later segment follows is damage (Kafka appends only to the active
// segment), not an append in progress.
func TestLoadTailNotInNewestSegment(t *testing.T) {
	dir := t.TempDir()
	seg, err := metalog.CreateSegment(metalog.OS{}, dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := seg.AppendData(1, 1000, topic(t, "a", 1)...); err != nil {
		t.Fatal(err)
	}
	seg.Close()
	p := filepath.Join(dir, metalog.SegmentName(0))
	b, _ := os.ReadFile(p)
	os.WriteFile(p, b[:len(b)-5], 0o644)
	seg2, err := metalog.CreateSegment(metalog.OS{}, dir, 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := seg2.AppendData(1, 1001, topic(t, "b", 2)...); err != nil {
		t.Fatal(err)
	}
	seg2.Close()
	err = dirfollow.Load(publisher.NewLoader(publisher.Config{FaultHandler: func(*publisher.Loader, *publisher.Fault) {}}), dir)
	if !errors.Is(err, record.ErrCorrupt) || errors.Is(err, metalog.ErrIncompleteTail) || !strings.Contains(err.Error(), "cut short") {
		t.Fatalf("Load returned %v, want damage", err)
	}
}

// TestLoadTailLeftOut: a batch cut short at the end of the newest segment
// is left out, and Load says so: file, byte position, offset and the number
// of bytes left out.
func TestLoadTailLeftOut(t *testing.T) {
	dir := t.TempDir()
	seg, err := metalog.CreateSegment(metalog.OS{}, dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := seg.AppendData(1, 1000, topic(t, "a", 1)...); err != nil {
		t.Fatal(err)
	}
	end := seg.NextOffset()
	if _, err := seg.AppendData(1, 1001, topic(t, "b", 2)...); err != nil {
		t.Fatal(err)
	}
	seg.Close()
	p := filepath.Join(dir, metalog.SegmentName(0))
	b, _ := os.ReadFile(p)
	os.WriteFile(p, b[:len(b)-5], 0o644)
	err = dirfollow.Load(publisher.NewLoader(publisher.Config{}), dir)
	var le *dirfollow.LoadError
	var ce *metalog.CorruptionError
	if !errors.As(err, &le) || !errors.As(le.Problems[0], &ce) || !errors.Is(err, metalog.ErrIncompleteTail) || ce.Offset != end || ce.File != p {
		t.Fatalf("Load returned %v", err)
	}
	if !strings.Contains(err.Error(), "batch cut short") || !strings.Contains(err.Error(), "bytes left out") {
		t.Errorf("message %q", err)
	}
}

// TestFollowReportsDamageOnce: damage that a fresh read finds again is
// reported once (to OnError and the fault handler), the last good image
// stays published, and the directory is not read again until it changes;
// once the damaged segment is rewritten, Follow goes on.
func TestFollowReportsDamageOnce(t *testing.T) {
	dir := t.TempDir()
	seg, err := metalog.CreateSegment(metalog.OS{}, dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := seg.AppendData(1, 1000, topic(t, "a", 1)...); err != nil {
		t.Fatal(err)
	}
	if _, err := seg.AppendData(1, 1001, topic(t, "b", 2)...); err != nil {
		t.Fatal(err)
	}
	seg.Close()
	whole, _ := os.ReadFile(seg.Path())
	damaged := append([]byte(nil), whole...)
	damaged[len(damaged)-1] ^= 0xff
	os.WriteFile(seg.Path(), damaged, 0o644)

	var mu sync.Mutex
	var reported []error
	f := newFaultLog()
	cache := publisher.NewCache("")
	f.l.Install(cache)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- dirfollow.Follow(ctx, f.l, dir, dirfollow.Options{Poll: time.Millisecond, MaxPoll: 5 * time.Millisecond, OnError: func(err error) {
			mu.Lock()
			reported = append(reported, err)
			mu.Unlock()
		}})
	}()
	time.Sleep(300 * time.Millisecond) // ~60 polls
	mu.Lock()
	n := len(reported)
	var first error
	if n > 0 {
		first = reported[0]
	}
	mu.Unlock()
	if n != 1 || !errors.Is(first, record.ErrCorrupt) || !strings.Contains(first.Error(), seg.Path()) {
		t.Fatalf("reported %d errors, first %v; want the damage once", n, first)
	}
	if img := cache.Load(); img == nil || img.Topics().Len() != 1 {
		t.Errorf("the last good image is not served: %v", img)
	}
	// Rewritten whole.
	os.WriteFile(seg.Path(), whole, 0o644)
	deadline := time.Now().Add(stepLimit)
	for cache.Load().Topics().Len() != 2 {
		if time.Now().After(deadline) {
			t.Fatal("Follow did not go on after the segment was repaired")
		}
		time.Sleep(2 * time.Millisecond)
	}
	cancel()
	<-done
}

// offsets records the offset of every image published to it.
type offsets struct {
	mu  sync.Mutex
	got []int64
}

func (o *offsets) Name() string { return "offsets" }
func (o *offsets) Close() error { return nil }
func (o *offsets) OnUpdate(u publisher.Update) error {
	o.mu.Lock()
	o.got = append(o.got, u.Image.Provenance().LastContainedOffset)
	o.mu.Unlock()
	return nil
}

// TestLoadThenFollowNeverGoesBack: Follow on a loader that Load already
// fed from the same directory (what examples/proxy -follow does) goes on
// from the loader's offset: no image older than one already published is
// published again.
func TestLoadThenFollowNeverGoesBack(t *testing.T) {
	dir := filepath.Join(t.TempDir(), metalog.MetadataPartitionDir)
	c := newCluster(t, 3)
	w, err := kafkalog.Create(dir, 0, kafkalog.Config{SegmentBytes: 2 << 10})
	must(t, err)
	defer w.Close()
	c.churn(t, 10, "a")
	c.write(t, w)
	mustSnapshot(t, w, c)
	c.churn(t, 5, "b")
	c.write(t, w)

	l := publisher.NewLoader(publisher.Config{})
	defer l.Close()
	o := &offsets{}
	must(t, l.Install(o))
	must(t, dirfollow.Load(l, dir))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- dirfollow.Follow(ctx, l, dir, dirfollow.Options{Poll: time.Millisecond, MaxPoll: 5 * time.Millisecond})
	}()
	c.churn(t, 3, "c")
	c.write(t, w)
	end := w.EndOffset() - 1
	wctx, wcancel := context.WithTimeout(ctx, stepLimit)
	defer wcancel()
	if _, err := l.WaitForOffset(wctx, end); err != nil {
		t.Fatal(err)
	}
	cancel()
	<-done
	o.mu.Lock()
	defer o.mu.Unlock()
	for i := 1; i < len(o.got); i++ {
		if o.got[i] < o.got[i-1] {
			t.Fatalf("published offsets went back: %v", o.got)
		}
	}
}

// TestLoadReportsDamagedSnapshot: a snapshot that cannot be read (here cut
// short, so without its SnapshotFooterRecord) is an error of Load naming
// the file, and reaches the fault handler as a FaultRead.
func TestLoadReportsDamagedSnapshot(t *testing.T) {
	dir := filepath.Join(t.TempDir(), metalog.MetadataPartitionDir)
	c := newCluster(t, 3)
	w, err := kafkalog.Create(dir, 0, kafkalog.Config{})
	must(t, err)
	defer w.Close()
	c.churn(t, 4, "a")
	c.write(t, w)
	id := mustSnapshot(t, w, c)
	p := filepath.Join(dir, id.FileName())
	b, _ := os.ReadFile(p)
	os.WriteFile(p, b[:len(b)-20], 0o644)
	f := newFaultLog()
	err = dirfollow.Load(f.l, dir)
	if !errors.Is(err, record.ErrCorrupt) || !strings.Contains(err.Error(), id.FileName()) {
		t.Fatalf("Load returned %v", err)
	}
	if len(f.handled) != 1 || f.handled[0].Kind != publisher.FaultRead || f.l.Stats().ReadErrors != 1 {
		t.Errorf("fault handler %v, stats %+v", f.handled, f.l.Stats())
	}
}
