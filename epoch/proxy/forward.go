package proxy

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"reflect"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/epoch/clientview"
	"github.com/kmeta-go/kmeta/image/kafkaerr"
)

// errUpstreamMoved ends a client connection whose broker moved upstream.
var errUpstreamMoved = errors.New("the broker moved upstream")

// maxInFlight is how many requests of one connection may wait for their
// answers (pipelining); the next one waits for the first.
const maxInFlight = 64

// pending is one request of a client connection waiting to be answered, in
// the order it came.
type pending struct {
	local    []byte // a whole response frame the proxy built; nil for a forwarded request
	key, ver int16
	corr     int32 // the client's correlation id
	upCorr   int32 // the id on the upstream connection
	clientID string
	rack     string        // client.rack of the connection's last Fetch (with a Shaper)
	sent     time.Time     // when it was written upstream
	merge    kmsg.Response // denied entries to add to the answer (decision.merge)
}

// fconn is one client connection: requests are read in order, answered
// locally or written to one upstream connection (to the broker of the port
// the client dialled) with the proxy's own correlation ids, and answers are
// written back in request order.
type fconn struct {
	f      *Forwarder
	conn   net.Conn
	broker int32     // -1: the bootstrap port (any broker)
	sess   *session  // the client's principal and address
	sasl   *saslConn // SASL state, on a SASL listener

	up        net.Conn
	upAddr    string   // the upstream address c.up was dialled to
	upEP      Endpoint // the same, for a broker port's connection
	upBuf     []byte   // the last upstream answer, with its size prefix (reused)
	bufCharge int      // upBuf's bytes taken from the upstream budget (0: the small buffer)
	extra     int      // bytes taken for decoding the current answer
	kept      bool     // upBuf is charged and kept between answers (Forwarder.kept)
	upCorr    int32
	wbuf      []byte

	mu     sync.Mutex // guards up (set by the reader) and closed, for close
	closed bool
	rack   string // client.rack from the last Fetch request (reader side)
	lastID string // the client id of the last request (reader side; parseHeader)
}

// serveBroker serves the connections of broker id's port (-1: bootstrap)
// through the forwarder's acceptor, until ln is closed (net.ErrClosed) or
// accepting fails for good.
func (f *Forwarder) serveBroker(ln net.Listener, id int32) error {
	return f.acc.serve(ln, func(conn net.Conn, sess *session) { f.serveConn(conn, id, sess) })
}

// serveBrokerPort serves a broker port opened by brokerPorts; a port that
// fails for good ends the forwarder's Serve with its error.
func (f *Forwarder) serveBrokerPort(ln net.Listener, id int32) {
	if err := f.serveBroker(ln, id); !errors.Is(err, net.ErrClosed) {
		logAcceptFailure(err)
		f.fatal.report(err)
	}
}

func (f *Forwarder) serveConn(conn net.Conn, broker int32, sess *session) {
	c := &fconn{f: f, conn: conn, broker: broker, sess: sess}
	if f.sasl != nil {
		c.sasl = &saslConn{}
	}
	items := make(chan pending, maxInFlight)
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.writeLoop(items)
	}()
	err := c.readLoop(items)
	close(items)
	<-done
	c.close()
	c.releaseBudget()
	c.dropBuffer()
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, net.ErrClosed):
		err = nil
	case errors.Is(err, ErrIdle):
		f.stats.Idle.Add(1)
	case errors.Is(err, ErrSlow):
		f.stats.Slow.Add(1)
	}
	if err != nil { // readLoop returns only when the connection ends
		f.connLog.printf("proxy: %v (broker %d port): closed: %v", conn.RemoteAddr(), broker, err)
	}
	fwdStatsObserver{f}.ConnClosed(conn.RemoteAddr(), err)
}

func (c *fconn) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.closed = true
	c.conn.Close()
	if c.up != nil {
		c.up.Close()
	}
}

func (c *fconn) client(id, rack string) *Client {
	return &Client{ID: id, Rack: rack, Addr: c.conn.RemoteAddr().String()}
}

