package quota_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/quota"
	"github.com/kmeta-go/kmeta/internal/kafkaoracle"
)

// model is a plain reimplementation of a broker's client quotas, written
// from ClientQuotaManager and ClientQuotaMetadataManager without any of
// Index's structure: one map of (user entity, client entity, key) to the
// quota, entities spelled as the Java ConfigEntity values ("" absent,
// "<default>", or "U:"/"C:" and the name).
type model struct {
	quotas  map[[3]string]float64
	enabled map[string]int // quotaTypesEnabled by key
}

func newModel(img *image.Image) *model {
	m := &model{quotas: map[[3]string]float64{}, enabled: map[string]int{}}
	var plain, extra [][3]string
	var vals [][]image.QuotaValue
	var extraVals [][]image.QuotaValue
	for _, e := range img.ClientQuotas().Entities() {
		var ue, ce string
		ip, known := false, 0
		for _, p := range e.Parts() {
			switch p.Type {
			case "ip":
				ip = true
			case "user":
				known++
				ue = "<default>"
				if p.Name != nil {
					ue = "U:" + quota.Sanitize(*p.Name)
				}
			case "client-id":
				known++
				ce = "<default>"
				if p.Name != nil {
					ce = "C:" + *p.Name
				}
			}
		}
		if ip || known == 0 {
			continue
		}
		if known == len(e.Parts()) {
			plain, vals = append(plain, [3]string{ue, ce}), append(vals, e.Values())
		} else {
			extra, extraVals = append(extra, [3]string{ue, ce}), append(extraVals, e.Values())
		}
	}
	for i, k := range append(extra, plain...) {
		for _, v := range append(extraVals, vals...)[i] {
			switch v.Key {
			case "producer_byte_rate", "consumer_byte_rate", "request_percentage", "controller_mutation_rate":
				m.quotas[[3]string{k[0], k[1], v.Key}] = v.Value
			}
		}
	}
	for k := range m.quotas {
		switch {
		case k[0] != "" && k[1] != "":
			m.enabled[k[2]] |= 4
		case k[0] != "":
			m.enabled[k[2]] |= 2
		default:
			m.enabled[k[2]] |= 1
		}
	}
	return m
}

func (m *model) has(u, c, key string) bool { _, ok := m.quotas[[3]string{u, c, key}]; return ok }

// tags is DefaultQuotaCallback.quotaMetricTags, step by step.
func (m *model) tags(key, user, client string) (string, string) {
	switch m.enabled[key] {
	case 0, 1:
		return "", client
	case 2:
		return user, ""
	case 4:
		return user, client
	}
	U, C := "U:"+user, "C:"+client
	for _, step := range []struct {
		u, c     string
		userOnly bool
	}{
		{U, C, false}, {U, "<default>", false}, {U, "", true},
		{"<default>", C, false}, {"<default>", "<default>", false}, {"<default>", "", true},
	} {
		if m.has(step.u, step.c, key) {
			if step.userOnly {
				return user, ""
			}
			return user, client
		}
	}
	return "", client
}

// limit is DefaultQuotaCallback.quotaLimit: the eight levels, four at a
// time by the tags.
func (m *model) limit(key, user, client string) (float64, bool) {
	var order [][2]string
	switch {
	case user != "" && client != "":
		order = [][2]string{{"U:" + user, "C:" + client}, {"U:" + user, "<default>"}, {"<default>", "C:" + client}, {"<default>", "<default>"}}
	case user != "":
		order = [][2]string{{"U:" + user, ""}, {"<default>", ""}}
	case client != "":
		order = [][2]string{{"", "C:" + client}, {"", "<default>"}}
	}
	for _, o := range order {
		if v, ok := m.quotas[[3]string{o[0], o[1], key}]; ok {
			return v, true
		}
	}
	return 0, false
}

func (m *model) client(t quota.Type, user, client string) quota.Limit {
	u, c := m.tags(t.Key(), user, client)
	v, ok := m.limit(t.Key(), u, c)
	return quota.Limit{Tags: quota.Tags{User: u, ClientID: c}, Bound: v, OK: ok}
}

var (
	modelUsers   = []string{"alice", "bob", "", "a b", "x*y", "ü", "z%41", "User:q"}
	modelClients = []string{"app", "", "c d", "*", "bob", "ü", "x/y"}
	modelKeys    = []string{"producer_byte_rate", "consumer_byte_rate", "request_percentage", "controller_mutation_rate", "other", "connection_creation_rate"}
)

