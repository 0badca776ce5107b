package broker_test

import (
	"slices"
	"strconv"
	"testing"

	"github.com/kmeta-go/kmeta/broker"
	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/imagetest"
	"github.com/kmeta-go/kmeta/internal/kafkaoracle"
	"github.com/kmeta-go/kmeta/record"
)

type imagesVector struct {
	Image      imagetest.Spec `json:"image"`
	Selections []struct {
		Topic       string              `json:"topic"`
		Partition   int32               `json:"partition"`
		Local       int32               `json:"local"`
		States      map[string][3]int64 `json:"states"`
		LeaderLeo   int64               `json:"leaderLeo"`
		Rack        *string             `json:"rack"`
		Listener    string              `json:"listener"`
		ReplicaID   int32               `json:"replicaId"`
		FetchOffset int64               `json:"fetchOffset"`
		Now         int64               `json:"now"`
		Selected    *int32              `json:"selected"`
	} `json:"selections"`
	Stray   [][4]any `json:"stray"`
	Tracker struct {
		Ops         [][]any `json:"ops"`
		Refresh     []int32 `json:"refresh"`
		Errors      []int32 `json:"errors"`
		FaultMulti  *string `json:"faultMulti"`
		FaultSingle *string `json:"faultSingle"`
	} `json:"tracker"`
}

// TestKafkaPreferredReadReplica: ReplicaManager.findPreferredReadReplica
// with RackAwareReplicaSelector over Kafka's seeded images and replica
// states (client racks matching, missing or empty; followers out of the
// ISR, behind or ahead of the fetch offset, fenced, without the listener;
// ties in log end offset and catch-up time; fetches from followers and on
// a broker that does not lead) chooses what Kafka 4.4 chooses.
func TestKafkaPreferredReadReplica(t *testing.T) {
	var chosen, none int
	kafkaoracle.Decode(t, "broker-images", func(n int, v *imagesVector) {
		img := v.Image.Image(t)
		for _, s := range v.Selections {
			req := broker.ReadReplicaRequest{ReplicaID: s.ReplicaID, Listener: s.Listener, FetchOffset: s.FetchOffset,
				NowMs: s.Now, LeaderLogEndOffset: s.LeaderLeo}
			if s.Rack != nil {
				req.ClientRack = *s.Rack
			}
			for id, st := range s.States {
				b, _ := strconv.Atoi(id)
				req.Followers = append(req.Followers, broker.ReplicaState{BrokerID: int32(b), LogEndOffset: st[0], LogStartOffset: st[1], LastCaughtUpTimeMs: st[2]})
			}
			tp, _ := img.Topic(s.Topic)
			got, ok := broker.PreferredReadReplica(img, tp, s.Partition, s.Local, req)
			if ok != (s.Selected != nil) || (ok && got != *s.Selected) {
				t.Errorf("line %d: %s-%d at %d %+v: %d %v, Kafka %v", n, s.Topic, s.Partition, s.Local, req, got, ok, s.Selected)
			}
			if ok {
				chosen++
			} else {
				none++
			}
		}
	})
	if chosen == 0 || none == 0 {
		t.Fatalf("%d chosen, %d none: the vectors exercise too little", chosen, none)
	}
}

// TestKafkaStrayReplicas: BrokerMetadataPublisher's stray-log rule
// (LogManager.isStrayReplica over TopicsImage.partitionReplicas) for
// replicas, non-replicas, missing partitions and unknown topic ids equals
// Kafka's.
func TestKafkaStrayReplicas(t *testing.T) {
	kafkaoracle.Decode(t, "broker-images", func(n int, v *imagesVector) {
		img := v.Image.Image(t)
		for _, s := range v.Stray {
			id := imagetest.ParseID(t, s[0].(string))
			p, b := int32(s[1].(float64)), int32(s[2].(float64))
			if got := broker.IsStrayReplica(img, id, true, p, b); got != s[3].(bool) {
				t.Errorf("line %d: IsStrayReplica(%v, %d, %d) = %v, Kafka %v", n, id, p, b, got, s[3])
			}
		}
	})
	if !broker.IsStrayReplica(image.Empty(), record.UUID{}, false, 0, 1) {
		t.Error("a log without a topic id is stray")
	}
}