// readLoop reads the client's requests until the connection ends.
func (c *fconn) readLoop(items chan<- pending) error {
	fr := NewFrameReader(c.conn)
	fr.MaxBytes, fr.IdleTimeout, fr.ReadTimeout = c.f.lim.MaxRequestBytes, c.f.lim.IdleTimeout, c.f.lim.RequestTimeout
	ctx := context.Background()
	for {
		frame, err := fr.Next()
		if err != nil {
			return err
		}
		c.countIn(frame)
		h, done, err := c.admit(items, frame)
		if err != nil {
			return err
		}
		if done {
			continue
		}
		if h.APIKey == 18 || answeredLocally(h.APIKey) && c.f.allowed(h.APIKey, h.APIVersion) {
			out, err := c.local(ctx, h, frame)
			if err != nil {
				return err
			}
			if out != nil {
				items <- c.answered(h, out, answerCode(h.APIKey, h.APIVersion))
				continue
			}
			// The view cannot answer this one: forwarded.
		}
		if !c.f.allowed(h.APIKey, h.APIVersion) {
			c.f.stats.Refused.Add(1)
			out, ok := refusal(h)
			if !ok {
				c.f.obs.Request(h.APIKey, h.APIVersion, kafkaerr.InvalidRequest.Int16())
				return fmt.Errorf("api %d v%d is not offered and has no error answer at that version", h.APIKey, h.APIVersion)
			}
			items <- c.answered(h, out, kafkaerr.UnsupportedVersion.Int16())
			continue
		}
		var merge kmsg.Response
		if !c.f.passThrough {
			out, fwd, m, code, err := c.authorized(h, frame)
			if err != nil {
				return err
			}
			if out != nil {
				items <- c.answered(h, out, code)
				continue
			}
			frame, merge = fwd, m
		}
		if h.APIKey == 1 && h.APIVersion >= 11 && c.f.rw.Shaper != nil {
			if r := fetchRack(h, frame); r != "" {
				c.rack = r
			}
		}
		if err := c.forward(ctx, h, frame); err != nil {
			c.f.stats.UpstreamFails.Add(1)
			c.f.ref.RequestUpdate()
			return fmt.Errorf("upstream for broker %d: %w", c.broker, err)
		}
		c.f.stats.Forwarded.Add(1)
		c.f.obs.Request(h.APIKey, h.APIVersion, 0)
		if h.APIKey == 0 && produceAcks(h, frame) == 0 {
			continue // acks=0: the broker sends no answer
		}
		items <- pending{key: h.APIKey, ver: h.APIVersion, corr: h.CorrelationID, upCorr: c.upCorr, clientID: h.ClientID, rack: c.rack, sent: time.Now(), merge: merge}
	}
}

// admit parses a frame's header and runs its SASL steps (saslGate, and
// the bare tokens after a SaslHandshake v0): done means it was answered
// here (its answer queued on items); an error closes the connection.
func (c *fconn) admit(items chan<- pending, frame []byte) (h Header, done bool, err error) {
	if c.sasl != nil && c.sasl.raw {
		out, err := c.rawToken(frame)
		if out != nil {
			items <- pending{local: out, key: -1, ver: -1}
		}
		return h, true, err
	}
	if h, err = parseHeader(frame, c.lastID); err != nil {
		return h, true, err
	}
	c.lastID = h.ClientID
	out, handled, err := c.saslGate(h, frame)
	if out != nil {
		items <- c.answered(h, out, 0)
	}
	return h, handled || err != nil, err
}

