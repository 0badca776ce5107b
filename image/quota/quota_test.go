package quota_test

import (
	"errors"
	"net/netip"
	"slices"
	"sync"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/quota"
)

func str(s string) *string { return &s }

func imageOf(entities map[string]map[string]float64, parts map[string][]image.QuotaEntityPart) *image.Image {
	changes := map[string]*image.QuotaEntity{}
	for name, vals := range entities {
		var vs []image.QuotaValue
		for k, v := range vals {
			vs = append(vs, image.QuotaValue{Key: k, Value: v})
		}
		slices.SortFunc(vs, func(a, b image.QuotaValue) int {
			if a.Key < b.Key {
				return -1
			}
			return 1
		})
		p := parts[name]
		changes[image.QuotaEntityKey(p)] = image.NewQuotaEntity(p, vs)
	}
	b := image.NewBuilder(nil)
	b.PutClientQuotas(changes)
	return b.Image(image.EmptyProvenance)
}

// TestParseIPNotLiteral: names InetAddress.getByName would look up as host
// names (or refuse) are errors wrapping ErrNotIPLiteral, never a panic.
func TestParseIPNotLiteral(t *testing.T) {
	for _, name := range []string{"broker-1", "1.2.3.256", "0x7f.0.0.1", "1.2.3.4.", " 1.2.3.4", "[1.2.3.4]",
		"::ffff:1.2.3", "1.2.3.4.5", "4294967296", "1..2", ".1", "::1%", "[::1", "00000001.2.3.4x", ":::", "1.2.3.4:80"} {
		if a, err := quota.ParseIP(name); !errors.Is(err, quota.ErrNotIPLiteral) {
			t.Errorf("ParseIP(%q) = %v, %v; want ErrNotIPLiteral", name, a, err)
		}
	}
}

// TestIgnoredQuotas: what ClientQuotaMetadataManager ignores is listed with
// its reason and holds no quota; two ip entities of one address keep the
// canonical spelling's rate.
func TestIgnoredQuotas(t *testing.T) {
	img := imageOf(map[string]map[string]float64{
		"group":  {"producer_byte_rate": 1},
		"badkey": {"fetch_rate": 2, "producer_byte_rate": 3},
		"host":   {"connection_creation_rate": 4},
		"ipkey":  {"producer_byte_rate": 5},
		"canon":  {"connection_creation_rate": 6},
		"zeros":  {"connection_creation_rate": 7},
	}, map[string][]image.QuotaEntityPart{
		"group":  {{Type: "group", Name: str("g")}},
		"badkey": {{Type: "user", Name: str("alice")}},
		"host":   {{Type: "ip", Name: str("localhost")}},
		"ipkey":  {{Type: "ip", Name: str("10.0.0.9")}},
		"canon":  {{Type: "ip", Name: str("10.0.0.1")}},
		"zeros":  {{Type: "ip", Name: str("010.0.0.1")}},
	})
	ix := quota.NewIndex(img.ClientQuotas())
	want := []quota.Ignored{
		{Entity: "group=g", Reason: quota.ReasonUnsupportedEntity},
		{Entity: "ip=010.0.0.1", Key: "connection_creation_rate", Reason: quota.ReasonShadowed},
		{Entity: "ip=10.0.0.9", Key: "producer_byte_rate", Reason: quota.ReasonUnexpectedKey},
		{Entity: "ip=localhost", Reason: quota.ReasonUnresolvedIP},
		{Entity: "user=alice", Key: "fetch_rate", Reason: quota.ReasonUnexpectedKey},
	}
	got := ix.Ignored()
	slices.SortFunc(got, func(a, b quota.Ignored) int {
		if a.Entity < b.Entity {
			return -1
		}
		return 1
	})
	if !slices.Equal(got, want) {
		t.Errorf("Ignored() = %v\nwant %v", got, want)
	}
	if r, ok := ix.IP(netip.MustParseAddr("10.0.0.1")); r != 6 || !ok {
		t.Errorf("IP(10.0.0.1) = %d, %v; want the canonical entity's 6", r, ok)
	}
	if l := ix.Client(quota.Produce, "alice", "x"); !l.OK || l.Bound != 3 {
		t.Errorf("alice's produce quota %+v", l)
	}
	if l := ix.Client(quota.Produce, "g", ""); l.OK {
		t.Errorf("an unsupported entity gave a quota: %+v", l)
	}
}

// TestBadType: a Type out of range has no key, no levels and no quota.
func TestBadType(t *testing.T) {
	ix := quota.Of(image.Empty())
	bad := quota.Type(9)
	if bad.Key() != "" || bad.String() != "Type(?)" || ix.Enabled(bad) != 0 || ix.Client(bad, "a", "b") != (quota.Limit{}) {
		t.Error("an unknown Type answered")
	}
}

