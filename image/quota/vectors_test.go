package quota_test

import (
	"math"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/quota"
	"github.com/kmeta-go/kmeta/internal/kafkaoracle"
	"github.com/kmeta-go/kmeta/internal/sharedtest"
	"github.com/kmeta-go/kmeta/publisher/dirfollow"
)

// vectorEntity is one quota entity of a vector image.
type vectorEntity struct {
	Parts []struct {
		Type string  `json:"type"`
		Name *string `json:"name"`
	} `json:"parts"`
	Values map[string]float64 `json:"values"`
}

// clientVector is one line of quota-clients.jsonl.gz (QuotaClients.java).
type clientVector struct {
	Name     string         `json:"name"`
	Entities []vectorEntity `json:"entities"`
	Enabled  []int          `json:"enabled"`
	Clients  []struct {
		User      string `json:"user"`
		Sanitized string `json:"sanitized"`
		ClientID  string `json:"clientId"`
		Results   []struct {
			User     string  `json:"user"`
			ClientID string  `json:"clientId"`
			Bound    float64 `json:"bound"`
		} `json:"results"`
	} `json:"clients"`
	IPs []struct {
		Addr    string `json:"addr"`
		Rate    int32  `json:"rate"`
		Enabled bool   `json:"enabled"`
		Tag     string `json:"tag"`
	} `json:"ips"`
	Names []struct {
		Name string `json:"name"`
		Host string `json:"host"`
	} `json:"names"`
}

// noQuota is the bound ClientQuotaManager.quota reports when no quota
// applies (Long.MAX_VALUE as a double).
const noQuota = float64(math.MaxInt64)

// vectorImage builds the image of a vector's entities.
func vectorImage(es []vectorEntity) *image.Image {
	changes := map[string]*image.QuotaEntity{}
	for _, e := range es {
		parts := make([]image.QuotaEntityPart, len(e.Parts))
		for i, p := range e.Parts {
			parts[i] = image.QuotaEntityPart{Type: p.Type, Name: p.Name}
		}
		var vs []image.QuotaValue
		for k, v := range e.Values {
			vs = append(vs, image.QuotaValue{Key: k, Value: v})
		}
		slices.SortFunc(vs, func(a, b image.QuotaValue) int { return strings.Compare(a.Key, b.Key) })
		changes[image.QuotaEntityKey(parts)] = image.NewQuotaEntity(parts, vs)
	}
	b := image.NewBuilder(nil)
	b.PutClientQuotas(changes)
	return b.Image(image.EmptyProvenance)
}

// TestClientQuotasKafkaVectors (ClientQuotaManager's DefaultQuotaCallback
// behind ClientQuotaMetadataManager): for every image of
// quota-clients.jsonl.gz, the levels enabled per quota type, and for every
// client its sanitized user, the metric tags and the bound of each quota
// type, equal Kafka's. The images include brokers that loaded one image
// and then a delta over it: their managers' state is the final image's.
// The first line is issue 22's wrong result (only
// client-id=<default> set; user bob with an empty client id has no quota).
func TestClientQuotasKafkaVectors(t *testing.T) {
	images, clients := 0, 0
	kafkaoracle.Decode(t, "quota-clients", func(n int, v *clientVector) {
		t.Run(kafkaoracle.Name("quota-clients", n), func(t *testing.T) {
			ix := quota.NewIndex(vectorImage(v.Entities).ClientQuotas())
			checkClients(t, ix, v)
			checkIPs(t, ix, v)
			images++
			clients += len(v.Clients)
		})
	})
	t.Logf("%d images, %d clients x 4 quota types", images, clients)
}

func checkClients(t *testing.T, ix *quota.Index, v *clientVector) {
	t.Helper()
	for i, want := range v.Enabled {
		if got := ix.Enabled(quota.Types()[i]); int(got) != want {
			t.Errorf("%s: %v enabled levels %d, Kafka %d", v.Name, quota.Types()[i], got, want)
		}
	}
	for _, c := range v.Clients {
		if got := quota.Sanitize(c.User); got != c.Sanitized {
			t.Errorf("Sanitize(%q) = %q, Kafka %q", c.User, got, c.Sanitized)
		}
		for i, want := range c.Results {
			got := ix.Client(quota.Types()[i], c.Sanitized, c.ClientID)
			wantOK := want.Bound != noQuota
			if got.Tags.User != want.User || got.Tags.ClientID != want.ClientID || got.OK != wantOK || (wantOK && got.Bound != want.Bound) {
				t.Errorf("%s: %v (user %q, client %q) = %+v; Kafka tags (%q, %q) bound %v", v.Name, quota.Types()[i],
					c.User, c.ClientID, got, want.User, want.ClientID, want.Bound)
			}
		}
	}
}