// authorized authorizes a request to forward (authorizeRequest): out is
// the answer of a denied one; else frame is what to forward (the request
// without its denied topics, for a partly denied Produce or Fetch) and
// merge the denied entries to add to its answer. An error closes the
// connection: a Produce with acks=0 denied in whole or in part has no
// answer to carry the error, and Kafka closes the connection
// (handleProduceRequest).
func (c *fconn) authorized(h Header, frame []byte) (out, fwd []byte, merge kmsg.Response, code int16, err error) {
	d, err := c.authorizeRequest(h, frame)
	if err != nil {
		return nil, nil, nil, 0, err
	}
	if d.forward && d.frame == nil {
		return nil, frame, nil, 0, nil
	}
	c.f.stats.Denied.Add(int64(d.denied))
	c.f.obs.AuthDenied(h.APIKey, h.APIVersion, c.sess.principal)
	if h.APIKey == 0 && produceAcks(h, frame) == 0 {
		return nil, nil, nil, 0, fmt.Errorf("produce with acks=0 denied for %s", c.sess.principal)
	}
	if !d.forward {
		return d.out, nil, nil, d.code, nil
	}
	return nil, d.frame, d.merge, 0, nil
}

// answeredLocally reports the APIs the proxy answers from its view when it
// can: ApiVersions, Metadata, DescribeCluster, FindCoordinator and
// DescribeTopicPartitions.
func answeredLocally(key int16) bool {
	switch key {
	case 3, 10, 18, 60, 75:
		return true
	}
	return false
}

// local answers a request of an API answeredLocally names from the view,
// or returns nil where the view cannot answer it (the request is then
// forwarded).
func (c *fconn) local(ctx context.Context, h Header, frame []byte) ([]byte, error) {
	if IsUnsupportedApiVersions(h) {
		c.f.stats.Local.Add(1)
		resp := kmsg.NewPtrApiVersionsResponse()
		resp.ErrorCode = kafkaerr.UnsupportedVersion.Int16()
		// ApiVersions' own range as the proxy offers it
		// (ApiVersionsRequest.getErrorResponse, KIP-511).
		for _, k := range c.f.versions.Load().ApiKeys {
			if k.ApiKey == 18 {
				resp.ApiKeys = append(resp.ApiKeys, k)
			}
		}
		return c.respond(h, resp.AppendTo(nil)), nil
	}
	if !IsSupported(h.APIKey, h.APIVersion) {
		return nil, nil // a version the view's answers do not decode: upstream's, if it is offered
	}
	req, err := DecodeBody(h, frame)
	if err != nil {
		return nil, err
	}
	cl := c.client(h.ClientID, c.rack)
	var resp kmsg.Response
	switch r := req.(type) {
	case *kmsg.ApiVersionsRequest:
		resp = c.f.apiVersionsAnswer(r, c.broker)
	case *kmsg.MetadataRequest:
		mr := c.f.metadataAnswer(ctx, r, cl)
		c.filterMetadata(r, mr)
		resp = mr
	case *kmsg.DescribeClusterRequest:
		resp = nilIfNone(c.f.describeClusterAnswer(ctx, r, cl))
	case *kmsg.FindCoordinatorRequest:
		if !c.f.passThrough {
			return nil, nil // authorized as it is forwarded
		}
		resp = nilIfNone(c.f.findCoordinatorAnswer(ctx, r, cl))
	case *kmsg.DescribeTopicPartitionsRequest:
		if !c.f.passThrough {
			return nil, nil
		}
		resp = nilIfNone(c.f.describeTopicPartitionsAnswer(ctx, r))
	default:
		return nil, fmt.Errorf("api %d not answered locally", h.APIKey)
	}
	if resp == nil {
		return nil, nil
	}
	c.f.stats.Local.Add(1)
	return c.respond(h, resp.AppendTo(nil)), nil
}

// nilIfNone turns a nil answer of a concrete type into a nil Response.
func nilIfNone[R interface {
	*kmsg.DescribeClusterResponse | *kmsg.FindCoordinatorResponse | *kmsg.DescribeTopicPartitionsResponse
	kmsg.Response
}](r R) kmsg.Response {
	if r == nil {
		return nil
	}
	return r
}

func (c *fconn) respond(h Header, body []byte) []byte {
	if c.f.onResponse != nil {
		c.f.onResponse(h.APIKey, h.APIVersion, body)
	}
	return AppendResponse(nil, h, body)
}