// TestDescribeFilterErrors: each refusal of ClientQuotasImage.describe is a
// *FilterError with Kafka's code, and the answer carries it with no
// entries.
func TestDescribeFilterErrors(t *testing.T) {
	comp := func(typ string, mt int8, match *string) kmsg.DescribeClientQuotasRequestComponent {
		c := kmsg.NewDescribeClientQuotasRequestComponent()
		c.EntityType, c.MatchType, c.Match = typ, kmsg.QuotasMatchType(mt), match
		return c
	}
	for _, tc := range []struct {
		comps []kmsg.DescribeClientQuotasRequestComponent
		code  int16
	}{
		{[]kmsg.DescribeClientQuotasRequestComponent{comp("", 2, nil)}, 42},
		{[]kmsg.DescribeClientQuotasRequestComponent{comp("user", 2, nil), comp("user", 1, nil)}, 42},
		{[]kmsg.DescribeClientQuotasRequestComponent{comp("group", 2, nil)}, 35},
		{[]kmsg.DescribeClientQuotasRequestComponent{comp("user", 0, nil)}, 42},
		{[]kmsg.DescribeClientQuotasRequestComponent{comp("user", 1, str("a"))}, 42},
		{[]kmsg.DescribeClientQuotasRequestComponent{comp("user", 2, str("a"))}, 42},
		{[]kmsg.DescribeClientQuotasRequestComponent{comp("user", 7, nil)}, 42},
		{[]kmsg.DescribeClientQuotasRequestComponent{comp("ip", 2, nil), comp("client-id", 2, nil)}, 42},
	} {
		req := kmsg.NewPtrDescribeClientQuotasRequest()
		req.Components = tc.comps
		resp, err := quota.DescribeClientQuotas(image.Empty().ClientQuotas(), req)
		var fe *quota.FilterError
		if !errors.As(err, &fe) || fe.Code.Int16() != tc.code || resp.ErrorCode != tc.code || resp.Entries != nil ||
			resp.ErrorMessage == nil || *resp.ErrorMessage != fe.Message {
			t.Errorf("%v: %v, answer %+v", tc.comps, err, resp)
		}
	}
}

// TestOfShared: images that share their client quotas share one index,
// built once however many goroutines ask at once; an image with changed
// quotas gets its own.
func TestOfShared(t *testing.T) {
	img := imageOf(map[string]map[string]float64{"a": {"producer_byte_rate": 1}},
		map[string][]image.QuotaEntityPart{"a": {{Type: "user", Name: str("alice")}}})
	b := image.NewBuilder(img)
	b.SetNextProducerID(1000)
	next := b.Image(image.EmptyProvenance)
	var wg sync.WaitGroup
	got := make([]*quota.Index, 16)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				got[i] = quota.Of(img)
			} else {
				got[i] = quota.Of(next)
			}
		}()
	}
	wg.Wait()
	for _, ix := range got {
		if ix != got[0] {
			t.Fatal("two indexes for one set of quotas")
		}
	}
	changed := imageOf(map[string]map[string]float64{"a": {"producer_byte_rate": 2}},
		map[string][]image.QuotaEntityPart{"a": {{Type: "user", Name: str("alice")}}})
	if quota.Of(changed) == got[0] || quota.Of(changed).Client(quota.Produce, "alice", "").Bound != 2 {
		t.Error("an image with other quotas shares the old index")
	}
}

// FuzzDescribeClientQuotas: any request bytes that decode at v0 or v1 get
// an answer that encodes and decodes again, a refusal exactly when the
// answer has an error code, never a panic.
func FuzzDescribeClientQuotas(f *testing.F) {
	q := exampleImage().ClientQuotas()
	for _, comps := range [][]kmsg.DescribeClientQuotasRequestComponent{
		nil,
		{{EntityType: "user", MatchType: 2}},
		{{EntityType: "user", MatchType: 0, Match: str("alice")}, {EntityType: "client-id", MatchType: 1}},
		{{EntityType: "ip", MatchType: 0, Match: str("10.0.0.1")}},
		{{EntityType: "", MatchType: 9}},
	} {
		for v := int16(0); v <= 1; v++ {
			req := kmsg.NewPtrDescribeClientQuotasRequest()
			req.Version, req.Components, req.Strict = v, comps, v == 1
			f.Add(req.AppendTo(nil), v == 1)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, flexible bool) {
		req := kmsg.NewPtrDescribeClientQuotasRequest()
		if flexible {
			req.Version = 1
		}
		if req.ReadFrom(data) != nil {
			return
		}
		resp, err := quota.DescribeClientQuotas(q, req)
		if (err != nil) != (resp.ErrorCode != 0) {
			t.Fatalf("error %v with code %d", err, resp.ErrorCode)
		}
		back := kmsg.NewPtrDescribeClientQuotasResponse()
		back.Version = resp.Version
		if err := back.ReadFrom(resp.AppendTo(nil)); err != nil {
			t.Fatalf("the answer does not decode: %v", err)
		}
	})
}

// FuzzParseIP: ParseIP never panics; an address it reads prints (as
// HostAddress) to a literal it reads back as the same address.
func FuzzParseIP(f *testing.F) {
	for _, s := range []string{"1.2.3.4", "010.0.0.1", "1.2", "16909060", "::1", "[::1]", "fe80::1%1", "::ffff:1.2.3.4", "1:2:3:4:5:6:1.2.3.4", "x", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := quota.ParseIP(s)
		if err != nil {
			if !errors.Is(err, quota.ErrNotIPLiteral) {
				t.Fatalf("%q: untyped error %v", s, err)
			}
			return
		}
		b, err := quota.ParseIP(quota.HostAddress(a))
		if err != nil || b != a {
			t.Fatalf("%q -> %v -> %q -> %v, %v", s, a, quota.HostAddress(a), b, err)
		}
	})
}
