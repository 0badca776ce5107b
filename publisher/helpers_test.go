package publisher

import (
	"fmt"
	"sync"
	"testing"

	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

// Record builders for the tests.

func topicID(n int) record.UUID {
	return record.UUID{0x10, byte(n >> 8), byte(n), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}
}

func topicRec(name string, n int) *record.TopicRecord {
	r := record.NewTopicRecord()
	r.Name, r.TopicID = name, topicID(n)
	return r
}

func partRec(n int, p int32, leader int32) *record.PartitionRecord {
	r := record.NewPartitionRecord()
	r.TopicID, r.PartitionID = topicID(n), p
	r.Replicas = []int32{0, 1, 2}
	r.ISR = []int32{0, 1, 2}
	r.RemovingReplicas, r.AddingReplicas = []int32{}, []int32{}
	r.Leader = leader
	return r
}

func leaderChange(n int, p int32, leader int32) *record.PartitionChangeRecord {
	r := record.NewPartitionChangeRecord()
	r.TopicID, r.PartitionID, r.Leader = topicID(n), p, leader
	return r
}

func removeTopic(n int) *record.RemoveTopicRecord {
	r := record.NewRemoveTopicRecord()
	r.TopicID = topicID(n)
	return r
}

func configRec(topic, key, value string) *record.ConfigRecord {
	r := record.NewConfigRecord()
	r.ResourceType, r.ResourceName, r.Name = 2, topic, key
	r.Value = &value
	return r
}

func begin() record.Record { return record.NewBeginTransactionRecord() }
func end() record.Record   { return record.NewEndTransactionRecord() }
func abort() record.Record { return record.NewAbortTransactionRecord() }

// feed builds consecutive batches.
type feed struct {
	next  int64
	epoch int32
	time  int64
}

func (f *feed) batch(recs ...record.Record) record.Batch {
	b := record.Batch{BaseOffset: f.next, LeaderEpoch: f.epoch, AppendTime: f.time, Records: versioned(recs...)}
	f.next += int64(len(recs))
	f.time++
	return b
}

func (f *feed) control(cs ...record.ControlRecord) record.Batch {
	b := record.Batch{BaseOffset: f.next, LeaderEpoch: f.epoch, AppendTime: f.time, Control: cs}
	f.next += int64(len(cs))
	f.time++
	return b
}

// update is one OnUpdate call as a recorder saw it.
type update struct {
	img      *image.Image
	manifest Manifest
	topics   delta.TopicChanges
	created  []string // names of topics the delta creates
}

// recorder is a publisher that records its updates.
type recorder struct {
	name    string
	mu      sync.Mutex
	updates []update
	closed  int
	onUp    func(*recorder, Changes, *image.Image, Manifest) error
	leaders []LeaderAndEpoch
}

func newRecorder(name string) *recorder { return &recorder{name: name} }

func (r *recorder) Name() string { return r.name }
func (r *recorder) OnUpdate(up Update) error {
	d, img, m := up.Changes, up.Image, up.Manifest
	u := update{img: img, manifest: m, topics: d.Topics()}
	for _, id := range u.topics.Created {
		if t, ok := img.TopicByID(id); ok {
			u.created = append(u.created, t.Name())
		}
	}
	r.mu.Lock()
	r.updates = append(r.updates, u)
	r.mu.Unlock()
	if r.onUp != nil {
		return r.onUp(r, d, img, m)
	}
	return nil
}
func (r *recorder) Close() error { r.mu.Lock(); r.closed++; r.mu.Unlock(); return nil }
func (r *recorder) OnControllerChange(le LeaderAndEpoch) {
	r.mu.Lock()
	r.leaders = append(r.leaders, le)
	r.mu.Unlock()
}

func (r *recorder) all() []update {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]update(nil), r.updates...)
}

func (r *recorder) offsets() []int64 {
	var out []int64
	for _, u := range r.all() {
		out = append(out, u.manifest.Provenance.LastContainedOffset)
	}
	return out
}

func (r *recorder) last() update {
	u := r.all()
	if len(u) == 0 {
		return update{}
	}
	return u[len(u)-1]
}

func topicNames(img *image.Image) []string {
	var out []string
	if img == nil {
		return nil
	}
	for t := range img.Topics().All() {
		out = append(out, t.Name())
	}
	return sortStrings(out)
}

func sortStrings(s []string) []string {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s
}

func leaderOf(t testing.TB, img *image.Image, name string, p int32) (int32, int32) {
	t.Helper()
	tp, ok := img.Topic(name)
	if !ok {
		t.Fatalf("no topic %s", name)
	}
	part, ok := tp.Partition(p)
	if !ok {
		t.Fatalf("no partition %s-%d", name, p)
	}
	return part.Leader(), part.LeaderEpoch()
}

// faults collects faults.
type faults struct {
	mu   sync.Mutex
	list []*Fault
}

func (f *faults) handler(_ *Loader, x *Fault) { f.mu.Lock(); f.list = append(f.list, x); f.mu.Unlock() }
func (f *faults) kinds() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, x := range f.list {
		out = append(out, fmt.Sprintf("%s@%d", x.Kind, x.Offset))
	}
	return out
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// versioned gives records the versions a batch carries: each at its highest
// version (the loader does not read them).
func versioned(recs ...record.Record) []record.VersionedRecord {
	out := make([]record.VersionedRecord, len(recs))
	for i, r := range recs {
		out[i] = record.VersionedRecord{Record: r}
		if r != nil {
			out[i].Version = r.HighestVersion()
		}
	}
	return out
}