// refusal is an UNSUPPORTED_VERSION answer to a request the proxy does not
// offer, at the request's version (errorResponse); otherwise ok is false
// and the connection is closed, as Kafka closes it on a version it does
// not know.
func refusal(h Header) ([]byte, bool) {
	return errorResponse(h.APIKey, h.APIVersion, h.CorrelationID, kafkaerr.UnsupportedVersion.Int16())
}

// errorResponse is a whole response frame for api key at version with
// correlation id corr and the top-level error code code, when kmsg can
// encode that version and the response has a top-level error code;
// otherwise ok is false.
func errorResponse(key, version int16, corr int32, code int16) ([]byte, bool) {
	req := kmsg.RequestForKey(key)
	if req == nil || version < 0 || version > req.MaxVersion() {
		return nil, false
	}
	resp := req.ResponseKind()
	resp.SetVersion(version)
	ec := reflect.ValueOf(resp).Elem().FieldByName("ErrorCode")
	if !ec.IsValid() || ec.Kind() != reflect.Int16 {
		return nil, false
	}
	ec.SetInt(int64(code))
	out := binary.BigEndian.AppendUint32(nil, 0)
	out = binary.BigEndian.AppendUint32(out, uint32(corr))
	if flexibleResponseHeader(key, version) {
		out = append(out, 0)
	}
	out = resp.AppendTo(out)
	binary.BigEndian.PutUint32(out, uint32(len(out)-4))
	return out, true
}

// forward writes the request to the upstream connection (dialled on first
// use) under the proxy's next correlation id.
func (c *fconn) forward(ctx context.Context, h Header, frame []byte) error {
	if c.up != nil && c.broker >= 0 {
		// The broker id moved to another host or port upstream (a broker
		// replaced, or restarted elsewhere): end this connection once its
		// answers are sent, as a restarted broker would, so that the client
		// reconnects to the same proxy port and reaches the new endpoint.
		if e, ok := c.f.amap.Lookup(c.broker); ok && e.Upstream != c.upEP {
			return fmt.Errorf("%w: %s -> %s", errUpstreamMoved, c.upAddr, e.Upstream)
		}
	}
	if c.up == nil {
		if err := c.connectUpstream(ctx); err != nil {
			return err
		}
	}
	c.upCorr++
	c.wbuf = binary.BigEndian.AppendUint32(c.wbuf[:0], uint32(len(frame)))
	c.wbuf = append(c.wbuf, frame...)
	binary.BigEndian.PutUint32(c.wbuf[8:], uint32(c.upCorr))
	c.up.SetWriteDeadline(time.Now().Add(c.f.timeout))
	_, err := c.up.Write(c.wbuf)
	if cap(c.wbuf) > 1<<20 {
		c.wbuf = nil
	}
	return err
}

// writeLoop writes the answers in request order. An answer's bytes taken
// from the upstream budget are given back once it is written.
func (c *fconn) writeLoop(items <-chan pending) {
	failed := false
	for it := range items {
		if failed {
			continue // drain; the connection is closing
		}
		out := it.local
		if out == nil {
			var err error
			out, err = c.answer(it)
			if err != nil {
				c.f.stats.UpstreamFails.Add(1)
				c.f.ref.RequestUpdate()
				c.f.connLog.printf("proxy: %v (broker %d port): api %d v%d: %v", c.conn.RemoteAddr(), c.broker, it.key, it.ver, err)
				failed = true
				c.releaseBudget()
				c.close()
				continue
			}
		}
		c.conn.SetWriteDeadline(time.Now().Add(c.f.writeTimeout()))
		if _, err := c.conn.Write(out); err != nil {
			if isNetTimeout(err) {
				c.f.stats.Slow.Add(1)
			}
			failed = true
			c.close()
		} else {
			c.f.traffic.BytesOut(it.key, it.ver, len(out))
		}
		c.releaseBudget()
	}
}

