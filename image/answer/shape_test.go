package answer

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/kafkaerr"
	"github.com/kmeta-go/kmeta/record"
)

// randomImage is a cluster of brokers 0-9 (10 and 11 are replicas but not
// registered), each with or without the PLAINTEXT listener, fenced or not,
// with or without log directories, and topics whose partitions have random
// replicas, ISR, leaders and directories: many more distinct assignments
// than the answer's tables hold, and many partitions sharing one.
func randomImage(t testing.TB, r *rand.Rand) *image.Image {
	t.Helper()
	dirs := []record.UUID{{1: 1}, {1: 2}, {1: 3}}
	brokers := map[int32]*image.Broker{}
	for id := int32(0); id < 10; id++ {
		br := record.NewRegisterBrokerRecord()
		br.BrokerID, br.BrokerEpoch, br.Fenced = id, 7, r.IntN(5) == 0
		br.EndPoints = []record.BrokerEndpoint{{Name: "INTERNAL", Host: "i" + strconv.Itoa(int(id)), Port: 9093}}
		if r.IntN(6) != 0 {
			br.EndPoints = append(br.EndPoints, record.BrokerEndpoint{Name: "PLAINTEXT", Host: "p" + strconv.Itoa(int(id)), Port: 9092})
		}
		if r.IntN(3) == 0 {
			br.LogDirs = []record.UUID{dirs[r.IntN(len(dirs))]}
		}
		b, err := image.NewBroker(br)
		if err != nil {
			t.Fatal(err)
		}
		brokers[id] = b
	}
	var ts []image.Topic
	for n := range 200 {
		id := record.UUID{0: byte(n), 1: byte(n >> 8), 15: 3}
		parts := make([]image.PartitionRegistration, 1+r.IntN(30))
		pool := r.IntN(4) // 0: every partition its own assignment
		var reps, isr []int32
		for p := range parts {
			pr := record.NewPartitionRecord()
			pr.PartitionID, pr.TopicID, pr.LeaderEpoch = int32(p), id, int32(r.IntN(9))
			if pool == 0 || p%pool == 0 {
				reps = nil
				for _, b := range r.Perm(12)[:1+r.IntN(5)] {
					reps = append(reps, int32(b))
				}
				isr = nil
				for _, b := range reps {
					if r.IntN(3) != 0 {
						isr = append(isr, b)
					}
				}
				r.Shuffle(len(isr), func(i, j int) { isr[i], isr[j] = isr[j], isr[i] })
			}
			pr.Replicas, pr.ISR = slices.Clone(reps), slices.Clone(isr)
			switch r.IntN(4) {
			case 0:
				pr.Leader = -1
			case 1:
				pr.Leader = int32(r.IntN(12))
			default:
				pr.Leader = reps[0]
			}
			if r.IntN(4) == 0 {
				for range reps {
					pr.Directories = append(pr.Directories, dirs[r.IntN(len(dirs))])
				}
			}
			var err error
			if parts[p], err = image.NewPartition(pr); err != nil {
				t.Fatal(err)
			}
		}
		ts = append(ts, topicOf(fmt.Sprintf("t%03d", n), id, parts))
	}
	return imageOf(t, brokers, ts)
}

// TestRandomImageReproducesFromSeed: the seed in a subtest name of
// TestMetadataPartitionsModel is all it takes to rebuild its image: one
// seed gives the same image twice, another seed another image.
func TestRandomImageReproducesFromSeed(t *testing.T) {
	lines := func(seed uint64) string {
		recs, err := randomImage(t, rand.New(rand.NewPCG(seed, 99))).Records(image.WriteOptions{OnLoss: func(string) error { return nil }})
		if err != nil {
			t.Fatal(err)
		}
		var b []byte
		for _, r := range recs {
			if b, err = record.AppendEnvelopeJSON(b, r.Record, r.Version); err != nil {
				t.Fatal(err)
			}
			b = append(b, '\n')
		}
		return string(b)
	}
	if a, b := lines(3), lines(3); a != b {
		t.Fatal("seed=3 gave two images")
	}
	if lines(3) == lines(4) {
		t.Fatal("seeds 3 and 4 gave one image")
	}
}

// referencePartition is KRaftMetadataCache.getPartitionMetadata for one
// partition, written out per partition from the image's accessors (the
// model the answer's shared per-assignment entries must agree with).
func referencePartition(img *image.Image, p image.Partition, listener string, v int16) kmsg.MetadataResponseTopicPartition {
	type state struct{ registered, hasEP, fenced bool }
	of := func(id int32) (state, *image.Broker) {
		b, ok := img.Cluster().Broker(id)
		if !ok {
			return state{}, nil
		}
		_, ep := b.Listener(listener)
		return state{true, ep, b.Fenced()}, b
	}
	alive := func(id int32) bool { s, _ := of(id); return s.registered && s.hasEP && !s.fenced }
	keep := func(l []int32) []int32 {
		if v != 0 {
			return l
		}
		out := []int32{}
		for _, x := range l {
			if alive(x) {
				out = append(out, x)
			}
		}
		return out
	}
	mp := kmsg.NewMetadataResponseTopicPartition()
	mp.Partition, mp.LeaderEpoch, mp.Leader = p.ID(), p.LeaderEpoch(), -1
	mp.Replicas, mp.ISR = keep(p.Replicas()), keep(p.ISR())
	mp.OfflineReplicas = []int32{}
	for i := 0; i < p.NumReplicas(); i++ {
		s, b := of(p.Replica(i))
		if !s.registered || !s.hasEP || s.fenced || !b.HasOnlineDir(p.Directory(i)) {
			mp.OfflineReplicas = append(mp.OfflineReplicas, p.Replica(i))
		}
	}
	switch s, _ := of(p.Leader()); {
	case !s.registered:
		mp.ErrorCode = int16(kafkaerr.LeaderNotAvailable)
	case !s.hasEP && v >= 6:
		mp.ErrorCode = int16(kafkaerr.ListenerNotFound)
	case !s.hasEP:
		mp.ErrorCode = int16(kafkaerr.LeaderNotAvailable)
	default:
		mp.Leader = p.Leader()
		if len(mp.Replicas) < p.NumReplicas() || len(mp.ISR) < p.NumISR() {
			mp.ErrorCode = int16(kafkaerr.ReplicaNotAvailable)
		}
	}
	return mp
}

