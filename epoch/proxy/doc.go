// Package proxy is kmeta's Kafka-protocol proxy kit: the pieces a Go program
// needs to put a Kafka-speaking proxy in front of clients, answering from a
// metadata image or forwarding to a real cluster. It lives under epoch
// because it works on the client side of the protocol, beside
// epoch/clientview's View.
//
// # Framing and decoding
//
// FrameReader reads Kafka request frames from a connection and
// ParseHeader, DecodeBody and Decode decode them as a Kafka broker does,
// without ever panicking, spinning or allocating more than the bytes that
// arrived: the frame size is checked against socket.request.max.bytes
// before anything is allocated (Kafka's NetworkReceive.readFrom), the frame
// buffer grows only as bytes arrive, the request header (versions 1 and 2,
// with its tagged fields: RequestHeader.parse) and the bodies of the
// requests kmeta answers (ApiVersions, Metadata, FindCoordinator,
// DescribeCluster, DescribeTopicPartitions) are decoded through one
// bounds-checked reader, and every failure is an *Error naming the API
// key, the version and the byte position in the frame.
//
// Reading follows Kafka's generated readers (the *RequestData classes and
// ByteBufferAccessor): unsigned varints of at most five bytes taken as
// 32-bit ints, compact lengths as that value minus one, a length or array
// count larger than the bytes left is an error before anything is
// allocated, unknown tagged fields are skipped after their size is checked,
// and bytes after the body are ignored (AbstractRequest.parseRequest does
// not check for them).
//
// What Kafka does with a request it cannot serve, the caller does with the
// error: an ApiVersions request at a version above Supported's is answered
// with UNSUPPORTED_VERSION at version 0 (KIP-511: RequestContext.parseRequest
// does not parse its body; see IsUnsupportedApiVersions); any other error
// closes the connection (SocketServer's Processor closes the channel on an
// InvalidRequestException).
//
// # Addresses
//
// A Map holds, per upstream broker id, the endpoint the proxy advertises and
// the upstream endpoint it forwards to. The advertised endpoint is chosen
// once per broker id (Allocator) and kept when the broker's upstream host or
// port changes, so a client's connections and its broker-id → address cache
// stay valid when a cloud replaces a broker's host but reuses its id. A Map
// refuses brokers no Kafka broker registers as (ValidBroker: a negative id,
// a malformed host, a port outside 1-65535) and holds at most
// SetMaxBrokers ids, each a listener of the proxy's.
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
// Answers a proxy forwards are rewritten only where they can carry an
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
//
// # Servers
//
// Server answers ApiVersions, Metadata, DescribeCluster,
// DescribeTopicPartitions and FindCoordinator from the latest image a
// publisher.Loader published to it, as a broker on its listener would
// (image/answer), optionally with one port per broker id
// (AdvertisePerBroker). Forwarder is a proxy in front of a real cluster: a
// cluster view from upstream Metadata answers (clientview.Refresher), one
// port per upstream broker id, the view's answers where it holds them, and
// every other request forwarded to the broker whose port the client
// dialled, its answer's addresses rewritten.
//
// Both serve every listener through one accept policy and the same Limits,
// named after Kafka's broker configs: socket.request.max.bytes,
// connections.max.idle.ms, a request read timeout, max.connections
// (beyond it new connections wait), max.connections.per.ip (beyond it a
// connection is closed at once), and, for the Forwarder, one memory budget
// for every upstream answer in flight (Limits.UpstreamBufferBytes) and a
// cap on the broker ids advertised. Accept errors that waiting cures
// (EMFILE, ENFILE, ENOBUFS, ...) are retried with a backoff, as net/http's
// Server does; Serve returns an error only for one it does not. An Observer
// sees connections, requests (with the error code of an answer the proxy
// made itself), authorization denials and upstream latency, and one that is
// also a TrafficObserver the bytes of every frame each way, for metrics;
// the package depends on no metrics library (examples/proxy exports them to
// Prometheus).
//
// # When the cluster moves
//
// A Forwarder's Metadata requests go where a clientview.Rebootstrap sends
// them (KIP-899's metadata recovery): each attempt dials the brokers of
// the view, each address once, then the seeds (ForwarderConfig.Seeds, the
// -upstream bootstrap servers) when none answers; after an attempt in
// which every address failed the next waits the reconnect backoff (50 ms
// doubling to 1 s, ±20 % jitter: reconnect.backoff.ms and
// reconnect.backoff.max.ms) and starts at the seeds, as it does after an
// answer with REBOOTSTRAP_REQUIRED (KIP-1102). A cluster whose every node
// moved to a new address between two refreshes is found again through its
// seeds, provided they still lead to it (a DNS name or a load balancer, as
// for any Kafka client's bootstrap.servers). Every upstream dial, whoever
// makes it, keeps to one dial of a failing address per backoff step (one
// attempt and the wait after it), as Kafka's per-node reconnect backoff
// does; FwdStats.DialsHeld counts the dials not made. A client's request
// on a broker port whose upstream cannot be dialled waits for the view's
// next refreshes, within the refresh policy and the upstream timeout, and
// reaches the broker at its new address (FwdStats.UpstreamWaits); only
// then is its connection closed. A topic the view does not hold is looked
// up with one refresh made after the question (clientview.Refresher
// .LookupTopic, LookupTopicID; shared by concurrent lookups, one per
// request) before Metadata or DescribeTopicPartitions answers it
// UNKNOWN_TOPIC_OR_PARTITION or an authorized Produce or Fetch by topic id
// UNKNOWN_TOPIC_ID, so that a view left stale by a move never calls an
// existing topic unknown. Forwarder.RebootstrapStats counts the attempts.
package proxy
