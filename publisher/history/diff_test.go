package history_test

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/redact"
	"github.com/kmeta-go/kmeta/publisher/history"
	"github.com/kmeta-go/kmeta/record"
)

// entityKey names the entity a written-back record belongs to, as
// image.Diff names it.
func entityKey(img *image.Image, r record.Record) (image.DiffKind, string) {
	switch r := r.(type) {
	case *record.FeatureLevelRecord:
		return image.DiffFeature, r.Name
	case *record.RegisterBrokerRecord:
		return image.DiffBroker, strconv.Itoa(int(r.BrokerID))
	case *record.RegisterControllerRecord:
		return image.DiffController, strconv.Itoa(int(r.ControllerID))
	case *record.TopicRecord:
		return image.DiffTopic, r.Name
	case *record.PartitionRecord:
		t, _ := img.TopicByID(r.TopicID)
		return image.DiffPartition, fmt.Sprintf("%s-%d", t.Name(), r.PartitionID)
	case *record.ConfigRecord:
		names := map[int8]string{2: "topic", 4: "broker", 8: "broker-logger", 16: "client-metrics", 32: "group"}
		n := r.ResourceName
		if r.ResourceType == 4 && n == "" {
			n = "<default>"
		}
		return image.DiffConfig, names[r.ResourceType] + ":" + n
	case *record.ClientQuotaRecord:
		parts := make([]string, len(r.Entity))
		for i, e := range r.Entity {
			if e.EntityName == nil {
				parts[i] = e.EntityType + "=<default>"
			} else {
				parts[i] = e.EntityType + "=" + *e.EntityName
			}
		}
		return image.DiffClientQuota, strings.Join(parts, ",")
	case *record.ProducerIdsRecord:
		return image.DiffProducerIDs, "nextProducerId"
	case *record.AccessControlEntryRecord:
		return image.DiffACL, r.ID.String()
	case *record.UserScramCredentialRecord:
		return image.DiffScram, r.Name + " " + image.ScramMechanismName(r.Mechanism)
	case *record.DelegationTokenRecord:
		return image.DiffToken, r.TokenID
	}
	panic(fmt.Sprintf("unexpected record %s", r.Type()))
}

// member names a record's sub-entity inside a multi-record entity: the
// config name or quota key; "" for single-record entities.
func member(r record.Record) string {
	switch r := r.(type) {
	case *record.ConfigRecord:
		return r.Name
	case *record.ClientQuotaRecord:
		return r.Key
	}
	return ""
}

type recGroup map[string]map[string]json.RawMessage // member -> data members

// written groups the written-back records of img by entity.
func written(t *testing.T, img *image.Image) map[string]recGroup {
	recs, err := img.Records(image.WriteOptions{OnLoss: func(string) error { return nil }})
	require.NoError(t, err)
	out := map[string]recGroup{}
	for _, vr := range recs {
		kind, key := entityKey(img, vr.Record)
		js, err := record.AppendEnvelopeJSON(nil, vr.Record, vr.Version)
		require.NoError(t, err)
		var env struct {
			Data map[string]json.RawMessage `json:"data"`
		}
		require.NoError(t, json.Unmarshal(js, &env))
		k := string(kind) + " " + key
		if out[k] == nil {
			out[k] = recGroup{}
		}
		out[k][member(vr.Record)] = env.Data
	}
	return out
}

func equalData(a, b map[string]json.RawMessage) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if string(b[k]) != string(v) {
			return false
		}
	}
	return true
}

// expectedDiff is the set difference of two images' written-back records,
// regrouped by entity: "op kind key" -> the names of the fields that
// differ (data members of a single record, config names or quota keys of a
// group).
func expectedDiff(t *testing.T, a, b *image.Image) map[string][]string {
	wa, wb := written(t, a), written(t, b)
	out := map[string][]string{}
	for k, ga := range wa {
		gb, ok := wb[k]
		if !ok {
			out["removed "+k] = nil
			continue
		}
		var fields []string
		for m, da := range ga {
			db, ok := gb[m]
			switch {
			case m != "" && (!ok || !equalData(da, db)):
				fields = append(fields, m)
			case m == "":
				for f, v := range da {
					if string(db[f]) != string(v) {
						fields = append(fields, f)
					}
				}
				for f := range db {
					if _, ok := da[f]; !ok {
						fields = append(fields, f)
					}
				}
			}
		}
		for m := range gb {
			if _, ok := ga[m]; !ok && m != "" {
				fields = append(fields, m)
			}
		}
		if len(fields) > 0 {
			sort.Strings(fields)
			out["changed "+k] = fields
		}
	}
	for k := range wb {
		if _, ok := wa[k]; !ok {
			out["added "+k] = nil
		}
	}
	return out
}

func gotDiff(a, b *image.Image, opts image.DiffOptions) map[string][]string {
	out := map[string][]string{}
	for _, d := range image.Diff(a, b, opts) {
		var fields []string
		if d.Op == image.Changed {
			for _, f := range d.Fields {
				fields = append(fields, f.Field)
			}
			sort.Strings(fields)
		}
		out[fmt.Sprintf("%s %s %s", d.Op, d.Kind, d.Key)] = fields
	}
	return out
}

func checkDiff(t *testing.T, a, b *image.Image, what string) int {
	t.Helper()
	want := expectedDiff(t, a, b)
	assert.Equal(t, want, gotDiff(a, b, image.DiffOptions{}), what)
	assert.Equal(t, want, gotDiff(a, b, image.DiffOptions{Sensitive: redact.IsSensitive}), "%s, redacted", what)
	assert.Empty(t, image.Diff(b, b, image.DiffOptions{}))
	return len(want)
}