// releaseBudget gives back what the last answer took from the upstream
// budget: its decoding's share always, its buffer's unless the buffer is
// kept for the next answer. A buffer of at most maxKeptAnswer is kept,
// still charged, while all kept buffers together hold at most a quarter of
// the budget (so that idle connections never hold more); others are
// dropped.
func (c *fconn) releaseBudget() {
	if c.extra > 0 {
		c.f.budget.Release(int64(c.extra))
		c.extra = 0
	}
	if c.bufCharge == 0 || c.kept {
		return
	}
	if c.bufCharge <= maxKeptAnswer && c.f.kept.Add(int64(c.bufCharge)) <= int64(c.f.share) {
		c.kept = true
		return
	} else if c.bufCharge <= maxKeptAnswer {
		c.f.kept.Add(-int64(c.bufCharge))
	}
	c.dropBuffer()
}

// dropBuffer drops a charged answer buffer and gives its bytes back.
func (c *fconn) dropBuffer() {
	if c.kept {
		c.f.kept.Add(-int64(c.bufCharge))
		c.kept = false
	}
	if c.bufCharge > 0 {
		c.f.budget.Release(int64(c.bufCharge))
		c.bufCharge = 0
	}
	c.upBuf = nil
}

// maxKeptAnswer is the largest answer buffer a connection keeps between
// answers (a larger one is dropped after use).
const maxKeptAnswer = 4 << 20

// answer reads the upstream answer of a forwarded request, rewrites the
// addresses it may carry, feeds its errors and KIP-951 hints to the view,
// and returns the frame to send to the client (the upstream frame itself,
// with the client's correlation id, when nothing needs rewriting).
func (c *fconn) answer(it pending) ([]byte, error) {
	whole, err := c.readAnswer()
	if err != nil {
		if errors.Is(err, errAnswerRefused) {
			if out, ok := errorResponse(it.key, it.ver, it.corr, kafkaerr.UnknownServerError.Int16()); ok {
				c.f.stats.BudgetRefused.Add(1)
				c.f.connLog.printf("proxy: %v (broker %d port): api %d v%d: %v: answered with UNKNOWN_SERVER_ERROR", c.conn.RemoteAddr(), c.broker, it.key, it.ver, err)
				return out, nil
			}
		}
		return nil, err
	}
	c.f.obs.UpstreamLatency(it.key, it.ver, time.Since(it.sent))
	frame := whole[4:]
	if len(frame) < 4 {
		return nil, errors.New("answer shorter than its header")
	}
	if corr := int32(binary.BigEndian.Uint32(frame)); corr != it.upCorr {
		return nil, fmt.Errorf("answer for correlation id %d, want %d", corr, it.upCorr)
	}
	hsize, err := responseHeaderSize(it.key, it.ver, frame)
	if err != nil {
		return nil, err
	}
	body := frame[hsize:]
	if it.merge != nil {
		return c.merged(it, body, frame[4:hsize])
	}
	var resp kmsg.Response
	switch it.key {
	case 0, 1:
		var sum Summary
		if it.key == 0 {
			sum, err = ScanProduce(it.ver, body)
		} else {
			sum, err = ScanFetch(it.ver, body)
		}
		if err != nil {
			return nil, err
		}
		if sum.Errors == 0 && !sum.NodeEndpoints {
			break // the common case: forwarded as it came
		}
		if resp, err = c.decode(it, body); err != nil {
			return nil, err
		}
		c.observe(resp)
		if !sum.NodeEndpoints {
			resp = nil
		}
	case 10, 60, 78, 79:
		if resp, err = c.decode(it, body); err != nil {
			return nil, err
		}
	case 19, 20, 37:
		// CreateTopics, DeleteTopics, CreatePartitions: the client will ask
		// for the topics next, and a view one backoff behind would answer
		// the old partition count. Refresh now, before answering, as a
		// broker answers only once the controller has committed.
		if _, err := c.f.refresh(context.Background(), true); err != nil {
			log.Printf("proxy: refresh after api %d: %v", it.key, err)
		}
	}
	if resp != nil {
		return c.rewritten(it, resp, frame[4:hsize])
	}
	if c.f.onResponse != nil {
		c.f.onResponse(it.key, it.ver, body)
	}
	binary.BigEndian.PutUint32(frame, uint32(it.corr)) // the client's id, in place
	return whole, nil
}

