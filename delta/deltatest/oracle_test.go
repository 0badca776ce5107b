package deltatest

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/internal/sharedtest"
	"github.com/kmeta-go/kmeta/record"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// The oracle: Kafka's own controller. Every batch of the corpus logs that
// changes a broker's state (BrokerRegistrationChangeRecord fencing,
// unfencing or entering controlled shutdown; Fence/UnfenceBrokerRecord in
// the 3.2 logs) is split into operations (QuorumController's
// raft packs several operations into one batch; an operation is a contiguous
// run of records) and for each broker event the simulator, started from the
// image just before the event (FromImage), performs the same event. Its
// records must equal Kafka's as a set (the order of PartitionChangeRecords
// inside one operation follows the controller's TimelineHashMap history,
// which the simulator's canonical mode does not reproduce).

type eventKind int

const (
	notAnEvent eventKind = iota
	evFence
	evUnfence
	evShutdown
)

func (k eventKind) String() string {
	return [...]string{"-", "fence", "unfence", "controlled-shutdown"}[k]
}

// classify says which broker event a record announces, and for which broker.
func classify(r record.Record) (eventKind, int32) {
	switch r := r.(type) {
	case *record.FenceBrokerRecord:
		return evFence, r.ID
	case *record.UnfenceBrokerRecord:
		return evUnfence, r.ID
	case *record.BrokerRegistrationChangeRecord:
		switch {
		case r.Fenced == 1:
			return evFence, r.BrokerID
		case r.Fenced == -1:
			return evUnfence, r.BrokerID
		case r.InControlledShutdown == 1:
			return evShutdown, r.BrokerID
		}
	}
	return notAnEvent, 0
}

func isPCR(r record.Record) bool { _, ok := r.(*record.PartitionChangeRecord); return ok }

// corpusLog is a segment with what comes before it: earlier segments of
// the same directory, or a snapshot that starts inside it.
type corpusLog struct {
	name     string
	segment  string
	earlier  []string
	snapshot string
}

// corpusLogs lists the segments of every corpus folder (kraft, kraft-2,
// kraft-4.3; the Kafka 4.3 folder holds snapshots only).
func corpusLogs(t *testing.T) []corpusLog {
	var out []corpusLog
	for _, folder := range sharedtest.CorpusFolders(t) {
		out = append(out, folderLogs(t, folder.Name, folder.Root)...)
	}
	return out
}