// trackerRecords are the records of the harness's tracker ops
// (BrokerImages.tracker): epochs 100+id for the image's brokers, 500+id
// for a registration in the delta.
func trackerRecords(t *testing.T, spec imagetest.Spec, ops [][]any) (recs []record.Record, touched map[int32]bool) {
	epochs := map[int32]int64{}
	for _, b := range spec.Brokers {
		epochs[b.ID] = 100 + int64(b.ID)
	}
	touched = map[int32]bool{}
	for _, op := range ops {
		if op[0] == "mv" {
			recs = append(recs, &record.FeatureLevelRecord{Name: image.MetadataVersionFeature, FeatureLevel: int16(op[1].(float64))})
			continue
		}
		id := int32(op[1].(float64))
		touched[id] = true
		switch op[0] {
		case "register":
			r := record.NewRegisterBrokerRecord()
			r.BrokerID, r.BrokerEpoch, r.IncarnationID, r.Fenced = id, 500+int64(id), record.UUIDFromBits(8, int64(id)), true
			r.LogDirs = []record.UUID{}
			if op[2].(bool) {
				r.LogDirs = []record.UUID{record.UUIDFromBits(1, int64(id))}
			}
			recs = append(recs, r)
			epochs[id] = 500 + int64(id)
		case "fence":
			r := &record.BrokerRegistrationChangeRecord{BrokerID: id, BrokerEpoch: epochs[id], Fenced: -1}
			if op[2].(bool) {
				r.Fenced = 1
			}
			recs = append(recs, r)
		case "dirs":
			recs = append(recs, &record.BrokerRegistrationChangeRecord{BrokerID: id, BrokerEpoch: epochs[id], LogDirs: []record.UUID{record.UUIDFromBits(2, int64(id))}})
		case "unregister":
			recs = append(recs, &record.UnregisterBrokerRecord{BrokerID: id, BrokerEpoch: epochs[id]})
			delete(epochs, id)
		default:
			t.Fatalf("unknown op %v", op)
		}
	}
	return recs, touched
}

// TestKafkaRegistrationTracker: BrokerRegistrationTracker for every broker
// id and MetadataVersionConfigValidator with one and several log
// directories, after seeded deltas (metadata.version changes,
// registrations with and without directories, fencing, directory changes,
// unregistrations) over Kafka's seeded images, decide as Kafka 4.4 does.
// Redundant fence records (as Kafka 4.x writes them) are among the ops, and
// so are brokers whose changes in the delta cancel out (fenced then
// unfenced), which Kafka's changedBrokers holds (BrokerChanges.Touched).
func TestKafkaRegistrationTracker(t *testing.T) {
	var refreshed, unchangedTouch, faults int // unchangedTouch: checked although their registration ends unchanged
	kafkaoracle.Decode(t, "broker-images", func(n int, v *imagesVector) {
		base := v.Image.Image(t)
		recs, touched := trackerRecords(t, v.Image, v.Tracker.Ops)
		d := delta.New(base)
		for _, r := range recs {
			if err := d.Replay(r); err != nil {
				t.Fatalf("line %d: %v", n, err)
			}
		}
		img, err := d.Apply(image.Provenance{LastContainedOffset: 1000, LastContainedEpoch: 1, BatchAligned: true})
		if err != nil {
			t.Fatal(err)
		}
		for id := int32(-1); id < 9; id++ {
			got, err := broker.TrackRegistration(d, img, id)
			want := slices.Contains(v.Tracker.Refresh, id)
			if (err != nil) != slices.Contains(v.Tracker.Errors, id) {
				t.Errorf("line %d: broker %d: error %v, Kafka errors %v", n, id, err, v.Tracker.Errors)
			}
			if got == want {
				if got {
					refreshed++
					if touched[id] && !slices.Contains(d.Brokers().Changed, id) {
						unchangedTouch++
					}
				}
				continue
			}
			t.Errorf("line %d: ops %v: broker %d refresh %v, Kafka %v", n, v.Tracker.Ops, id, got, want)
		}
		for _, c := range []struct {
			multi bool
			fault *string
		}{{false, v.Tracker.FaultSingle}, {true, v.Tracker.FaultMulti}} {
			err := broker.ValidateMetadataVersion(d, img, c.multi)
			if (err != nil) != (c.fault != nil) {
				t.Errorf("line %d: ops %v multi %v: %v, Kafka fault %v", n, v.Tracker.Ops, c.multi, err, c.fault)
			}
			if err != nil {
				faults++
			}
		}
	})
	t.Logf("%d refreshes (%d of brokers whose changes cancel out), %d faults", refreshed, unchangedTouch, faults)
	if refreshed == 0 || faults == 0 {
		t.Fatal("the vectors exercise too little")
	}
}