// rewritten is the response frame of a decoded answer, its addresses
// rewritten for the client, after the upstream response header's tagged
// fields (tags).
func (c *fconn) rewritten(it pending, resp kmsg.Response, tags []byte) ([]byte, error) {
	if !c.f.rw.Response(resp, c.client(it.clientID, it.rack)) {
		return nil, fmt.Errorf("api %d v%d answer cannot be rewritten", it.key, it.ver)
	}
	c.f.stats.Rewritten.Add(1)
	body := resp.AppendTo(nil)
	out := make([]byte, 0, 8+len(tags)+len(body))
	out = binary.BigEndian.AppendUint32(out, uint32(4+len(tags)+len(body)))
	out = binary.BigEndian.AppendUint32(out, uint32(it.corr))
	out = append(out, tags...)
	out = append(out, body...)
	if c.f.onResponse != nil {
		c.f.onResponse(it.key, it.ver, body)
	}
	return out, nil
}

// merged is the answer of a partly denied Produce or Fetch: upstream's,
// with the denied topics' entries added (decision.merge).
func (c *fconn) merged(it pending, body, tags []byte) ([]byte, error) {
	resp, err := c.decode(it, body)
	if err != nil {
		return nil, err
	}
	switch r := resp.(type) {
	case *kmsg.ProduceResponse:
		r.Topics = append(r.Topics, it.merge.(*kmsg.ProduceResponse).Topics...)
	case *kmsg.FetchResponse:
		r.Topics = append(r.Topics, it.merge.(*kmsg.FetchResponse).Topics...)
	}
	c.observe(resp)
	return c.rewritten(it, resp, tags)
}

// decode decodes an answer to rewrite or observe it; a large one (over
// smallAnswer) first takes twice its size from the upstream budget, for
// the decoded response and its encoding.
func (c *fconn) decode(it pending, body []byte) (kmsg.Response, error) {
	if len(body) > smallAnswer {
		if err := c.charge(2*len(body), &c.extra); err != nil {
			return nil, err
		}
	}
	return decodeResponse(it.key, it.ver, body)
}

// readAnswer reads the next upstream answer, size prefix included, into the
// connection's buffer: a small one (smallAnswer) kept for the life of the
// connection, or one as large as the answer, its size taken from the
// forwarder's upstream budget (Limits.UpstreamBufferBytes) and given back
// once the answer is written (releaseBudget). An answer over its share of
// the budget, or whose bytes the budget cannot give within the upstream
// timeout, is skipped (read and discarded, so that the answers after it
// stay in step; one larger than the whole budget ends the upstream
// connection instead) and refused with errAnswerRefused. The wait for its first
// byte and for the rest are each bounded by the upstream timeout.
func (c *fconn) readAnswer() ([]byte, error) {
	c.up.SetReadDeadline(time.Now().Add(c.f.timeout))
	if cap(c.upBuf) < smallAnswer {
		c.upBuf = make([]byte, 0, smallAnswer)
	}
	b := c.upBuf[:4]
	if _, err := io.ReadFull(c.up, b); err != nil {
		return nil, err
	}
	n := int(int32(binary.BigEndian.Uint32(b)))
	if n < 4 {
		return nil, fmt.Errorf("upstream answer size %d", n)
	}
	if 4+n > cap(c.upBuf) {
		c.dropBuffer() // the kept one, too small
		if err := c.charge(4+n, &c.bufCharge); err != nil {
			if n > c.f.lim.UpstreamBufferBytes {
				// Larger than the whole budget: not worth reading to
				// skip; the upstream connection is closed.
				return nil, fmt.Errorf("%w (not skipped: the connection is closed)", err)
			}
			c.up.SetReadDeadline(time.Now().Add(c.f.timeout))
			if _, derr := io.CopyN(io.Discard, c.up, int64(n)); derr != nil {
				return nil, fmt.Errorf("%w; skipping it: %w", err, derr)
			}
			return nil, err
		}
		c.upBuf = make([]byte, 4+n)
		copy(c.upBuf, b)
	}
	b = c.upBuf[:4+n]
	c.up.SetReadDeadline(time.Now().Add(c.f.timeout))
	if _, err := io.ReadFull(c.up, b[4:]); err != nil {
		return nil, err
	}
	return b, nil
}