// randomImage is a random quota image: entities of the eight shapes (a
// random subset of them), ip entities, unsupported types and extra parts.
func randomImage(r *rand.Rand) *image.Image {
	shapes := 1 + r.IntN(255)
	if r.IntN(3) == 0 {
		shapes = 1 << r.IntN(8)
	}
	changes := map[string]*image.QuotaEntity{}
	for range r.IntN(30) {
		var parts []image.QuotaEntityPart
		shape := r.IntN(8)
		if shapes&(1<<shape) == 0 {
			continue
		}
		u, c := &modelUsers[r.IntN(len(modelUsers))], &modelClients[r.IntN(len(modelClients))]
		if shape&4 != 0 {
			u = nil
		}
		if shape&2 != 0 {
			c = nil
		}
		switch shape & 1 {
		case 0:
			parts = []image.QuotaEntityPart{{Type: "user", Name: u}, {Type: "client-id", Name: c}}
		default:
			if r.IntN(2) == 0 {
				parts = []image.QuotaEntityPart{{Type: "user", Name: u}}
			} else {
				parts = []image.QuotaEntityPart{{Type: "client-id", Name: c}}
			}
		}
		switch r.IntN(12) {
		case 0:
			parts = append(parts, image.QuotaEntityPart{Type: "group", Name: u})
		case 1:
			ip := "10.0.0.1"
			parts = append(parts, image.QuotaEntityPart{Type: "ip", Name: &ip})
		case 2:
			parts = []image.QuotaEntityPart{{Type: "group", Name: c}}
		}
		var vs []image.QuotaValue
		for _, k := range modelKeys {
			if r.IntN(2) == 0 {
				vs = append(vs, image.QuotaValue{Key: k, Value: float64(1 + r.IntN(1000))})
			}
		}
		slices.SortFunc(vs, func(a, b image.QuotaValue) int { return strings.Compare(a.Key, b.Key) })
		if len(vs) > 0 {
			changes[image.QuotaEntityKey(parts)] = image.NewQuotaEntity(parts, vs)
		}
	}
	b := image.NewBuilder(nil)
	b.PutClientQuotas(changes)
	return b.Image(image.EmptyProvenance)
}

// TestQuotaModel: on seeded random quota images and clients, Index gives
// every quota type the model's levels, tags and limits.
func TestQuotaModel(t *testing.T) {
	for seed := uint64(1); seed <= 200; seed++ {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 22))
			img := randomImage(r)
			ix, m := quota.Of(img), newModel(img)
			for _, ty := range quota.Types() {
				if got, want := int(ix.Enabled(ty)), m.enabled[ty.Key()]; got != want {
					t.Errorf("%v enabled %d, model %d", ty, got, want)
				}
			}
			for range 60 {
				user := quota.Sanitize(modelUsers[r.IntN(len(modelUsers))])
				client := modelClients[r.IntN(len(modelClients))]
				if r.IntN(10) == 0 {
					user = "new"
				}
				for _, ty := range quota.Types() {
					if got, want := ix.Client(ty, user, client), m.client(ty, user, client); got != want {
						t.Errorf("%v (%q, %q) = %+v, model %+v", ty, user, client, got, want)
					}
				}
			}
		})
	}
}

// TestQuotaModelKafkaVectors: the model, fed the images of
// quota-clients.jsonl.gz, gives Kafka's tags and bounds for every client.
func TestQuotaModelKafkaVectors(t *testing.T) {
	kafkaoracle.Decode(t, "quota-clients", func(n int, v *clientVector) {
		m := newModel(vectorImage(v.Entities))
		for _, c := range v.Clients {
			for i, want := range c.Results {
				got := m.client(quota.Types()[i], c.Sanitized, c.ClientID)
				if got.Tags.User != want.User || got.Tags.ClientID != want.ClientID || got.OK != (want.Bound != noQuota) || (got.OK && got.Bound != want.Bound) {
					t.Errorf("%s: model %v (%q, %q) = %+v; Kafka (%q, %q) %v", kafkaoracle.Name("quota-clients", n),
						quota.Types()[i], c.User, c.ClientID, got, want.User, want.ClientID, want.Bound)
				}
			}
		}
	})
}