// TestCorpusDiffIsTheRecordSetDifference: for images of every corpus
// directory at ten points (and the empty image), image.Diff lists exactly
// the set difference of their written-back records, regrouped by entity,
// with the fields that differ.
func TestCorpusDiffIsTheRecordSetDifference(t *testing.T) {
	total := 0
	for _, dir := range corpusDirs(t) {
		t.Run(corpusName(dir), func(t *testing.T) {
			h := readCorpus(t, dir)
			first, last := h.First.Offset, h.Last.Offset
			var pts []history.Point
			for i := 0; i <= 10; i++ {
				pts = append(pts, history.AtOffset(first+(last-first)*int64(i)/10))
			}
			imgs, err := history.ImagesAt(dir, pts...)
			require.NoError(t, err)
			prev := image.Empty()
			for i, img := range imgs {
				total += checkDiff(t, prev, img, fmt.Sprintf("to %s", pts[i]))
				prev = img
			}
			checkDiff(t, imgs[len(imgs)-1], imgs[0], "back to the start")
		})
	}
	assert.Positive(t, total)
}

// TestSimulatorDiffEveryKind: the same over a simulated cluster whose log
// changes every kind of entity the simulator writes: features, brokers,
// topics, partitions, configs, client quotas, producer ids, ACLs, SCRAM
// credentials, delegation tokens (controller registrations come from the
// corpus).
func TestSimulatorDiffEveryKind(t *testing.T) {
	sim := deltatest.MustCluster(3)
	sim.MustCreateTopic("orders", 3, 3)
	user := "alice"
	var imgs []*image.Image
	step := func(err error) {
		t.Helper()
		require.NoError(t, err)
		imgs = append(imgs, sim.Image())
	}
	step(nil)
	step(sim.AlterConfigs(2, "orders", map[string]*string{"retention.ms": ptr("1000"), "cleanup.policy": ptr("compact")}))
	step(sim.AlterConfigs(4, "", map[string]*string{"ssl.keystore.password": ptr("secret")}))
	step(sim.AlterConfigs(4, "", map[string]*string{"ssl.keystore.password": ptr("other")}))
	step(sim.AlterClientQuota([]image.QuotaEntityPart{{Type: "user", Name: &user}}, "producer_byte_rate", ptr(1024.0)))
	step(sim.AlterClientQuota([]image.QuotaEntityPart{{Type: "user", Name: &user}}, "consumer_byte_rate", ptr(2048.0)))
	_, err := sim.CreateACL(image.ACL{ResourceType: 2, ResourceName: "orders", PatternType: 3, Principal: "User:alice", Host: "*", Operation: 3, PermissionType: 3})
	step(err)
	step(sim.UpsertScramCredential("alice", 1, 4096, "pw"))
	step(sim.UpsertScramCredential("alice", 1, 8192, "pw2"))
	_, err = sim.CreateDelegationToken("User:alice", []string{"User:bob"}, time.Hour)
	step(err)
	_, err = sim.AllocateProducerIDs(1)
	step(err)
	step(sim.CrashBroker(2))
	step(sim.Advance(12 * time.Second))
	step(sim.CreatePartitions("orders", 5, nil))
	step(sim.DeleteTopicConfig("orders", "retention.ms"))
	step(sim.DeleteScramCredential("alice", 1))
	step(sim.DeleteTopic("orders"))
	step(sim.SetFeature("transaction.version", 1))
	kinds := map[image.DiffKind]bool{}
	for i := 1; i < len(imgs); i++ {
		checkDiff(t, imgs[i-1], imgs[i], fmt.Sprintf("step %d", i))
		for _, d := range image.Diff(imgs[i-1], imgs[i], image.DiffOptions{}) {
			kinds[d.Kind] = true
		}
	}
	checkDiff(t, imgs[len(imgs)-1], imgs[0], "back")
	checkDiff(t, image.Empty(), imgs[5], "from empty")
	for _, k := range []image.DiffKind{image.DiffFeature, image.DiffBroker, image.DiffTopic, image.DiffPartition, image.DiffConfig, image.DiffClientQuota,
		image.DiffProducerIDs, image.DiffACL, image.DiffScram, image.DiffToken} {
		assert.True(t, kinds[k], "the steps change a %s", k)
	}

	// Secrets: a changed password shows as changed, never in clear.
	ds := image.Diff(imgs[1], imgs[3], image.DiffOptions{Sensitive: redact.IsSensitive})
	found := false
	for _, d := range ds {
		s := d.String()
		assert.NotContains(t, s, "secret")
		assert.NotContains(t, s, "other")
		if d.Kind == image.DiffConfig && strings.HasPrefix(d.Key, "broker:") {
			found = true
			assert.Contains(t, s, redact.Redacted)
		}
	}
	assert.True(t, found)
	ds = image.Diff(imgs[2], imgs[3], image.DiffOptions{Sensitive: redact.IsSensitive})
	require.Len(t, ds, 1)
	assert.Equal(t, "changed config broker:<default>: ssl.keystore.password [redacted] -> [redacted]", ds[0].String())
	ds = image.Diff(imgs[7], imgs[8], image.DiffOptions{})
	require.Len(t, ds, 1)
	assert.Equal(t, image.Changed, ds[0].Op)
	for _, f := range ds[0].Fields {
		assert.Equal(t, redact.Redacted, f.New, f.Field)
	}
	ds = image.Diff(imgs[7], imgs[8], image.DiffOptions{Unredacted: true})
	assert.NotEqual(t, redact.Redacted, ds[0].Fields[0].New)
}

func ptr[T any](v T) *T { return &v }
