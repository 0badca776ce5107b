package quota_test

import (
	"net/netip"
	"strconv"
	"testing"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/quota"
	"github.com/kmeta-go/kmeta/internal/benchtest"
)

// benchQuotaImage is an image of n quota entities over every level: per
// user i, user=u<i> (produce), user=u<i>, client-id=c<i%100> (fetch) and,
// every tenth, user=u<i>, client-id=<default>; client-id=c<i> for a
// quarter of them; the four defaults; and ip=10.x.y.z entities.
func benchQuotaImage(n int) *image.Image {
	changes := make(map[string]*image.QuotaEntity, n)
	put := func(parts []image.QuotaEntityPart, key string, v float64) {
		changes[image.QuotaEntityKey(parts)] = image.NewQuotaEntity(parts, []image.QuotaValue{{Key: key, Value: v}})
	}
	str := func(s string) *string { return &s }
	put([]image.QuotaEntityPart{{Type: "user"}}, "producer_byte_rate", 1)
	put([]image.QuotaEntityPart{{Type: "client-id"}}, "producer_byte_rate", 2)
	put([]image.QuotaEntityPart{{Type: "user"}, {Type: "client-id"}}, "consumer_byte_rate", 3)
	put([]image.QuotaEntityPart{{Type: "ip"}}, "connection_creation_rate", 4)
	for i := 0; len(changes) < n; i++ {
		u, c := str("u"+strconv.Itoa(i)), str("c"+strconv.Itoa(i%100))
		put([]image.QuotaEntityPart{{Type: "user", Name: u}}, "producer_byte_rate", float64(i))
		put([]image.QuotaEntityPart{{Type: "user", Name: u}, {Type: "client-id", Name: c}}, "consumer_byte_rate", float64(i))
		if i%10 == 0 {
			put([]image.QuotaEntityPart{{Type: "user", Name: u}, {Type: "client-id"}}, "request_percentage", float64(i))
		}
		if i%4 == 0 {
			put([]image.QuotaEntityPart{{Type: "client-id", Name: str("c" + strconv.Itoa(i))}}, "controller_mutation_rate", float64(i))
		}
		if i%8 == 0 {
			put([]image.QuotaEntityPart{{Type: "ip", Name: str("10." + strconv.Itoa(i>>16&255) + "." + strconv.Itoa(i>>8&255) + "." + strconv.Itoa(i&255))}}, "connection_creation_rate", float64(i))
		}
	}
	b := image.NewBuilder(nil)
	b.PutClientQuotas(changes)
	return b.Image(image.EmptyProvenance)
}

// BenchmarkClientQuota: one client's quota lookup (Of, then Client) on an
// image of 100 000 quota entities with quotas at every level, so every
// quota type takes the multi-level path of quotaMetricTags: a user with
// its own user+client-id quota, one that falls through to the defaults,
// and an unknown user and client. Target: <= 200 ns, 0 allocations.
func BenchmarkClientQuota(b *testing.B) {
	img := benchQuotaImage(100_000)
	quota.Of(img) // built once per set of quotas, not per lookup
	for _, c := range []struct{ name, user, client string }{
		{"own", "u4242", "c42"},
		{"defaults", "u4243", "c7"},
		{"unknown", "nobody", "nothing"},
	} {
		for _, ty := range []quota.Type{quota.Produce, quota.Fetch, quota.Request} {
			b.Run(c.name+"/"+ty.String(), func(b *testing.B) {
				b.ReportAllocs()
				defer benchtest.ReportCPU(b, benchtest.ProcessCPU())
				var sink quota.Limit
				for b.Loop() {
					sink = quota.Of(img).Client(ty, c.user, c.client)
				}
				_ = sink
			})
		}
	}
}

// BenchmarkClientQuotaManyClients: lookups cycling through 65 536
// different clients of the same image, so that the maps' cache misses are
// paid as a broker serving many clients pays them.
func BenchmarkClientQuotaManyClients(b *testing.B) {
	img := benchQuotaImage(100_000)
	users, clients := make([]string, 1<<16), make([]string, 1<<16)
	for i := range users {
		users[i], clients[i] = "u"+strconv.Itoa(i*7%40_000), "c"+strconv.Itoa(i%100)
	}
	quota.Of(img)
	b.ReportAllocs()
	defer benchtest.ReportCPU(b, benchtest.ProcessCPU())
	i := 0
	var sink quota.Limit
	for b.Loop() {
		sink = quota.Of(img).Client(quota.Fetch, users[i&(1<<16-1)], clients[i&(1<<16-1)])
		i++
	}
	_ = sink
}

// BenchmarkIPQuota: a connection's IP quota lookup on the same image.
func BenchmarkIPQuota(b *testing.B) {
	img := benchQuotaImage(100_000)
	addr := netip.MustParseAddr("10.0.1.8")
	quota.Of(img)
	b.ReportAllocs()
	defer benchtest.ReportCPU(b, benchtest.ProcessCPU())
	for b.Loop() {
		quota.Of(img).IP(addr)
	}
}

// BenchmarkQuotaIndexBuild: building the index of 100 000 entities, what
// the first lookup on an image with changed quotas pays.
func BenchmarkQuotaIndexBuild(b *testing.B) {
	q := benchQuotaImage(100_000).ClientQuotas()
	b.ReportAllocs()
	defer benchtest.ReportCPU(b, benchtest.ProcessCPU())
	for b.Loop() {
		quota.NewIndex(q)
	}
}
