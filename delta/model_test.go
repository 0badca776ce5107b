package delta

import (
	"bytes"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/imagetest"
	"github.com/kmeta-go/kmeta/record"
)

var long = flag.Bool("kmeta.long", false, "run the long randomized tests")

// model is the plain-map image the randomized test keeps beside the real one.
type model struct {
	topics   map[record.UUID]*mTopic
	brokers  map[int32]*mBroker
	configs  map[string]string // "type/name/key"
	quotas   map[string]float64
	acls     map[record.UUID]bool
	scram    map[image.ScramKey]int32
	tokens   map[string]int64
	pid      int64
	features map[string]int16
}

type mTopic struct {
	name  string
	parts []mPart
}

type mPart struct {
	replicas, isr  []int32
	leader, le, pe int32
}

type mBroker struct {
	epoch  int64
	fenced bool
}

// mvImage is an empty image at metadata.version 4.0-IV3, so that every
// record type can be written back.
func mvImage(t testing.TB) *image.Image {
	fl := record.NewFeatureLevelRecord()
	fl.Name, fl.FeatureLevel = image.MetadataVersionFeature, int16(image.MV4_0_IV3)
	_, img := build(t, nil, fl)
	return img
}

func newModel() *model {
	return &model{topics: map[record.UUID]*mTopic{}, brokers: map[int32]*mBroker{}, configs: map[string]string{},
		quotas: map[string]float64{}, acls: map[record.UUID]bool{}, scram: map[image.ScramKey]int32{},
		tokens: map[string]int64{}, pid: -1, features: map[string]int16{}}
}

// next returns a random record valid against m, and applies it to m.
func (m *model) next(r *rand.Rand, seq *int) record.Record {
	*seq++
	n := *seq
	var rec record.Record
	switch k := r.IntN(14); {
	case k <= 5:
		rec = m.nextTopicRecord(r, k, n)
	case k <= 7:
		rec = m.nextBrokerRecord(r, k, n)
	case k <= 9:
		rec = m.nextConfigRecord(r, k, n)
	default:
		rec = m.nextSecurityRecord(r, k, n)
	}
	if rec == nil {
		return record.NewNoOpRecord()
	}
	return rec
}

// Picks draw from r over sorted keys, never in Go's map order, so that a
// seed gives one stream (TestModelStreamReproducesFromSeed).

func (m *model) pickTopic(r *rand.Rand) (record.UUID, *mTopic, bool) {
	if len(m.topics) == 0 {
		return record.UUID{}, nil, false
	}
	ids := slices.SortedFunc(maps.Keys(m.topics), func(a, b record.UUID) int { return bytes.Compare(a[:], b[:]) })
	id := ids[r.IntN(len(ids))]
	return id, m.topics[id], true
}

func (m *model) pickBroker(r *rand.Rand) (int32, *mBroker, bool) {
	if len(m.brokers) == 0 {
		return 0, nil, false
	}
	ids := slices.Sorted(maps.Keys(m.brokers))
	id := ids[r.IntN(len(ids))]
	return id, m.brokers[id], true
}

// nextTopicRecord is choice k of 0..5: a topic, a partition, a partition
// change or a topic removal (nil when nothing applies).
func (m *model) nextTopicRecord(r *rand.Rand, k, n int) record.Record {
	switch k {
	case 0:
		id := record.UUID{byte(n), byte(n >> 8), byte(n >> 16), 0xAA}
		name := fmt.Sprintf("t%d", n)
		m.topics[id] = &mTopic{name: name}
		rec := record.NewTopicRecord()
		rec.Name, rec.TopicID = name, id
		return rec
	case 1, 2:
		if id, t, ok := m.pickTopic(r); ok {
			reps := []int32{int32(r.IntN(5)), int32(5 + r.IntN(5))}
			p := mPart{replicas: reps, isr: reps, leader: reps[0], le: 0, pe: 0}
			t.parts = append(t.parts, p)
			rec := record.NewPartitionRecord()
			rec.TopicID, rec.PartitionID = id, int32(len(t.parts)-1)
			rec.Replicas, rec.ISR, rec.RemovingReplicas, rec.AddingReplicas = reps, reps, []int32{}, []int32{}
			rec.Leader, rec.LeaderEpoch, rec.PartitionEpoch = reps[0], 0, 0
			return rec
		}
	case 3, 4:
		if id, t, ok := m.pickTopic(r); ok && len(t.parts) > 0 {
			i := r.IntN(len(t.parts))
			p := &t.parts[i]
			rec := record.NewPartitionChangeRecord()
			rec.TopicID, rec.PartitionID = id, int32(i)
			if r.IntN(2) == 0 {
				rec.ISR = p.replicas[:1:1]
				p.isr = rec.ISR
			}
			if r.IntN(2) == 0 {
				rec.Leader = p.replicas[r.IntN(len(p.replicas))]
				p.leader, p.le = rec.Leader, p.le+1
			}
			p.pe++
			return rec
		}
	case 5:
		if id, _, ok := m.pickTopic(r); ok && r.IntN(3) == 0 {
			delete(m.topics, id)
			rec := record.NewRemoveTopicRecord()
			rec.TopicID = id
			return rec
		}
	}
	return nil
}

