// Package wire reads Kafka request frames from a connection and decodes them
// as a Kafka broker does, without ever panicking, spinning or allocating
// more than the bytes that arrived: the frame size is checked against
// socket.request.max.bytes before anything is allocated (Kafka's
// NetworkReceive.readFrom), the frame buffer grows only as bytes arrive, the
// request header (versions 1 and 2, with its tagged fields:
// RequestHeader.parse) and the bodies of the requests kmeta answers
// (ApiVersions, Metadata, FindCoordinator, DescribeCluster,
// DescribeTopicPartitions) are decoded through one bounds-checked reader, and
// every failure is an *Error naming the API key, the version and the byte
// position in the frame.
//
// The package is internal because only kmeta's examples use it; it is small
// and self-contained (it depends on kmsg only for the request types), so an
// embedder serving kmeta's answers behind a listener of their own copies it.
//
// Reading follows Kafka's generated readers (the *RequestData classes and
// ByteBufferAccessor): unsigned varints of at most five bytes taken as 32-bit
// ints, compact lengths as that value minus one, a length or array count
// larger than the bytes left is an error before anything is allocated,
// unknown tagged fields are skipped after their size is checked, and bytes
// after the body are ignored (AbstractRequest.parseRequest does not check
// for them).
//
// What Kafka does with a request it cannot serve, the caller does with the
// error: an ApiVersions request at a version above Supported's is answered
// with UNSUPPORTED_VERSION at version 0 (KIP-511: RequestContext.parseRequest
// does not parse its body; see IsUnsupportedApiVersions); any other error
// closes the connection (SocketServer's Processor closes the channel on an
// InvalidRequestException).
package wire
