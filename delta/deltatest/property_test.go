package deltatest

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kmeta-go/kmeta/image"

	"github.com/kmeta-go/kmeta/record/metalog"
)

var long = flag.Bool("kmeta.long", false, "run the long randomized simulator tests")

// propertyMVs are the metadata versions the randomized tests run at: 3.2
// (Fence/UnfenceBrokerRecord), 3.5 (ISR-shrink epoch bump), 3.7-IV4
// (directories), 4.0-IV3 (ELR off) and 4.1-IV1 (ELR on).
var propertyMVs = []image.MetadataVersion{image.MV3_0_IV1, image.MV3_5_IV2, image.MV3_7_IV4, image.MV4_0_IV3, image.MV4_1_IV1, image.MV4_3_IV0, image.MV4_4_IV2}

// TestRandomOperationsKeepInvariants: random operation sequences (seeded,
// the seed in the subtest name) reach only images that satisfy the
// invariants of checkInvariants, and the controller's own state always
// equals the image replayed through delta.Delta.
func TestRandomOperationsKeepInvariants(t *testing.T) {
	seeds, ops := 8, 150
	if testing.Short() {
		seeds, ops = 3, 80
	}
	if *long {
		seeds, ops = 200, 1500
	}
	for _, mv := range propertyMVs {
		for seed := range seeds {
			t.Run(fmt.Sprintf("mv=%s/seed=%d", mv, seed), func(t *testing.T) {
				s := MustNew(Config{MetadataVersion: mv, Seed: int64(seed)})
				if err := s.AddBrokers(4, "a", "b"); err != nil {
					t.Fatal(err)
				}
				prev := s.Image()
				rng := rand.New(rand.NewPCG(uint64(seed), uint64(mv)))
				// Before 4.0 a broker that re-registers (a new incarnation
				// after its session expired, before the controller's check
				// fenced it) keeps its old leaderships, fenced, until it is
				// unfenced: Kafka wrote no clean-up records then
				// (KAFKA-18106 added them in 4.0; the 3.2 corpus log shows it).
				staleLeaders := map[int32]bool{}
				randomOps(t, s, rng, ops, func(op string) {
					img := s.Image()
					var id int32
					if _, err := fmt.Sscanf(op, "register %d", &id); err == nil && s.Release() < Kafka40 {
						if b, ok := prev.Cluster().Broker(id); ok && !b.Fenced() {
							staleLeaders[id] = true
						}
					}
					for id := range staleLeaders {
						if b, ok := img.Cluster().Broker(id); !ok || !b.Fenced() {
							delete(staleLeaders, id)
						}
					}
					checkInvariants(t, prev, img, op, staleLeaders)
					checkControllerState(t, s, img, op)
					prev = img
				})
			})
		}
	}
}

// checkControllerState: the simulator's controller state (what it decides
// from) equals the image a broker builds from its records.
func checkControllerState(t testing.TB, s *Simulator, img *image.Image, op string) {
	t.Helper()
	if img.Topics().Len() != len(s.topics) {
		t.Fatalf("after %q: %d topics in the image, %d in the controller", op, img.Topics().Len(), len(s.topics))
	}
	for id, ct := range s.topics {
		it, ok := img.TopicByID(id)
		if !ok || it.Name() != ct.name || it.NumPartitions() != len(ct.parts) {
			t.Fatalf("after %q: topic %s differs", op, ct.name)
		}
		for i := range ct.parts {
			if ip := it.PartitionAt(i).Registration(); !ct.part(i).Equal(&ip) {
				t.Fatalf("after %q: %s-%d: controller %s, image %s", op, ct.name, i, ct.part(i).String(), it.PartitionAt(i).String())
			}
		}
	}
	if img.Cluster().NumBrokers() != len(s.brokers) {
		t.Fatalf("after %q: %d brokers in the image, %d in the controller", op, img.Cluster().NumBrokers(), len(s.brokers))
	}
	for id, b := range s.brokers {
		ib, ok := img.Cluster().Broker(id)
		if !ok || !ib.Equal(b.reg) {
			t.Fatalf("after %q: broker %d differs", op, id)
		}
	}
}

// opsOfSeed runs TestRandomOperationsKeepInvariants' case mv/seed and
// returns its operations and the log it wrote, batch by batch.
func opsOfSeed(t *testing.T, mv image.MetadataVersion, seed, ops int) (names []string, log [][]byte) {
	s := MustNew(Config{MetadataVersion: mv, Seed: int64(seed)})
	if err := s.AddBrokers(4, "a", "b"); err != nil {
		t.Fatal(err)
	}
	randomOps(t, s, rand.New(rand.NewPCG(uint64(seed), uint64(mv))), ops, func(op string) { names = append(names, op) })
	for _, b := range s.Batches() {
		raw, err := metalog.AppendDecoded(nil, &b)
		if err != nil {
			t.Fatal(err)
		}
		log = append(log, raw)
	}
	return names, log
}

// TestRandomOpsReproduceFromSeed: the seed in a subtest name of
// TestRandomOperationsKeepInvariants is all it takes to replay it: one
// seed run twice gives the same operations and the same log, byte for
// byte; another seed gives other operations.
func TestRandomOpsReproduceFromSeed(t *testing.T) {
	for _, mv := range []image.MetadataVersion{image.MV3_5_IV2, image.MV4_4_IV2} {
		opsA, logA := opsOfSeed(t, mv, 3, 150)
		opsB, logB := opsOfSeed(t, mv, 3, 150)
		if !slices.Equal(opsA, opsB) {
			t.Fatalf("mv=%s/seed=3 ran twice gave two operation sequences", mv)
		}
		if !slices.EqualFunc(logA, logB, bytes.Equal) {
			t.Fatalf("mv=%s/seed=3 ran twice wrote two logs", mv)
		}
		if opsC, _ := opsOfSeed(t, mv, 4, 150); slices.Equal(opsA, opsC) {
			t.Fatalf("mv=%s: seeds 3 and 4 gave one operation sequence", mv)
		}
	}
}