// TestMetadataPartitionsModel: in all-topics and named-topic answers of
// random images at versions before and after each rule change, every
// partition entry equals the per-partition model, although the answer
// computes each distinct assignment once and shares equal id lists; every
// list is capped (appending to one never writes into another), and changing
// a list in place never reaches the image.
func TestMetadataPartitionsModel(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 99))
			img := randomImage(t, r)
			for _, v := range []int16{0, 1, 5, 6, 12} {
				for _, named := range []bool{false, true} {
					req := mdReq(v)
					if named {
						req = mdReq(v, "t007", "t150", "t042")
					}
					resp, _ := New(Config{}).Metadata(img, req, Request{Listener: "PLAINTEXT"})
					if len(resp.Topics) == 0 {
						t.Fatal("no topics")
					}
					for _, rt := range resp.Topics {
						tp, ok := img.Topic(*rt.Topic)
						if !ok || len(rt.Partitions) != tp.NumPartitions() {
							t.Fatalf("v%d %s: %d partitions", v, *rt.Topic, len(rt.Partitions))
						}
						for i := range rt.Partitions {
							got, want := rt.Partitions[i], referencePartition(img, tp.PartitionAt(i), "PLAINTEXT", v)
							if got.Partition != want.Partition || got.LeaderEpoch != want.LeaderEpoch || got.Leader != want.Leader ||
								got.ErrorCode != want.ErrorCode || !slices.Equal(got.Replicas, want.Replicas) ||
								!slices.Equal(got.ISR, want.ISR) || !slices.Equal(got.OfflineReplicas, want.OfflineReplicas) {
								t.Fatalf("v%d %s-%d:\n got %+v\nwant %+v", v, *rt.Topic, i, got, want)
							}
							for _, l := range [][]int32{got.Replicas, got.ISR, got.OfflineReplicas} {
								if cap(l) != len(l) {
									t.Fatalf("v%d %s-%d: a list of length %d has capacity %d", v, *rt.Topic, i, len(l), cap(l))
								}
							}
						}
					}
					// Overwrite every list: the image must not change.
					before := img.Topics().Sorted()
					var wantReps [][]int32
					for _, tp := range before {
						for i := 0; i < tp.NumPartitions(); i++ {
							wantReps = append(wantReps, tp.PartitionAt(i).Replicas())
						}
					}
					for _, rt := range resp.Topics {
						for i := range rt.Partitions {
							for _, l := range [][]int32{rt.Partitions[i].Replicas, rt.Partitions[i].ISR} {
								for j := range l {
									l[j] = -7
								}
							}
						}
					}
					k := 0
					for _, tp := range before {
						for i := 0; i < tp.NumPartitions(); i++ {
							if !slices.Equal(tp.PartitionAt(i).Replicas(), wantReps[k]) {
								t.Fatalf("changing an answer changed the image")
							}
							k++
						}
					}
				}
			}
		})
	}
}

// TestBrokerTablesFollowImages: answers on many images and listeners at
// once (more pairs than the table cache holds, from several goroutines)
// each list exactly the brokers of their own image and listener, and a
// rack changed in one answer is not seen by the next.
func TestBrokerTablesFollowImages(t *testing.T) {
	t.Run("seed=3", testBrokerTablesFollowImages)
}

func testBrokerTablesFollowImages(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var imgs []*image.Image
	for range 6 {
		imgs = append(imgs, randomImage(t, r))
	}
	want := func(img *image.Image, listener string) []int32 {
		var ids []int32
		for b := range img.Cluster().Brokers() {
			if _, ok := b.Listener(listener); ok && !b.Fenced() {
				ids = append(ids, b.ID())
			}
		}
		return ids
	}
	resp := New(Config{}) // one Responder, its table cache shared by all
	done := make(chan error)
	for g := range 4 {
		go func() {
			for i := range 200 {
				img := imgs[(g+i)%len(imgs)]
				l := []string{"PLAINTEXT", "INTERNAL", "NONE"}[(g*7+i)%3]
				resp, _ := resp.Metadata(img, mdReq(12, "t001"), Request{Listener: l})
				var got []int32
				for _, b := range resp.Brokers {
					got = append(got, b.NodeID)
				}
				if !slices.Equal(got, want(img, l)) {
					done <- fmt.Errorf("image %d %s: brokers %v, want %v", (g+i)%len(imgs), l, got, want(img, l))
					return
				}
			}
			done <- nil
		}()
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	img := edgeImage(t)
	first, _ := resp.Metadata(img, mdReq(12), Request{Listener: "PLAINTEXT"})
	for i := range first.Brokers {
		if first.Brokers[i].Rack != nil {
			*first.Brokers[i].Rack = "changed"
		}
	}
	again, _ := resp.Metadata(img, mdReq(12), Request{Listener: "PLAINTEXT"})
	if again.Brokers[0].Rack == nil || *again.Brokers[0].Rack != "r1" {
		t.Fatalf("rack of broker %d: %v", again.Brokers[0].NodeID, again.Brokers[0].Rack)
	}
}
