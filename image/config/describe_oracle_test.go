package config

import (
	"bytes"
	"fmt"
	"strconv"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image/authz"
	"github.com/kmeta-go/kmeta/internal/kafkaoracle"
)

// denySet is an authz.Authorizer that denies the resources a vector names
// ("topic:orders", "group:g", "cluster:kafka-cluster").
type denySet map[string]bool

func (d denySet) Authorize(_ authz.Context, op authz.Operation, rt authz.ResourceType, name string) bool {
	if op != authz.OpDescribeConfigs {
		return false
	}
	kind := map[authz.ResourceType]string{authz.ResourceTopic: "topic", authz.ResourceGroup: "group", authz.ResourceCluster: "cluster"}[rt]
	return !d[kind+":"+name]
}

func (v *describeVector) request(version int16) *kmsg.DescribeConfigsRequest {
	req := kmsg.NewPtrDescribeConfigsRequest()
	req.Version = version
	req.IncludeSynonyms, req.IncludeDocumentation = v.Synonyms, v.Documentation
	for _, r := range v.Resources {
		x := kmsg.NewDescribeConfigsRequestResource()
		x.ResourceType, x.ResourceName = kmsg.ConfigResourceType(r.Type), r.Name
		if r.Keys != nil {
			x.ConfigNames = append([]string{}, *r.Keys...)
		}
		req.Resources = append(req.Resources, x)
	}
	return req
}

// TestOracleDescribeConfigs: every DescribeConfigs answer, encoded at every
// version, equals Kafka's byte for byte (ConfigHelper run by the harness).
// Exception, counted: Kafka's documentation strings are answered null (the
// harness nulls them before encoding, kmeta does not carry them).
func TestOracleDescribeConfigs(t *testing.T) {
	answers, docs := 0, 0
	kafkaoracle.Decode(t, "config-resolve", func(n int, v *resolveVector) {
		t.Run(kafkaoracle.Name("config-resolve", n)+"/"+v.Name, func(t *testing.T) {
			b, err := NewBroker(v.Static)
			if err != nil {
				t.Fatalf("NewBroker: %v", err)
			}
			img := vectorImage(t, v)
			b = b.Apply(img)
			deny := denySet{}
			for _, d := range v.Denied {
				deny[d] = true
			}
			for qi, q := range v.Requests {
				docs += q.Docs
				for ver, want := range q.Responses {
					version, _ := strconv.Atoi(ver)
					resp := b.DescribeConfigs(img, q.request(int16(version)), deny, authz.Context{Principal: "User:test"})
					got := resp.AppendTo(nil)
					answers++
					if !bytes.Equal(got, want) {
						t.Errorf("request %d v%d: answer differs from Kafka's\n%s", qi, version, diffDescribe(t, int16(version), got, want))
					}
				}
			}
		})
	})
	t.Logf("%d answers equal Kafka's; %d documentation strings answered null (the exception)", answers, docs)
}

// diffDescribe says where two encoded answers first differ.
func diffDescribe(t *testing.T, version int16, got, want []byte) string {
	g, w := kmsg.NewPtrDescribeConfigsResponse(), kmsg.NewPtrDescribeConfigsResponse()
	g.Version, w.Version = version, version
	if err := w.ReadFrom(want); err != nil {
		return "Kafka's answer does not decode: " + err.Error()
	}
	if err := g.ReadFrom(got); err != nil {
		return "our answer does not decode: " + err.Error()
	}
	if len(g.Resources) != len(w.Resources) {
		return fmt.Sprintf("%d resources, Kafka %d", len(g.Resources), len(w.Resources))
	}
	for i := range g.Resources {
		gr, wr := g.Resources[i], w.Resources[i]
		if gr.ResourceName != wr.ResourceName || gr.ErrorCode != wr.ErrorCode || str(gr.ErrorMessage, true) != str(wr.ErrorMessage, true) {
			return fmt.Sprintf("resource %d: %d %q %d %s, Kafka %d %q %d %s", i, gr.ResourceType, gr.ResourceName, gr.ErrorCode, str(gr.ErrorMessage, true), wr.ResourceType, wr.ResourceName, wr.ErrorCode, str(wr.ErrorMessage, true))
		}
		if len(gr.Configs) != len(wr.Configs) {
			return fmt.Sprintf("resource %s: %d configs, Kafka %d", gr.ResourceName, len(gr.Configs), len(wr.Configs))
		}
		for j := range gr.Configs {
			gc, wc := fmt.Sprintf("%+v", printable(gr.Configs[j])), fmt.Sprintf("%+v", printable(wr.Configs[j]))
			if gc != wc {
				return fmt.Sprintf("resource %s config %d:\n got   %s\n Kafka %s", gr.ResourceName, j, gc, wc)
			}
		}
	}
	return "differs outside the configs"
}

func printable(c kmsg.DescribeConfigsResponseResourceConfig) string {
	s := fmt.Sprintf("%s=%s src=%d ro=%v sens=%v type=%d doc=%s syn=[", c.Name, str(c.Value, true), c.Source, c.ReadOnly, c.IsSensitive, c.ConfigType, str(c.Documentation, true))
	for _, y := range c.ConfigSynonyms {
		s += fmt.Sprintf("%s=%s/%d ", y.Name, str(y.Value, true), y.Source)
	}
	return s + "]"
}