// nextBrokerRecord is choice k of 6..7: a registration or a fencing change.
func (m *model) nextBrokerRecord(r *rand.Rand, k, n int) record.Record {
	switch k {
	case 6:
		id := int32(r.IntN(6))
		m.brokers[id] = &mBroker{epoch: int64(n), fenced: true}
		return brokerRec(id, int64(n))
	case 7:
		if id, b, ok := m.pickBroker(r); ok {
			rec := record.NewBrokerRegistrationChangeRecord()
			rec.BrokerID, rec.BrokerEpoch = id, b.epoch
			if b.fenced {
				rec.Fenced = -1
			} else {
				rec.Fenced = 1
			}
			b.fenced = !b.fenced
			return rec
		}
	}
	return nil
}

// nextConfigRecord is choice k of 8..9: a broker config or a client quota.
func (m *model) nextConfigRecord(r *rand.Rand, k, n int) record.Record {
	switch k {
	case 8:
		rec := record.NewConfigRecord()
		rec.ResourceType, rec.ResourceName, rec.Name = int8(image.ConfigBroker), fmt.Sprint(r.IntN(2)), fmt.Sprint("k", r.IntN(3))
		key := "4/" + rec.ResourceName + "/" + rec.Name
		if r.IntN(3) == 0 {
			rec.Value = nil
			delete(m.configs, key)
		} else {
			v := fmt.Sprint(n)
			rec.Value = &v
			m.configs[key] = v
		}
		return rec
	case 9:
		rec := record.NewClientQuotaRecord()
		user := fmt.Sprint("u", r.IntN(3))
		rec.Entity = []record.EntityData{{EntityType: "user", EntityName: &user}}
		rec.Key = fmt.Sprint("q", r.IntN(2))
		key := user + "/" + rec.Key
		if r.IntN(3) == 0 {
			rec.Remove = true
			delete(m.quotas, key)
		} else {
			rec.Value = float64(n)
			m.quotas[key] = rec.Value
		}
		return rec
	}
	return nil
}

// nextSecurityRecord is choice k of 10..13: an ACL, a SCRAM credential, a
// delegation token, a producer id block or a feature level.
func (m *model) nextSecurityRecord(r *rand.Rand, k, n int) record.Record {
	switch k {
	case 10:
		id := record.UUID{byte(r.IntN(4)), 0xAC}
		if m.acls[id] {
			delete(m.acls, id)
			rec := record.NewRemoveAccessControlEntryRecord()
			rec.ID = id
			return rec
		}
		m.acls[id] = true
		rec := record.NewAccessControlEntryRecord()
		rec.ID, rec.ResourceType, rec.ResourceName, rec.PatternType, rec.Principal, rec.Host, rec.Operation, rec.PermissionType = id, 2, "t", 3, "User:a", "*", 3, 3
		return rec
	case 11:
		k := image.ScramKey{Mechanism: int8(1 + r.IntN(2)), User: fmt.Sprint("u", r.IntN(2))}
		if r.IntN(3) == 0 {
			delete(m.scram, k)
			rec := record.NewRemoveUserScramCredentialRecord()
			rec.Name, rec.Mechanism = k.User, k.Mechanism
			return rec
		}
		m.scram[k] = int32(n)
		rec := record.NewUserScramCredentialRecord()
		rec.Name, rec.Mechanism, rec.Iterations, rec.Salt, rec.StoredKey, rec.ServerKey = k.User, k.Mechanism, int32(n), []byte{1}, []byte{2}, []byte{3}
		return rec
	case 12:
		id := fmt.Sprint("tok", r.IntN(3))
		if r.IntN(3) == 0 {
			delete(m.tokens, id)
			rec := record.NewRemoveDelegationTokenRecord()
			rec.TokenID = id
			return rec
		}
		m.tokens[id] = int64(n)
		rec := record.NewDelegationTokenRecord()
		rec.TokenID, rec.Owner, rec.Requester, rec.Renewers, rec.MaxTimestamp = id, "User:a", "User:a", []string{}, int64(n)
		return rec
	case 13:
		if r.IntN(2) == 0 {
			m.pid = int64(n)
			rec := record.NewProducerIdsRecord()
			rec.NextProducerID = int64(n)
			return rec
		}
		rec := record.NewFeatureLevelRecord()
		rec.Name, rec.FeatureLevel = "group.version", int16(r.IntN(2))
		if rec.FeatureLevel == 0 {
			delete(m.features, rec.Name)
		} else {
			m.features[rec.Name] = rec.FeatureLevel
		}
		return rec
	}
	return nil
}

