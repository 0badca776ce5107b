package publisher

import (
	"github.com/kmeta-go/kmeta/image"
)

// Cache is the publisher that request handlers read from: the latest image
// behind an atomic pointer (the image half of Kafka's KRaftMetadataCache,
// which BrokerMetadataPublisher sets first on every update). Reads take no
// lock and do not allocate; an image once loaded stays valid and unchanged
// however long the reader keeps it.
type Cache struct {
	name string
	cur  latestPublication
}

// NewCache returns a cache holding the empty image. name is its publisher
// name ("cache" if empty).
func NewCache(name string) *Cache {
	if name == "" {
		name = "cache"
	}
	c := &Cache{name: name}
	c.cur.publish(image.Empty(), false)
	return c
}

// Load returns the latest image: image.Empty() before the first update.
func (c *Cache) Load() *image.Image { return c.cur.load().img }

// Watch returns the latest image and a channel closed when a newer one
// arrives.
func (c *Cache) Watch() (*image.Image, <-chan struct{}) {
	g := c.cur.load()
	return g.img, g.wait()
}

// Name implements Publisher.
func (c *Cache) Name() string { return c.name }

// OnUpdate implements Publisher: it makes the update's image the latest.
func (c *Cache) OnUpdate(u Update) error {
	c.cur.publish(u.Image, false)
	return nil
}

// Close implements Publisher. The cache keeps serving its last image.
func (c *Cache) Close() error { return nil }
