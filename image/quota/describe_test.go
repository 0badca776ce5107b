package quota_test

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strconv"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image/quota"
	"github.com/kmeta-go/kmeta/internal/kafkaoracle"
)

// describeVector is one line of quota-describe.jsonl.gz (QuotaDescribe.java).
type describeVector struct {
	Name     string         `json:"name"`
	Entities []vectorEntity `json:"entities"`
	Cases    []struct {
		Request  any               `json:"request"` // version -> hex, or "unauthorized"
		Response map[string]string `json:"response"`
	} `json:"cases"`
}

// TestDescribeClientQuotasKafkaVectors (ClientQuotasImage.describe as
// KafkaApis.handleDescribeClientQuotasRequest answers it): every request of
// quota-describe.jsonl.gz, decoded at each version, is answered with
// exactly the bytes Kafka's answer encodes to at that version: matching
// entities, strict mode, validation errors with their codes and messages,
// and the CLUSTER_AUTHORIZATION_FAILED answer. The one difference is the
// order of entries, parts and values, which Kafka takes from its HashMaps
// and the harness sorts into kmeta's order before encoding.
func TestDescribeClientQuotasKafkaVectors(t *testing.T) {
	cases, refused, found := 0, 0, 0
	kafkaoracle.Decode(t, "quota-describe", func(n int, v *describeVector) {
		t.Run(kafkaoracle.Name("quota-describe", n), func(t *testing.T) {
			q := vectorImage(v.Entities).ClientQuotas()
			for i, c := range v.Cases {
				for ver := int16(0); ver <= 1; ver++ {
					want, err := hex.DecodeString(c.Response[strconv.Itoa(int(ver))])
					if err != nil {
						t.Fatal(err)
					}
					var got *kmsg.DescribeClientQuotasResponse
					if s, ok := c.Request.(string); ok && s == "unauthorized" {
						got = quota.DescribeClientQuotasUnauthorized(ver)
					} else {
						req := decodeRequest(t, c.Request.(map[string]any)[strconv.Itoa(int(ver))].(string), ver)
						var ferr error
						got, ferr = quota.DescribeClientQuotas(q, req)
						var fe *quota.FilterError
						if ferr != nil && (!errors.As(ferr, &fe) || fe.Code.Int16() != got.ErrorCode) {
							t.Errorf("case %d: error %v does not match the answer's code %d", i, ferr, got.ErrorCode)
						}
						if ferr != nil && ver == 0 {
							refused++
						}
						if len(got.Entries) > 0 && ver == 0 {
							found++
						}
					}
					if b := got.AppendTo(nil); !bytes.Equal(b, want) {
						t.Errorf("%s case %d v%d:\n got %x\nwant %x", v.Name, i, ver, b, want)
					}
					cases++
				}
			}
		})
	})
	t.Logf("%d answers (at v0: %d refused filters, %d answers with entries)", cases, refused, found)
}

func decodeRequest(t *testing.T, h string, ver int16) *kmsg.DescribeClientQuotasRequest {
	t.Helper()
	b, err := hex.DecodeString(h)
	if err != nil {
		t.Fatal(err)
	}
	req := kmsg.NewPtrDescribeClientQuotasRequest()
	req.Version = ver
	if err := req.ReadFrom(b); err != nil {
		t.Fatalf("request %x: %v", b, err)
	}
	return req
}