func (m *model) check(t *testing.T, img *image.Image) {
	t.Helper()
	require.Equal(t, len(m.topics), img.Topics().Len())
	for id, mt := range m.topics {
		tp, ok := img.TopicByID(id)
		require.True(t, ok)
		require.Equal(t, mt.name, tp.Name())
		byName, ok := img.Topic(mt.name)
		require.True(t, ok)
		require.True(t, tp == byName, "ByID and ByName hand out the same topic")
		require.Equal(t, len(mt.parts), tp.NumPartitions())
		for i, mp := range mt.parts {
			p, ok := tp.Partition(int32(i))
			require.True(t, ok)
			require.Equal(t, mp.replicas, p.Replicas())
			require.Equal(t, mp.isr, p.ISR())
			require.Equal(t, []int32{mp.leader, mp.le, mp.pe}, []int32{p.Leader(), p.LeaderEpoch(), p.PartitionEpoch()})
		}
	}
	require.Equal(t, len(m.brokers), img.Cluster().NumBrokers())
	for id, mb := range m.brokers {
		b, ok := img.Cluster().Broker(id)
		require.True(t, ok)
		require.Equal(t, mb.epoch, b.Epoch())
		require.Equal(t, mb.fenced, b.Fenced())
	}
	n := 0
	for res, es := range img.Configs().Resources() {
		for _, e := range es {
			require.Equal(t, m.configs[fmt.Sprintf("%d/%s/%s", res.Type, res.Name, e.Name)], e.Value)
			n++
		}
	}
	require.Equal(t, len(m.configs), n)
	n = 0
	for _, e := range img.ClientQuotas().Entities() {
		for _, v := range e.Values() {
			require.Equal(t, m.quotas[*e.Parts()[0].Name+"/"+v.Key], v.Value)
			n++
		}
	}
	require.Equal(t, len(m.quotas), n)
	require.Equal(t, len(m.acls), img.ACLs().Len())
	require.Equal(t, len(m.scram), img.Scram().Len())
	for k, it := range m.scram {
		c, ok := img.Scram().Get(k)
		require.True(t, ok)
		require.Equal(t, it, c.Iterations)
	}
	require.Equal(t, len(m.tokens), img.Tokens().Len())
	for id, ts := range m.tokens {
		tk, ok := img.Tokens().Get(id)
		require.True(t, ok)
		require.Equal(t, ts, tk.MaxTimestamp)
	}
	require.Equal(t, m.pid, img.NextProducerID())
	require.Equal(t, len(m.features), len(img.Features().Finalized()))
}

// TestModelRandomRecordStreams drives the image and a plain-map model with
// random valid record streams of every record type, applied as deltas of
// random sizes, comparing after every apply; every image must also survive
// a snapshot round trip. The seed is in the subtest name; -kmeta.long runs
// more and longer streams.
func TestModelRandomRecordStreams(t *testing.T) {
	seeds, steps := 8, 400
	if *long {
		seeds, steps = 200, 5000
	}
	for seed := 1; seed <= seeds; seed++ {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			img, _ := modelStream(t, uint64(seed), steps)
			// metamorphic: the image's own records, loaded as a snapshot
			// over the empty image and over the image itself, give it back.
			lines := imagetest.ImageLines(t, img)
			for _, base := range []*image.Image{image.Empty(), img} {
				d := NewSnapshot(base)
				recs, err := img.Records(image.WriteOptions{})
				require.NoError(t, err)
				for _, r := range recs {
					require.NoError(t, d.Replay(r.Record))
				}
				d.FinishSnapshot()
				again, err := d.Apply(image.EmptyProvenance)
				require.NoError(t, err)
				imagetest.CompareImage(t, again, lines)
			}
		})
	}
}

