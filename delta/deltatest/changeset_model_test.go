package deltatest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/image"
)

// changeSetKeys renders a delta's change sets as the entities image.Diff
// names ("kind key"), so the two can be compared.
func changeSetKeys(d *delta.Delta) []string {
	var out []string
	for _, f := range d.Features() {
		out = append(out, "feature "+f.Name)
	}
	c := d.Controllers()
	for _, id := range append(slices.Clone(c.Registered), c.Unregistered...) {
		out = append(out, "controller "+strconv.Itoa(int(id)))
	}
	for _, cc := range d.Configs() {
		out = append(out, fmt.Sprintf("config %v %v", cc.Resource, append(slices.Clone(cc.Set), cc.Removed...)))
	}
	for _, q := range d.ClientQuotas() {
		out = append(out, fmt.Sprintf("clientQuota %s %v", image.QuotaEntityKey(q.Entity), append(slices.Clone(q.Set), q.Removed...)))
	}
	for _, a := range d.ACLs() {
		out = append(out, "acl "+a.ID.String())
	}
	for _, s := range d.Scram() {
		out = append(out, "scram "+s.User+" "+image.ScramMechanismName(s.Mechanism))
	}
	for _, tk := range d.Tokens() {
		out = append(out, "delegationToken "+tk.TokenID)
	}
	slices.Sort(out)
	return out
}

// diffKeys is the same rendering of image.Diff(base, img), for the kinds
// the change sets cover.
func diffKeys(base, img *image.Image) []string {
	var out []string
	for _, df := range image.Diff(base, img, image.DiffOptions{Unredacted: true}) {
		switch df.Kind {
		case image.DiffFeature, image.DiffController, image.DiffACL, image.DiffScram, image.DiffToken:
			out = append(out, string(df.Kind)+" "+df.Key)
		case image.DiffConfig, image.DiffClientQuota:
			var fields []string
			for _, f := range df.Fields {
				fields = append(fields, f.Field)
			}
			slices.Sort(fields)
			out = append(out, string(df.Kind)+" "+diffEntity(df, base, img)+" "+fmt.Sprint(fields))
		}
	}
	slices.Sort(out)
	return out
}

// diffEntity names a config resource or quota entity of a Difference the
// way changeSetKeys does.
func diffEntity(df image.Difference, base, img *image.Image) string {
	for _, im := range []*image.Image{img, base} {
		if df.Kind == image.DiffConfig {
			for res := range im.Configs().Resources() {
				if diffConfigKey(res) == df.Key {
					return fmt.Sprint(res)
				}
			}
			continue
		}
		for key, q := range im.ClientQuotas().Entities() {
			if diffQuotaKey(q.Parts()) == df.Key {
				return key
			}
		}
	}
	return df.Key
}

func diffConfigKey(res image.ConfigResource) string {
	switch res.Type {
	case image.ConfigTopic:
		return "topic:" + res.Name
	case image.ConfigBroker:
		if res.Name == "" {
			return "broker:<default>"
		}
		return "broker:" + res.Name
	}
	return fmt.Sprintf("%d:%s", res.Type, res.Name)
}

func diffQuotaKey(parts []image.QuotaEntityPart) string {
	s := ""
	for i, p := range parts {
		if i > 0 {
			s += ","
		}
		if p.Name == nil {
			s += p.Type + "=<default>"
		} else {
			s += p.Type + "=" + *p.Name
		}
	}
	return s
}

// TestModelChangeSetsEqualDiff: on every step of seeded random simulator
// runs (the seed in the subtest name), the delta's change sets (Features,
// Controllers, Configs, ClientQuotas, ACLs, Scram, Tokens) name exactly the
// entities and keys image.Diff finds between the step's base and image.
func TestModelChangeSetsEqualDiff(t *testing.T) {
	for seed := range uint64(6) {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			s := MustNew(Config{MetadataVersion: image.MV4_4_IV2, Seed: int64(seed)})
			if err := s.AddBrokers(3); err != nil {
				t.Fatal(err)
			}
			r := rand.New(rand.NewPCG(seed, 17))
			changed := 0
			for step := range 120 {
				d, img, err := s.Step(func() error { return changeSetOp(s, r) })
				if err != nil {
					t.Fatalf("step %d: %v", step, err)
				}
				checkChangeSets(t, fmt.Sprintf("step %d", step), d, img)
				if len(changeSetKeys(d)) > 0 {
					changed++
				}
			}
			if changed == 0 {
				t.Fatal("no step changed anything the change sets cover")
			}
		})
	}
}

