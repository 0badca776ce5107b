package clientview

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kmeta-go/kmeta/record"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image/kafkaerr"
)

// fuzzBytes hands out the fuzzer's bytes, zeros once they run out.
type fuzzBytes struct {
	b []byte
	i int
}

func (f *fuzzBytes) next() byte {
	if f.i >= len(f.b) {
		return 0
	}
	f.i++
	return f.b[f.i-1]
}

func (f *fuzzBytes) pick(n int) int { return int(f.next()) % n }

func (f *fuzzBytes) done() bool { return f.i >= len(f.b) }

var (
	fuzzNames      = []string{"a", "b", "c", ""}
	fuzzTopicErrs  = []int16{0, 0, 0, kafkaerr.UnknownTopicOrPartition.Int16(), kafkaerr.LeaderNotAvailable.Int16(), kafkaerr.TopicAuthorizationFailed.Int16(), kafkaerr.UnknownTopicID.Int16()}
	fuzzPartErrs   = []int16{0, 0, kafkaerr.LeaderNotAvailable.Int16(), kafkaerr.NotLeaderOrFollower.Int16(), kafkaerr.ReplicaNotAvailable.Int16(), kafkaerr.KafkaStorageError.Int16()}
	fuzzVersions   = []int16{0, 1, 7, 8, 9, 10, 12, 12, 13}
	fuzzTopLevel13 = []int16{0, 0, 0, 129}
)

// fuzzAnswer builds one Metadata answer from the fuzzer's bytes: small sets
// of names, ids, partition ids, leaders and epochs, so that answers about
// the same partitions collide.
func fuzzAnswer(f *fuzzBytes) (*kmsg.MetadataResponse, MergeOptions) {
	r := kmsg.NewPtrMetadataResponse()
	r.Version = fuzzVersions[f.pick(len(fuzzVersions))]
	if r.Version >= 13 {
		r.ErrorCode = fuzzTopLevel13[f.pick(len(fuzzTopLevel13))]
	}
	r.ControllerID = int32(f.pick(4)) - 1
	for range f.pick(4) {
		b := kmsg.NewMetadataResponseBroker()
		b.NodeID, b.Host, b.Port = int32(f.pick(5)), fmt.Sprintf("h%d", f.pick(3)), 9092
		r.Brokers = append(r.Brokers, b)
	}
	for range f.pick(4) {
		t := kmsg.NewMetadataResponseTopic()
		if n := fuzzNames[f.pick(len(fuzzNames)+1)%len(fuzzNames)]; n != "" || f.pick(2) == 0 {
			t.Topic = &n
		}
		if r.Version >= 10 {
			if id := f.pick(4); id > 0 {
				t.TopicID = tid(byte(id))
			}
		}
		t.ErrorCode = fuzzTopicErrs[f.pick(len(fuzzTopicErrs))]
		t.IsInternal = f.pick(8) == 0
		for range f.pick(6) {
			p := kmsg.NewMetadataResponseTopicPartition()
			p.Partition = int32(f.pick(9)) - 1
			if f.pick(16) == 0 {
				p.Partition = 1 << 20 // far past the count: bad input
			}
			p.Leader = int32(f.pick(5)) - 1
			if r.Version >= 7 {
				p.LeaderEpoch = int32(f.pick(7)) - 1
			} else {
				p.LeaderEpoch = -1
			}
			p.ErrorCode = fuzzPartErrs[f.pick(len(fuzzPartErrs))]
			for range f.pick(4) {
				p.Replicas = append(p.Replicas, int32(f.pick(5)))
			}
			p.ISR = p.Replicas[:f.pick(len(p.Replicas)+1)]
			if f.pick(4) == 0 {
				p.OfflineReplicas = []int32{int32(f.pick(5))}
			}
			t.Partitions = append(t.Partitions, p)
		}
		r.Topics = append(r.Topics, t)
	}
	opts := MergeOptions{AllTopics: f.pick(3) == 0}
	if f.pick(2) == 0 {
		opts.Node, opts.HasNode = int32(f.pick(5)), true
	}
	return r, opts
}

