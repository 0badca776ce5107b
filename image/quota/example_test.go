package quota_test

import (
	"errors"
	"fmt"
	"net/netip"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/quota"
)

// exampleImage is an image with a few client and IP quotas, as AlterClientQuotas would leave them.
func exampleImage() *image.Image {
	str := func(s string) *string { return &s }
	entity := func(key string, v float64, parts ...image.QuotaEntityPart) (string, *image.QuotaEntity) {
		return image.QuotaEntityKey(parts), image.NewQuotaEntity(parts, []image.QuotaValue{{Key: key, Value: v}})
	}
	changes := map[string]*image.QuotaEntity{}
	for _, e := range []struct {
		key   string
		v     float64
		parts []image.QuotaEntityPart
	}{
		{"producer_byte_rate", 1 << 20, []image.QuotaEntityPart{{Type: "user", Name: str("alice")}}},
		{"producer_byte_rate", 1 << 16, []image.QuotaEntityPart{{Type: "user"}}},
		{"request_percentage", 50, []image.QuotaEntityPart{{Type: "client-id"}}},
		{"connection_creation_rate", 10, []image.QuotaEntityPart{{Type: "ip", Name: str("10.0.0.1")}}},
	} {
		k, q := entity(e.key, e.v, e.parts...)
		changes[k] = q
	}
	b := image.NewBuilder(nil)
	b.PutClientQuotas(changes)
	return b.Image(image.EmptyProvenance)
}

// A broker resolves a client's quotas from the image: the principal's name
// sanitized once per connection, then a lookup per quota type.
func Example() {
	img := exampleImage()
	user := quota.Sanitize("alice") // Session.sanitizedUser
	for _, t := range quota.Types() {
		lim := quota.Of(img).Client(t, user, "orders-app")
		fmt.Printf("%v: ok=%v bound=%v bucket=%+v\n", t, lim.OK, lim.Bound, lim.Tags)
	}
	rate, throttled := quota.Of(img).IP(netip.MustParseAddr("10.0.0.1"))
	fmt.Println("connections from 10.0.0.1:", rate, "per second, throttled:", throttled)
	// Output:
	// Produce: ok=true bound=1.048576e+06 bucket={User:alice ClientID:}
	// Fetch: ok=false bound=0 bucket={User: ClientID:orders-app}
	// Request: ok=true bound=50 bucket={User: ClientID:orders-app}
	// ControllerMutation: ok=false bound=0 bucket={User: ClientID:orders-app}
	// connections from 10.0.0.1: 10 per second, throttled: true
}

// With quotas at one level only, the tags are that level's: here only
// client-id=<default> has a request quota, so a client with an empty
// client id has none (issue 22's case).
func ExampleIndex_Client() {
	ix := quota.Of(exampleImage())
	fmt.Println(ix.Client(quota.Request, "bob", "app"))
	fmt.Println(ix.Client(quota.Request, "bob", ""))
	// Output:
	// {{ app} 50 true}
	// {{ } 0 false}
}

func ExampleIndex_Enabled() {
	ix := quota.Of(exampleImage())
	fmt.Println(ix.Enabled(quota.Produce) == quota.LevelUser, ix.Enabled(quota.Request) == quota.LevelClientID)
	// Output: true true
}

func ExampleIndex_IP() {
	ix := quota.Of(exampleImage())
	fmt.Println(ix.IP(netip.MustParseAddr("::ffff:10.0.0.1"))) // the IPv4 address, as Java sees it
	fmt.Println(ix.IP(netip.MustParseAddr("10.0.0.2")))
	// Output:
	// 10 true
	// 2147483647 false
}

func ExampleNewIndex() {
	str := func(s string) *string { return &s }
	parts := []image.QuotaEntityPart{{Type: "ip", Name: str("db.example.com")}}
	b := image.NewBuilder(nil)
	b.PutClientQuotas(map[string]*image.QuotaEntity{
		image.QuotaEntityKey(parts): image.NewQuotaEntity(parts, []image.QuotaValue{{Key: "connection_creation_rate", Value: 5}}),
	})
	for _, ig := range quota.NewIndex(b.Image(image.EmptyProvenance).ClientQuotas()).Ignored() {
		fmt.Printf("%q: %s\n", ig.Entity, ig.Reason)
	}
	// Output: "ip=db.example.com": ip entity name is not an IP address literal
}