func folderLogs(t *testing.T, name, root string) []corpusLog {
	var segs []string
	err := filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err == nil && strings.HasSuffix(p, metalog.SegmentSuffix) {
			segs = append(segs, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(segs)
	var out []corpusLog
	for _, seg := range segs {
		l := corpusLog{name: name + "/" + strings.TrimPrefix(seg, root+"/"), segment: seg}
		base, _ := metalog.ParseSegmentName(filepath.Base(seg))
		if base > 0 {
			others, _ := filepath.Glob(filepath.Join(filepath.Dir(seg), "*"+metalog.SegmentSuffix))
			sort.Strings(others)
			for _, o := range others {
				if ob, _ := metalog.ParseSegmentName(filepath.Base(o)); ob < base {
					l.earlier = append(l.earlier, o)
				}
			}
			first := base
			if len(l.earlier) > 0 {
				first, _ = metalog.ParseSegmentName(filepath.Base(l.earlier[0]))
			}
			if first > 0 {
				// The log does not start at 0: start from a snapshot, as a
				// broker does. The latest one within the earlier segments
				// when there is one (they are replayed from its offset
				// on; a snapshot below the first segment leaves a gap),
				// else the latest (it starts inside this segment; the
				// events before it are skipped).
				snaps, _ := filepath.Glob(filepath.Join(filepath.Dir(seg), "*"+metalog.SnapshotSuffix))
				sort.Strings(snaps)
				for _, sn := range snaps {
					if id, err := metalog.ParseSnapshotName(filepath.Base(sn)); err == nil && id.EndOffset >= first && id.EndOffset <= base {
						l.snapshot = sn
					}
				}
				if l.snapshot == "" && len(snaps) > 0 {
					l.snapshot, l.earlier = snaps[len(snaps)-1], nil
				}
			}
		}
		out = append(out, l)
	}
	return out
}

// logReplayer replays Kafka's records into a delta, applying it whenever an
// image is needed.
type logReplayer struct {
	t    *testing.T
	img  *image.Image
	d    *delta.Delta
	prov image.Provenance
}

func (l *logReplayer) replay(recs ...record.Record) {
	l.t.Helper()
	for _, r := range recs {
		if err := l.d.Replay(r); err != nil {
			l.t.Fatalf("replaying Kafka's record: %v", err)
		}
	}
}

func (l *logReplayer) image() *image.Image {
	l.t.Helper()
	img, err := l.d.Apply(l.prov)
	if err != nil {
		l.t.Fatal(err)
	}
	l.img, l.d = img, delta.New(img)
	return img
}

func readBatches(t *testing.T, path string, fn func(b *metalog.Batch, recs []metalog.DecodedRecord)) {
	t.Helper()
	r, err := metalog.OpenSegment(metalog.OS{}, path, metalog.Finished)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for {
		b, err := r.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if b.IsControl() {
			continue
		}
		recs, err := b.DecodeRecords()
		if err != nil {
			t.Fatal(err)
		}
		fn(b, recs)
	}
}

func loadSnapshot(t *testing.T, path string) *image.Image {
	t.Helper()
	sr, err := metalog.OpenSnapshot(metalog.OS{}, path)
	if err != nil {
		t.Fatal(err)
	}
	defer sr.Close()
	d := delta.NewSnapshot(image.Empty())
	var last *metalog.Batch
	for {
		b, err := sr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if b.IsControl() {
			continue
		}
		recs, err := b.DecodeRecords()
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			if err := d.Replay(r.Record); err != nil {
				t.Fatal(err)
			}
		}
		last = b
	}
	d.FinishSnapshot()
	id, err := metalog.ParseSnapshotName(filepath.Base(path))
	if err != nil {
		t.Fatal(err)
	}
	p := image.Provenance{LastContainedOffset: id.EndOffset - 1, LastContainedEpoch: id.Epoch, BatchAligned: true}
	if last != nil {
		p.LastContainedLogTimeMs = last.AppendTime()
	}
	img, err := d.Apply(p)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func recordSet(t *testing.T, recs []image.VersionedRecord) []string {
	t.Helper()
	out := make([]string, 0, len(recs))
	for _, r := range recs {
		b, err := record.AppendEnvelopeJSON(nil, r.Record, r.Version)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	slices.Sort(out)
	return out
}

type oracleStats struct {
	checked  map[eventKind]int
	skipped  int
	pcrs     int
	mismatch int
}

// TestCorpusBrokerEventsMatchKafkaController: for every broker event of the
// corpus logs, the simulator writes the PartitionChangeRecords (and the
// broker record) Kafka's QuorumController wrote (ReplicationControlManager
// .handleBrokerFenced, handleBrokerUnfenced, handleBrokerInControlledShutdown
// and PartitionChangeBuilder).
func TestCorpusBrokerEventsMatchKafkaController(t *testing.T) {
	total := 0
	for _, cl := range corpusLogs(t) {
		t.Run(cl.name, func(t *testing.T) {
			st := checkLog(t, cl)
			n := st.checked[evFence] + st.checked[evUnfence] + st.checked[evShutdown]
			total += n
			t.Logf("%s: %d events checked (fence %d, unfence %d, controlled shutdown %d; %d PartitionChangeRecords), %d skipped (before the first image this file allows)",
				cl.name, n, st.checked[evFence], st.checked[evUnfence], st.checked[evShutdown], st.pcrs, st.skipped)
		})
	}
	t.Logf("corpus: %d broker events checked", total)
	if total < 100 {
		t.Errorf("only %d broker events checked; the corpus holds about 130 batches of them", total)
	}
}

func checkLog(t *testing.T, cl corpusLog) oracleStats {
	st := oracleStats{checked: map[eventKind]int{}}
	l := &logReplayer{t: t, img: image.Empty(), prov: image.EmptyProvenance}
	from := int64(-1)
	if cl.snapshot != "" {
		l.img = loadSnapshot(t, cl.snapshot)
		l.prov = l.img.Provenance()
		from = l.prov.LastContainedOffset + 1
	}
	l.d = delta.New(l.img)
	for _, e := range cl.earlier {
		readBatches(t, e, func(b *metalog.Batch, recs []metalog.DecodedRecord) {
			for _, r := range recs {
				if r.Offset >= from {
					l.replay(r.Record)
				}
			}
			if b.LastOffset() >= from {
				l.prov = provOf(b)
			}
		})
	}
	readBatches(t, cl.segment, func(b *metalog.Batch, recs []metalog.DecodedRecord) {
		if b.BaseOffset < from {
			for _, r := range recs {
				if k, _ := classify(r.Record); k != notAnEvent {
					st.skipped++
				}
			}
			return
		}
		checkBatch(t, l, b, recs, &st)
		l.prov = provOf(b)
	})
	return st
}

func provOf(b *metalog.Batch) image.Provenance {
	return image.Provenance{LastContainedOffset: b.LastOffset(), LastContainedEpoch: b.PartitionLeaderEpoch,
		LastContainedLogTimeMs: b.AppendTime(), BatchAligned: true}
}

func checkBatch(t *testing.T, l *logReplayer, b *metalog.Batch, decoded []metalog.DecodedRecord, st *oracleStats) {
	t.Helper()
	recs := make([]record.Record, len(decoded))
	for i, d := range decoded {
		recs[i] = d.Record
	}
	n := len(recs)
	pcrRun := func(i int) int {
		for i < n && isPCR(recs[i]) {
			i++
		}
		return i
	}
	kindAt := func(i int) eventKind {
		if i >= n {
			return notAnEvent
		}
		k, _ := classify(recs[i])
		return k
	}
	for i := 0; i < n; {
		k, id := classify(recs[i])
		switch {
		case k == evUnfence || k == evShutdown:
			j := pcrRun(i + 1)
			want, sim := simulate(t, l.image(), k, id)
			end := j
			if kindAt(j) == evFence && len(want) < j-(i+1) {
				end = i + 1 + len(want) // the rest belong to the fencing that follows
			}
			compareEvent(t, b, decoded[i].Offset, k, id, sim, recs[i], decoded[i+1:end], want, decoded[i].Version, st)
			l.replay(recs[i:end]...)
			i = end
		case isPCR(recs[i]):
			j := pcrRun(i)
			if k2, id2 := classify(recsAt(recs, j)); k2 == evFence {
				want, sim := simulate(t, l.image(), evFence, id2)
				compareEvent(t, b, decoded[j].Offset, evFence, id2, sim, recs[j], decoded[i:j], want, decoded[j].Version, st)
				l.replay(recs[i : j+1]...)
				i = j + 1
			} else {
				l.replay(recs[i:j]...) // AlterPartition, elections: not broker events
				i = j
			}
		case k == evFence:
			want, sim := simulate(t, l.image(), evFence, id)
			compareEvent(t, b, decoded[i].Offset, evFence, id, sim, recs[i], nil, want, decoded[i].Version, st)
			l.replay(recs[i])
			i++
		default:
			l.replay(recs[i])
			i++
		}
	}
}

func recsAt(recs []record.Record, i int) record.Record {
	if i < len(recs) {
		return recs[i]
	}
	return record.NewNoOpRecord()
}

// simulate performs the event on a simulator started from img; it returns
// the PartitionChangeRecords and the simulator's full record list.
func simulate(t *testing.T, img *image.Image, k eventKind, id int32) ([]image.VersionedRecord, []image.VersionedRecord) {
	t.Helper()
	s, err := FromImage(img, Config{NoBootstrap: true})
	if err != nil {
		t.Fatal(err)
	}
	switch k {
	case evFence:
		err = s.FenceBroker(id)
	case evUnfence:
		err = s.UnfenceBroker(id)
	case evShutdown:
		err = s.BeginControlledShutdown(id)
	}
	if err != nil {
		t.Fatalf("%s of broker %d: %v", k, id, err)
	}
	var pcrs []image.VersionedRecord
	for _, r := range s.LastRecords() {
		if isPCR(r.Record) {
			pcrs = append(pcrs, r)
		}
	}
	return pcrs, s.LastRecords()
}

func compareEvent(t *testing.T, b *metalog.Batch, offset int64, k eventKind, id int32, sim []image.VersionedRecord,
	anchor record.Record, kafkaPCRs []metalog.DecodedRecord, simPCRs []image.VersionedRecord, anchorVersion int16, st *oracleStats) {
	t.Helper()
	st.checked[k]++
	st.pcrs += len(kafkaPCRs)
	v := int16(0)
	for _, r := range sim {
		if !isPCR(r.Record) {
			v = r.Version
		}
	}
	var kafka []image.VersionedRecord
	for _, r := range kafkaPCRs {
		kafka = append(kafka, image.VersionedRecord{Record: r.Record, Version: r.Version})
	}
	got, want := recordSet(t, simPCRs), recordSet(t, kafka)
	var anchorSim record.Record
	for _, r := range sim {
		if !isPCR(r.Record) {
			anchorSim = r.Record
		}
	}
	ga := recordSet(t, []image.VersionedRecord{{Record: anchorSim, Version: v}})
	wa := recordSet(t, []image.VersionedRecord{{Record: anchor, Version: anchorVersion}})
	if !slices.Equal(got, want) || !slices.Equal(ga, wa) {
		st.mismatch++
		if st.mismatch <= 3 {
			t.Errorf("batch %d, %s of broker %d at offset %d:\n kafka broker record %s\n sim   broker record %s\n kafka PCRs (%d):\n  %s\n sim PCRs (%d):\n  %s",
				b.BaseOffset, k, id, offset, wa, ga, len(want), strings.Join(want, "\n  "), len(got), strings.Join(got, "\n  "))
		}
	}
}