// dumpView renders everything a View holds, to check that Merge never
// modifies its receiver.
func dumpView(v *View) string {
	var b strings.Builder
	fmt.Fprintf(&b, "c=%d r=%d b=%v\n", v.controller, v.refreshing, v.brokers)
	for t := range v.Topics() {
		fmt.Fprintf(&b, "%s %x e=%d r=%v g=%d s=%v ret=%v:", t.name, t.id, t.errorCode, t.refresh, t.gone, t.idStreak, t.retired)
		for p := range t.Partitions() {
			q := *p
			q.lists = nil // its contents, not its address
			fmt.Fprintf(&b, " %+v %v", q, p.allLists())
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// checkView checks a View's own consistency (viewInvariants, the check the
// invariants build tag runs after every Merge).
func checkView(t *testing.T, v *View) {
	t.Helper()
	if err := viewInvariants(v); err != nil {
		t.Fatal(err)
	}
}

// FuzzMerge merges sequences of answers built from the fuzzer's bytes into a
// view (and a KIP-951 hint now and then) and checks, after every step: no
// panic; the receiver is unchanged; the view is consistent (checkView); for
// every topic that keeps its id and was not reported deleted or recreated,
// no partition is dropped (the count never
// shrinks, kafka_ex#594) and no partition's SeenEpoch decreases unless the
// merge reported RewindAccepted for it (franz-go#119) — with rewinds
// disabled, never.
func FuzzMerge(f *testing.F) {
	f.Add([]byte{6, 2, 0, 1, 4, 1, 1, 0, 0, 1, 3, 2, 1, 1, 2, 2, 0, 0, 0})
	f.Add([]byte{8, 3, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23})
	f.Add([]byte("the quick brown fox jumps over the lazy dog, twice: the quick brown fox jumps"))
	f.Add([]byte{255, 254, 253, 252, 251, 250, 249, 248, 247, 246, 245, 244, 243, 242, 241, 240})
	f.Fuzz(func(t *testing.T, data []byte) {
		fb := &fuzzBytes{b: data}
		cfg := ViewConfig{RewindAfter: []int{0, 2, -1}[fb.pick(3)]}
		v := NewView(cfg)
		for step := 0; step < 12 && !fb.done(); step++ {
			before := dumpView(v)
			var next *View
			var rep Report
			if fb.pick(5) == 0 {
				h := Hint{Topic: fuzzNames[fb.pick(3)], Partition: int32(fb.pick(6)), ErrorCode: kafkaerr.NotLeaderOrFollower,
					LeaderID: int32(fb.pick(5)) - 1, LeaderEpoch: int32(fb.pick(8)) - 1}
				next, rep = v.ApplyHints([]Hint{h}, []Broker{NewBroker(h.LeaderID, "x", 1, nil)})
			} else {
				resp, opts := fuzzAnswer(fb)
				next, rep = v.Merge(resp, opts)
			}
			if after := dumpView(v); after != before {
				t.Fatalf("step %d modified the receiver:\n%s\nbecame\n%s", step, before, after)
			}
			checkView(t, next)
			rewound, ended := map[string]bool{}, map[string]bool{}
			for _, e := range rep.Events {
				if e.Kind == TopicDeleted || e.Kind == TopicRecreated {
					ended[e.Topic] = true // a new incarnation may follow in the same answer
				}
				if e.Kind == RewindAccepted {
					if cfg.RewindAfter < 0 {
						t.Fatalf("step %d: rewind accepted with rewinds disabled", step)
					}
					rewound[fmt.Sprintf("%s/%d", e.Topic, e.Partition)] = true
				}
			}
			for old := range v.tab.all() {
				name := old.name
				nt := next.tab.get(name)
				if nt == nil || ended[name] || (old.id != record.ZeroUUID && nt.id != old.id) {
					continue // deleted or recreated
				}
				if nt.NumPartitions() < old.NumPartitions() {
					t.Fatalf("step %d: %s shrank from %d to %d partitions", step, name, old.NumPartitions(), nt.NumPartitions())
				}
				for i := range old.parts {
					op, np := &old.parts[i], &nt.parts[i]
					if np.seenEpoch < op.seenEpoch && !rewound[fmt.Sprintf("%s/%d", name, i)] {
						t.Fatalf("step %d: %s/%d SeenEpoch went back %d → %d", step, name, i, op.seenEpoch, np.seenEpoch)
					}
				}
			}
			v = next
		}
	})
}
