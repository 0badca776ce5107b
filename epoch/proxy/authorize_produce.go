package proxy

import (
	"context"

	"github.com/twmb/franz-go/pkg/kmsg"

	"encoding/binary"
	"unsafe"

	"github.com/kmeta-go/kmeta/epoch/clientview"
	"github.com/kmeta-go/kmeta/image/authz"
	"github.com/kmeta-go/kmeta/image/kafkaerr"
	"github.com/kmeta-go/kmeta/record"
)

// authorizeProduce is KafkaApis.handleProduceRequest's authorization,
// walking the request with the byte reader (no decoding, no allocation
// when everything is allowed): WRITE on the transactional id when the
// records are transactional (RequestUtils.hasTransactionalRecords: else
// TRANSACTIONAL_ID_AUTHORIZATION_FAILED for the whole request), WRITE on
// each topic (else TOPIC_AUTHORIZATION_FAILED for its partitions), a
// topic id the view cannot name, even after a refresh made after the
// request came (lookupMissing, at most one per request), UNKNOWN_TOPIC_ID.
func (c *fconn) authorizeProduce(a authz.Authorizer, ctx authz.Context, h Header, frame []byte) (decision, error) {
	r := reader{b: frame, off: h.Size, key: 0, ver: h.APIVersion}
	v := h.APIVersion
	flex := v >= 9
	txnID, hasTxnID := "", false
	if v >= 3 {
		if n := r.strLen(flex); n >= 0 {
			b := r.span(n)
			txnID, hasTxnID = bytesString(b), true
		}
	}
	r.skip(6) // acks, timeout
	var denied map[resKey]int16
	var whole int16
	transactional, looked := false, false
	for range r.elements(flex, 2) {
		name, known := "", true
		if v >= 13 {
			var id record.UUID
			copy(id[:], r.span(16))
			if t, ok := c.produceTopic(id, &looked); ok {
				name = t.Name()
			} else {
				known = false
				denied = addDenied(denied, rtTopic, "", kafkaerr.UnknownTopicID.Int16())
			}
		} else if n := r.strLen(flex); n >= 0 {
			name = bytesString(r.span(n))
		}
		for range r.elements(flex, 4) {
			r.skip(4)
			var records []byte
			var n int32
			if flex {
				n = r.uvarint() - 1
			} else {
				n = r.int32()
			}
			if n > 0 {
				records = r.span(n)
			}
			// RecordBatch: attributes at byte 21 of a v2 (magic 2) batch;
			// 0x10 is isTransactional.
			if len(records) >= 23 && records[16] == 2 && binary.BigEndian.Uint16(records[21:])&0x10 != 0 {
				transactional = true
			}
			if flex {
				r.tags("")
			}
		}
		if flex {
			r.tags("")
		}
		if known && !a.Authorize(ctx, opWrite, rtTopic, name) {
			denied = addDenied(denied, rtTopic, name, kafkaerr.TopicAuthorizationFailed.Int16())
		}
	}
	if r.failed {
		return decision{}, r.err
	}
	if transactional && (!hasTxnID || !a.Authorize(ctx, opWrite, rtTxn, txnID)) {
		whole = kafkaerr.TransactionalIDAuthorizationFailed.Int16()
	}
	if denied == nil && whole == 0 {
		return decision{forward: true}, nil
	}
	req, err := decodeRequest(h, frame)
	if err != nil {
		return decision{}, err
	}
	if whole != 0 {
		denied = nil // every partition: TRANSACTIONAL_ID_AUTHORIZATION_FAILED
	} else if d, ok := c.partial(h, frame, req, denied); ok {
		return d, nil
	}
	return decision{out: denyResponse(h, req, denied, whole), denied: max(len(denied), 1), code: denyCode(denied, whole)}, nil
}

func addDenied(m map[resKey]int16, rt authz.ResourceType, name string, code int16) map[resKey]int16 {
	if m == nil {
		m = map[resKey]int16{}
	}
	m[resKey{rt, name}] = code
	return m
}

// bytesString is b as a string without a copy, for a call that does not
// keep it (the authorizer's decision); b is not changed while it is used.
func bytesString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// view is the forwarder's current view.
func (f *Forwarder) view() *clientview.View { return f.ref.View() }

// produceTopic names a Produce v13+ topic id from the view, looking the
// request's first unknown id up with a refresh (lookupMissing; looked
// records that it did).
func (c *fconn) produceTopic(id record.UUID, looked *bool) (*clientview.Topic, bool) {
	if t, ok := c.f.view().TopicByID(id); ok || *looked {
		return t, ok
	}
	*looked = true
	return c.f.lookupTopicByID(id)
}

// lookupTopicByID is topic id from the view after a lookup (lookupMissing).
func (f *Forwarder) lookupTopicByID(id record.UUID) (*clientview.Topic, bool) {
	v, _ := f.lookupMissing(context.Background(), nil, []record.UUID{id})
	return v.TopicByID(id)
}

// topicName names a topic id from the view.
func (f *Forwarder) topicName(id [16]byte) (string, bool) {
	t, ok := f.ref.View().TopicByID(record.UUID(id))
	if !ok {
		return "", false
	}
	return t.Name(), true
}

// partial splits a Produce or Fetch whose topics are partly denied: the
// request frame with only the allowed topics (the header as the client
// sent it), and the answer entries of the denied ones. ok is false for
// other requests, and when every topic is denied.
func (c *fconn) partial(h Header, frame []byte, req kmsg.Request, denied map[resKey]int16) (decision, bool) {
	name := func(topic string, id [16]byte) string {
		if topic == "" && id != ([16]byte{}) {
			if n, ok := c.f.topicName(id); ok {
				return n
			}
		}
		return topic
	}
	isDenied := func(topic string, id [16]byte) bool {
		n := name(topic, id)
		_, d := denied[resKey{rtTopic, n}]
		return d || n == "" && id != ([16]byte{})
	}
	var kept, gone kmsg.Request
	switch r := req.(type) {
	case *kmsg.ProduceRequest:
		k, g := *r, *r
		k.Topics, g.Topics = nil, nil
		for _, t := range r.Topics {
			if isDenied(t.Topic, t.TopicID) {
				g.Topics = append(g.Topics, t)
			} else {
				k.Topics = append(k.Topics, t)
			}
		}
		if len(k.Topics) == 0 {
			return decision{}, false
		}
		kept, gone = &k, &g
	case *kmsg.FetchRequest:
		k, g := *r, *r
		k.Topics, g.Topics = nil, nil
		for _, t := range r.Topics {
			if isDenied(t.Topic, t.TopicID) {
				g.Topics = append(g.Topics, t)
			} else {
				k.Topics = append(k.Topics, t)
			}
		}
		if len(k.Topics) == 0 {
			return decision{}, false
		}
		kept, gone = &k, &g
	default:
		return decision{}, false
	}
	out := append([]byte(nil), frame[:h.Size]...)
	out = kept.AppendTo(out)
	return decision{forward: true, frame: out, merge: denyAnswer(h, gone, denied, 0), denied: len(denied)}, true
}