// smallAnswer is the answer buffer every forwarding connection keeps (a
// fixed cost per connection, outside the upstream budget).
const smallAnswer = 64 << 10

// errAnswerRefused is an upstream answer the budget could not hold.
var errAnswerRefused = errors.New("upstream answer refused")

// charge takes n more bytes from the upstream budget for this
// connection's current answer: at most the budget's share
// (upstreamShare), waiting up to the upstream timeout for them.
func (c *fconn) charge(n int, to *int) error {
	if c.bufCharge+c.extra+n > c.f.share {
		return fmt.Errorf("%w: %d bytes, over its share %d of the upstream budget (%d)", errAnswerRefused, c.bufCharge+c.extra+n, c.f.share, c.f.lim.UpstreamBufferBytes)
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.f.timeout)
	defer cancel()
	if err := c.f.budget.Acquire(ctx, int64(n)); err != nil {
		return fmt.Errorf("%w: %d bytes not free in the upstream budget (%d) within %v", errAnswerRefused, n, c.f.lim.UpstreamBufferBytes, c.f.timeout)
	}
	*to += n
	return nil
}

// observe feeds a Produce or Fetch answer's errors and KIP-951 hints to the
// view (clientview.Refresher.ObserveProduce/ObserveFetch), before the client
// sees them, and asks for a refresh when they say the view is out of date.
func (c *fconn) observe(resp kmsg.Response) {
	var rep clientview.Report
	switch r := resp.(type) {
	case *kmsg.ProduceResponse:
		rep = c.f.ref.ObserveProduce(r)
	case *kmsg.FetchResponse:
		rep = c.f.ref.ObserveFetch(r)
	}
	_ = rep
	if c.f.ref.View().NeedsRefresh() {
		c.f.ref.RequestUpdate()
	}
}

func decodeResponse(key, ver int16, body []byte) (kmsg.Response, error) {
	req := kmsg.RequestForKey(key)
	if req == nil {
		return nil, fmt.Errorf("api %d unknown", key)
	}
	resp := req.ResponseKind()
	resp.SetVersion(ver)
	if err := resp.ReadFrom(body); err != nil {
		return nil, fmt.Errorf("api %d v%d answer: %w", key, ver, err)
	}
	return resp, nil
}

// produceAcks reads the acks of a Produce request (after the transactional
// id from v3), or -2 if it cannot.
func produceAcks(h Header, frame []byte) int16 {
	b := frame[h.Size:]
	if h.APIVersion >= 3 {
		if h.Version >= 2 {
			n, k := binary.Uvarint(b)
			if k <= 0 || n > uint64(len(b)) {
				return -2
			}
			b = b[k:]
			if n > 0 {
				if int(n-1) > len(b) {
					return -2
				}
				b = b[n-1:]
			}
		} else {
			if len(b) < 2 {
				return -2
			}
			n := int(int16(binary.BigEndian.Uint16(b)))
			b = b[2:]
			if n > 0 {
				if n > len(b) {
					return -2
				}
				b = b[n:]
			}
		}
	}
	if len(b) < 2 {
		return -2
	}
	return int16(binary.BigEndian.Uint16(b))
}

// fetchRack is the RackID of a Fetch request (v11+, KIP-392), decoded only
// for the client's rack; "" if absent or unreadable.
func fetchRack(h Header, frame []byte) string {
	req := kmsg.NewPtrFetchRequest()
	req.Version = h.APIVersion
	if err := req.ReadFrom(frame[h.Size:]); err != nil {
		return ""
	}
	return req.Rack
}