// changeSetOp is one random operation on the parts the change sets cover;
// requests the controller refuses write nothing and are not errors here.
func changeSetOp(s *Simulator, r *rand.Rand) error {
	users := []string{"alice", "bob"}
	str := func(v string) *string { return &v }
	switch r.IntN(9) {
	case 0:
		ch := map[string]*string{"log.retention.ms": str(strconv.Itoa(r.IntN(3)))}
		if r.IntN(2) == 0 {
			ch["log.retention.ms"] = nil
		}
		_ = s.AlterConfigs(BrokerResource, []string{"", "1"}[r.IntN(2)], ch)
	case 1:
		v := float64(r.IntN(3))
		var pv *float64
		if r.IntN(3) > 0 {
			pv = &v
		}
		name := users[r.IntN(2)]
		_ = s.AlterClientQuota([]image.QuotaEntityPart{{Type: "user", Name: &name}}, "producer_byte_rate", pv)
	case 2, 3:
		if _, err := s.CreateACL(image.ACL{ResourceType: 2, ResourceName: "t", PatternType: 3, Principal: "User:" + users[r.IntN(2)],
			Host: "*", Operation: int8(2 + r.IntN(3)), PermissionType: 3}); err != nil {
			return err
		}
	case 4:
		img := s.Image()
		for a := range img.ACLs().All() {
			if r.IntN(3) == 0 {
				return s.DeleteACL(a.ID)
			}
		}
	case 5:
		if r.IntN(3) == 0 {
			_ = s.DeleteScramCredential(users[r.IntN(2)], 1)
		} else {
			_ = s.UpsertScramCredential(users[r.IntN(2)], 1, 4096, strconv.Itoa(r.IntN(3)))
		}
	case 6:
		_, _ = s.CreateDelegationToken("User:"+users[r.IntN(2)], nil, 0)
	case 7:
		_ = s.SetFeature("group.version", int16(r.IntN(2)))
	case 8:
		id := int32(3000 + r.IntN(3))
		if r.IntN(2) == 0 {
			_ = s.RegisterController(ControllerSpec{ID: id})
		} else {
			_ = s.UnregisterController(id)
		}
	}
	return nil
}

// checkChangeSets fails t when d's change sets and image.Diff of its base
// and img disagree. Brokers: every broker Diff finds changed is in
// Brokers().Changed, and every other one there differs in what Diff does not
// print (the cordoned log directories, KIP-1066).
func checkChangeSets(t *testing.T, where string, d *delta.Delta, img *image.Image) {
	t.Helper()
	if got, want := changeSetKeys(d), diffKeys(d.Base(), img); !slices.Equal(got, want) {
		t.Fatalf("%s: change sets %q, image.Diff %q", where, got, want)
	}
	changed := map[string]bool{}
	for _, id := range d.Brokers().Changed {
		changed[strconv.Itoa(int(id))] = true
	}
	for _, df := range image.Diff(d.Base(), img, image.DiffOptions{}) {
		if df.Kind != image.DiffBroker {
			continue
		}
		if !changed[df.Key] {
			t.Fatalf("%s: broker %s differs (%s) but Brokers().Changed is %v", where, df.Key, df, d.Brokers().Changed)
		}
		delete(changed, df.Key)
	}
	for key := range changed {
		id, _ := strconv.Atoi(key)
		a, _ := d.Base().Cluster().Broker(int32(id))
		b, _ := img.Cluster().Broker(int32(id))
		ca, oka := a.CordonedDirectories()
		cb, okb := b.CordonedDirectories()
		if oka == okb && slices.Equal(ca, cb) {
			t.Fatalf("%s: broker %s in Brokers().Changed but equal", where, key)
		}
	}
}
