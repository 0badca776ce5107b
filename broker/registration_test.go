package broker_test

import (
	"github.com/kmeta-go/kmeta/broker"
	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/publisher"
)

// Both views of a commit a publisher gets satisfy Changes.
var (
	_ broker.Changes = (*delta.Delta)(nil)
	_ broker.Changes = publisher.Changes{}
)