func ExampleIndex_Ignored() {
	str := func(s string) *string { return &s }
	parts := []image.QuotaEntityPart{{Type: "user", Name: str("alice")}}
	b := image.NewBuilder(nil)
	b.PutClientQuotas(map[string]*image.QuotaEntity{
		image.QuotaEntityKey(parts): image.NewQuotaEntity(parts, []image.QuotaValue{{Key: "fetch_rate", Value: 5}}),
	})
	fmt.Println(quota.NewIndex(b.Image(image.EmptyProvenance).ClientQuotas()).Ignored())
	// Output: [{user=alice fetch_rate unexpected quota key}]
}

func ExampleSanitize() {
	fmt.Println(quota.Sanitize("alice"), quota.Sanitize("CN=a b,O=*"), quota.Sanitize("ü"))
	// Output: alice CN%3Da%20b%2CO%3D%2A %C3%BC
}

func ExampleParseIP() {
	for _, name := range []string{"010.0.0.1", "10.1", "::ffff:10.0.0.1", "[fe80::1%2]", "broker-1"} {
		addr, err := quota.ParseIP(name)
		if err != nil {
			fmt.Println(errors.Is(err, quota.ErrNotIPLiteral), err)
			continue
		}
		fmt.Println(addr)
	}
	// Output:
	// 10.0.0.1
	// 10.0.0.1
	// 10.0.0.1
	// fe80::1
	// true quota: ip "broker-1": not an IP address literal
}

func ExampleHostAddress() {
	fmt.Println(quota.HostAddress(netip.MustParseAddr("2001:db8::1")), quota.HostAddress(netip.MustParseAddr("::ffff:1.2.3.4")))
	// Output: 2001:db8:0:0:0:0:0:1 1.2.3.4
}

func ExampleTypeOf() {
	t, ok := quota.TypeOf("consumer_byte_rate")
	fmt.Println(t, ok, t.Key())
	_, ok = quota.TypeOf("connection_creation_rate")
	fmt.Println(ok)
	// Output:
	// Fetch true consumer_byte_rate
	// false
}

func ExampleDescribeClientQuotas() {
	req := kmsg.NewPtrDescribeClientQuotasRequest()
	req.Version = 1
	c := kmsg.NewDescribeClientQuotasRequestComponent()
	c.EntityType, c.MatchType = "user", 2 // every entity with a user part
	req.Components = append(req.Components, c)
	resp, err := quota.DescribeClientQuotas(exampleImage().ClientQuotas(), req)
	for _, e := range resp.Entries {
		fmt.Println(e.Entity[0].Type, e.Entity[0].Name != nil, e.Values[0].Key, e.Values[0].Value)
	}
	fmt.Println(err)

	c.MatchType = 0 // MATCH_TYPE_EXACT without a name
	req.Components[0] = c
	resp, err = quota.DescribeClientQuotas(exampleImage().ClientQuotas(), req)
	fmt.Println(resp.ErrorCode, *resp.ErrorMessage)
	fmt.Println(err)
	// Output:
	// user false producer_byte_rate 65536
	// user true producer_byte_rate 1.048576e+06
	// <nil>
	// 42 Request specified MATCH_TYPE_EXACT, but set match string to null.
	// quota: DescribeClientQuotas: Request specified MATCH_TYPE_EXACT, but set match string to null. (error code 42)
}

func ExampleDescribeClientQuotasUnauthorized() {
	resp := quota.DescribeClientQuotasUnauthorized(1)
	fmt.Println(resp.ErrorCode, resp.ErrorMessage == nil, resp.Entries == nil)
	// Output: 31 true true
}

func ExampleOf() {
	img := exampleImage()
	first := quota.Of(img)
	b := image.NewBuilder(img) // a change elsewhere keeps the quotas, and their index
	b.SetNextProducerID(5000)
	fmt.Println(quota.Of(b.Image(image.EmptyProvenance)) == first)
	// Output: true
}

func ExampleType_String() {
	fmt.Println(quota.ControllerMutation, quota.ControllerMutation.Key())
	// Output: ControllerMutation controller_mutation_rate
}
