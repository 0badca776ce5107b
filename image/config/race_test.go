package config

import (
	"strconv"
	"sync"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image"
)

// TestConcurrentReaders: readers resolve topics and answer DescribeConfigs
// on one Broker while new images are applied to it (run with -race).
func TestConcurrentReaders(t *testing.T) {
	base, err := NewBroker(baseStatic())
	if err != nil {
		t.Fatal(err)
	}
	mk := func(n int) *image.Image {
		ib := image.NewBuilder(nil)
		ib.PutConfigs(map[image.ConfigResource][]image.ConfigEntry{
			{Type: image.ConfigBroker, Name: ""}:      {{Name: "log.retention.ms", Value: strconv.Itoa(1000 + n)}},
			{Type: image.ConfigTopic, Name: "orders"}: {{Name: "segment.ms", Value: strconv.Itoa(5000 + n)}},
		})
		putTopics(t, ib, []string{"orders"})
		return ib.Image(image.Provenance{})
	}
	img := mk(0)
	b := base.Apply(img)
	req := kmsg.NewPtrDescribeConfigsRequest()
	r := kmsg.NewDescribeConfigsRequestResource()
	r.ResourceType, r.ResourceName = kmsg.ConfigResourceTypeTopic, "orders"
	req.Resources = append(req.Resources, r)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				if _, err := b.Topic(img, "orders"); err != nil {
					t.Error(err)
					return
				}
				b.DescribeConfigs(img, req, nil, authzCtx)
			}
		}()
	}
	for i := 1; i < 50; i++ {
		if nb := b.Apply(mk(i)); nb.DynamicDefault()["log.retention.ms"] != strconv.Itoa(1000+i) {
			t.Fatalf("apply %d: %v", i, nb.DynamicDefault())
		}
	}
	wg.Wait()
}
