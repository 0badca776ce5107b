package image_test

import (
	"fmt"

	"github.com/kmeta-go/kmeta/image"
)

// countKey is the key this example keeps its derived value under: a type
// of its own, so no other package's value is mistaken for it.
type countKey struct{}

// A value computed from an image's client quotas once, and shared by every
// image that keeps the same quotas (package image/quota keeps its lookup
// index this way).
func ExampleClientQuotas_Derived() {
	name := "alice"
	parts := []image.QuotaEntityPart{{Type: "user", Name: &name}}
	b := image.NewBuilder(nil)
	b.PutClientQuotas(map[string]*image.QuotaEntity{
		image.QuotaEntityKey(parts): image.NewQuotaEntity(parts, []image.QuotaValue{{Key: "producer_byte_rate", Value: 1024}}),
	})
	img := b.Image(image.EmptyProvenance)
	builds := 0
	count := func(q *image.ClientQuotas) any { builds++; return q.Len() }

	next := image.NewBuilder(img) // a change elsewhere: the quotas are shared
	next.SetNextProducerID(1000)
	later := next.Image(image.EmptyProvenance)

	fmt.Println(img.ClientQuotas().Derived(countKey{}, count), later.ClientQuotas().Derived(countKey{}, count), builds)
	// Output: 1 1 1
}
