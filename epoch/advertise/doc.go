// Package advertise is the part of a Kafka proxy that decides which address
// a client dials for each upstream broker, and rewrites every broker address
// in the answers the proxy sends so that clients never see an upstream one.
//
// It lives under epoch because it works on the client side of the protocol,
// beside epoch/clientview's View: its input is what brokers answer (kmsg responses from
// a real cluster, or answers built by image/answer from an image), not the
// metadata log or the image, and a proxy uses it together with the View it
// builds from those answers. It has no networking and no goroutine of its
// own; opening a listener for a new broker is the embedder's Allocator.
//
// A Map holds, per upstream broker id, the endpoint the proxy advertises and
// the upstream endpoint it forwards to. The advertised endpoint is chosen
// once per broker id (Allocator) and kept when the broker's upstream host or
// port changes, so a client's connections and its broker-id → address cache
// stay valid when a cloud replaces a broker's host but reuses its id.
//
// A Rewriter applies a Map to every place a Kafka response carries a broker
// address:
//
//   - Metadata brokers (MetadataResponse.Brokers);
//   - DescribeCluster brokers, which are controllers when the request asked
//     for EndpointType 2 (KIP-919);
//   - FindCoordinator's single coordinator (v0-v3) and batched coordinators
//     (v4+, KIP-699);
//   - the KIP-951 NodeEndpoints of Produce (v10+) and Fetch (v16+) answers,
//     and the CurrentLeader hints that refer to them;
//   - the NodeEndpoints of ShareFetch and ShareAcknowledge (KIP-932).
//
// DescribeTopicPartitions (KIP-966) answers carry broker ids only; the ids
// are kept, so they resolve through the rewritten Metadata and
// DescribeCluster lists. A broker the Map does not know and cannot allocate
// an endpoint for is removed from lists, and a hint naming it is cleared
// (leader -1, epoch -1), so that a client falls back to Metadata rather than
// dialling an upstream address.
//
// Answers the proxy forwards are rewritten only where they can carry an
// address: ScanProduce and ScanFetch walk a Produce or Fetch answer without
// decoding or allocating and say whether it carries NodeEndpoints or
// partition errors, so the common answer is forwarded as it came.
//
// Which APIs a proxy may offer is Intersect of what upstream offers and what
// the proxy can parse and rewrite (Rewritable): an API that may carry an
// address this package does not know how to rewrite is never offered.
//
// Per-request views go through the Shaper interface: a Shaper sees the
// client (its client id, its rack, its address) and the rewritten broker
// list and may filter, order or re-host it; RackFirst, RackOnly and
// ClientHosts (Bufstream-style host overrides by client id) are provided.
package advertise
