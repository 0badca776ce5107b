package image_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/redact"
)

// configValues returns the config values WriteJSON prints for topic orders.
func configValues(t *testing.T, img *image.Image, opts image.WriteJSONOptions) map[string]string {
	t.Helper()
	var b bytes.Buffer
	if err := image.WriteJSON(&b, img, opts); err != nil {
		t.Fatal(err)
	}
	var out struct {
		Configs []struct {
			ResourceName string            `json:"resourceName"`
			Configs      map[string]string `json:"configs"`
		} `json:"configs"`
	}
	if err := json.Unmarshal(b.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	for _, c := range out.Configs {
		if c.ResourceName == "orders" {
			return c.Configs
		}
	}
	t.Fatalf("no configs of topic orders in %s", b.String())
	return nil
}

// TestWriteJSONRedactsByDefault: WriteJSONOptions left zero hides every config
// value, as Kafka's NodeStringifier does when given no criteria
// (MetadataNodeRedactionCriteria.Strict); redact.IsSensitive
// (MetadataNodeRedactionCriteria.Normal) shows the values Kafka's schema
// knows are not secrets and hides the rest; Unredacted shows all.
func TestWriteJSONRedactsByDefault(t *testing.T) {
	sim := deltatest.MustCluster(1)
	sim.MustCreateTopic("orders", 1, 1)
	sim.SetTopicConfig("orders", "retention.ms", "3600000")
	sim.SetTopicConfig("orders", "x.custom.secret", "hunter2")
	img := sim.Image()

	cases := []struct {
		name string
		opts image.WriteJSONOptions
		want map[string]string
	}{
		{"zero options", image.WriteJSONOptions{}, map[string]string{"retention.ms": redact.Redacted, "x.custom.secret": redact.Redacted}},
		{"redact.IsSensitive", image.WriteJSONOptions{Sensitive: redact.IsSensitive}, map[string]string{"retention.ms": "3600000", "x.custom.secret": redact.Redacted}},
		{"Unredacted", image.WriteJSONOptions{Unredacted: true}, map[string]string{"retention.ms": "3600000", "x.custom.secret": "hunter2"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := configValues(t, img, c.opts)
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("config values %v, want %v", got, c.want)
			}
		})
	}
}

// TestDiffRedactsByDefault: DiffOptions left zero prints no config value
// (MetadataNodeRedactionCriteria.Strict), yet still finds the change.
func TestDiffRedactsByDefault(t *testing.T) {
	sim := deltatest.MustCluster(1)
	sim.MustCreateTopic("orders", 1, 1)
	sim.SetTopicConfig("orders", "x.custom.secret", "hunter2")
	before := sim.Image()
	sim.SetTopicConfig("orders", "x.custom.secret", "swordfish")
	after := sim.Image()

	ds := image.Diff(before, after, image.DiffOptions{})
	if len(ds) != 1 {
		t.Fatalf("got %d differences %v, want 1", len(ds), ds)
	}
	s := ds[0].String()
	if strings.Contains(s, "hunter2") || strings.Contains(s, "swordfish") || !strings.Contains(s, redact.Redacted) {
		t.Errorf("difference %q shows a config value or no %s", s, redact.Redacted)
	}
	if s := image.Diff(before, after, image.DiffOptions{Unredacted: true})[0].String(); !strings.Contains(s, "swordfish") {
		t.Errorf("unredacted difference %q hides the value", s)
	}
}
