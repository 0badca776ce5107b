// Package publisher will hold kmeta's loader (Kafka's MetadataLoader): it
// takes committed batches and snapshots from the embedder, builds deltas,
// publishes one image per commit once caught up, and feeds publishers such as
// the cache and the snapshot generator.
//
// It is not written yet; see the project's issue "The loader and its
// publishers".
package publisher