func checkIPs(t *testing.T, ix *quota.Index, v *clientVector) {
	t.Helper()
	for _, c := range v.IPs {
		addr, err := netip.ParseAddr(c.Addr)
		if err != nil {
			t.Fatalf("address %q: %v", c.Addr, err)
		}
		rate, enabled := ix.IP(addr)
		if rate != c.Rate || enabled != c.Enabled {
			t.Errorf("%s: IP(%s) = %d, %v; Kafka %d, %v", v.Name, c.Addr, rate, enabled, c.Rate, c.Enabled)
		}
		if got := quota.HostAddress(addr); got != c.Tag {
			t.Errorf("HostAddress(%s) = %q, Kafka's tag %q", c.Addr, got, c.Tag)
		}
	}
	for _, nm := range v.Names {
		addr, err := quota.ParseIP(nm.Name)
		// getHostAddress prints the scope Java parsed; addresses compare
		// without it, and ParseIP drops it.
		host, _, _ := strings.Cut(nm.Host, "%")
		if err != nil || quota.HostAddress(addr) != host {
			t.Errorf("ParseIP(%q) = %v, %v; Kafka's InetAddress.getByName %s", nm.Name, addr, err, nm.Host)
		}
	}
	if ig := ix.Ignored(); slices.ContainsFunc(ig, func(i quota.Ignored) bool { return i.Reason == quota.ReasonUnresolvedIP }) {
		t.Errorf("%s: an ip entity Kafka read as a literal is unresolved: %v", v.Name, ig)
	}
}

// TestClientQuotasScenarioImages: the quotas of each snapshot scenario's
// image as kmeta loads its __cluster_metadata-0 directory are the
// entities of the scenario's vector (Kafka's image of the same files).
func TestClientQuotasScenarioImages(t *testing.T) {
	byName := map[string]*clientVector{}
	kafkaoracle.Decode(t, "quota-clients", func(n int, v *clientVector) {
		if rest, ok := strings.CutPrefix(v.Name, "scenario "); ok {
			byName[rest] = v
		}
	})
	for _, dir := range sharedtest.Scenarios(t) {
		name := filepath.Base(filepath.Dir(dir)) + "/" + filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			v := byName[name]
			if v == nil {
				t.Fatalf("no vector for scenario %s", name)
			}
			if _, err := os.Stat(filepath.Join(dir, "__cluster_metadata-0")); err != nil {
				t.Skip("no __cluster_metadata-0")
			}
			img, err := dirfollow.LoadImage(dir)
			if err != nil {
				t.Fatal(err)
			}
			want := vectorImage(v.Entities).ClientQuotas()
			if got := img.ClientQuotas(); !sameQuotas(got, want) {
				t.Fatalf("kmeta's image has other quotas than Kafka's")
			}
			checkClients(t, quota.Of(img), v)
			checkIPs(t, quota.Of(img), v)
		})
	}
}

func sameQuotas(a, b *image.ClientQuotas) bool {
	if a.Len() != b.Len() {
		return false
	}
	for k, e := range a.Entities() {
		f, ok := b.Entity(k)
		if !ok || !slices.Equal(e.Values(), f.Values()) {
			return false
		}
	}
	return true
}

// TestIssue22OnlyDefaultClientID: issue 22's wrong result, as Kafka's
// vector has it. With only client-id=<default> set (producer_byte_rate
// 100), Kafka's ClientQuotaManager gives user bob with an empty client id
// no quota (its metric tags are both empty); the old answer.ClientQuota
// gave 100. kmeta now gives Kafka's answer.
func TestIssue22OnlyDefaultClientID(t *testing.T) {
	found := false
	kafkaoracle.Decode(t, "quota-clients", func(n int, v *clientVector) {
		if !strings.HasPrefix(v.Name, "issue22:") {
			return
		}
		found = true
		ix := quota.NewIndex(vectorImage(v.Entities).ClientQuotas())
		for _, c := range v.Clients {
			if c.User != "bob" || c.ClientID != "" {
				continue
			}
			want := c.Results[0] // produce
			if want.Bound != noQuota || want.User != "" || want.ClientID != "" {
				t.Fatalf("Kafka's vector is not issue 22's answer: %+v", want)
			}
			if got := ix.Client(quota.Produce, "bob", ""); got.OK || got.Tags != (quota.Tags{}) {
				t.Errorf("bob with an empty client id: %+v; Kafka: no quota", got)
			}
			return
		}
		t.Error("no client bob with an empty client id in the issue 22 vector")
	})
	if !found {
		t.Fatal("no issue 22 vector")
	}
}