// modelStream runs the random record stream of seed for steps records,
// applied as deltas of random sizes and checked against the model after every
// apply. It returns the last image and the operations in order: each delta's
// records in their JSON form, then "apply".
func modelStream(t *testing.T, seed uint64, steps int) (*image.Image, []string) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	m := newModel()
	img := mvImage(t)
	seq := 0
	var ops []string
	for done := 0; done < steps; {
		d := New(img)
		for k := 1 + r.IntN(20); k > 0 && done < steps; k-- {
			rec := m.next(r, &seq)
			require.NoError(t, d.Replay(rec), "%s", rec.Type())
			js, err := record.AppendEnvelopeJSON(nil, rec, rec.HighestVersion())
			require.NoError(t, err)
			ops = append(ops, string(js))
			done++
		}
		var err error
		img, err = d.Apply(image.EmptyProvenance)
		require.NoError(t, err)
		m.check(t, img)
		ops = append(ops, "apply")
	}
	return img, ops
}

// TestModelStreamReproducesFromSeed: the seed in a subtest's name is all it
// takes to replay it. One seed run twice gives the same operations, record
// for record and delta for delta, and the same image; another seed gives
// other operations.
func TestModelStreamReproducesFromSeed(t *testing.T) {
	const seed, steps = 3, 400
	imgA, a := modelStream(t, seed, steps)
	imgB, b := modelStream(t, seed, steps)
	require.Equal(t, a, b, "seed=%d ran twice gave two operation sequences", seed)
	imagetest.CompareImage(t, imgB, imagetest.ImageLines(t, imgA))
	_, c := modelStream(t, seed+1, steps)
	require.NotEqual(t, a, c, "seeds %d and %d gave one operation sequence", seed, seed+1)
}

// TestMetamorphicDeltaSizes: one history replayed as one delta, as deltas
// of random sizes, and as snapshot-then-log gives equal images.
func TestMetamorphicDeltaSizes(t *testing.T) {
	for _, dir := range scenarios(t) {
		hist := imagetest.ReadJSONL(t, filepath.Join(dir, "history-records.jsonl"))
		want := imagetest.ReadLines(t, filepath.Join(dir, "snapshot-records.jsonl"))
		for seed := uint64(1); seed <= 3; seed++ {
			t.Run(fmt.Sprintf("%s/seed=%d", filepath.Base(dir), seed), func(t *testing.T) {
				r := rand.New(rand.NewPCG(seed, 3))
				img := image.Empty()
				for i := 0; i < len(hist); {
					d := New(img)
					for k := 1 + r.IntN(60); k > 0 && i < len(hist); k-- {
						require.NoError(t, d.Replay(hist[i].Record))
						i++
					}
					var err error
					img, err = d.Apply(image.EmptyProvenance)
					require.NoError(t, err)
				}
				imagetest.CompareImage(t, img, want)
			})
		}
	}
}

// TestOldImagesNeverChange: readers of old images on other goroutines see
// them unchanged while new images are built (run with -race).
func TestOldImagesNeverChange(t *testing.T) {
	t.Run("seed=42", testOldImagesNeverChange)
}

func testOldImagesNeverChange(t *testing.T) {
	r := rand.New(rand.NewPCG(42, 42))
	m := newModel()
	seq := 0
	img := mvImage(t)
	var wg sync.WaitGroup
	for round := 0; round < 30; round++ {
		d := New(img)
		for k := 0; k < 20; k++ {
			require.NoError(t, d.Replay(m.next(r, &seq)))
		}
		next, err := d.Apply(image.EmptyProvenance)
		require.NoError(t, err)
		snapshot := slices.Clone(imagetest.ImageLines(t, next))
		wg.Add(1)
		go func(img *image.Image, want []string) {
			defer wg.Done()
			for i := 0; i < 3; i++ {
				got := imagetest.ImageLines(t, img)
				if !slices.Equal(got, want) {
					t.Errorf("an old image changed")
					return
				}
			}
		}(next, snapshot)
		img = next
	}
	wg.Wait()
}
