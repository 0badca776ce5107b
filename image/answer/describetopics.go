package answer

import (
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/authz"
	"github.com/kmeta-go/kmeta/image/kafkaerr"
)

// DescribeTopicPartitions answers a DescribeTopicPartitions request (v0,
// KIP-966) as Kafka's DescribeTopicPartitionsRequestHandler and
// KRaftMetadataCache.describeTopicResponse do: topics at or after
// the cursor's, sorted by name, walked with a partition budget of
// max(min(MaxRequestPartitionSizeLimit, ResponsePartitionLimit), 1); a topic
// that does not fit ends the answer with NextCursor. Unauthorized topics of
// an explicit list are appended with TOPIC_AUTHORIZATION_FAILED, all of
// them, also those past the page's end (Kafka authorizes the whole list
// before sorting it), in name order (Kafka's is a HashSet's). An invalid
// cursor is answered as Kafka's getErrorResponse answers
// InvalidRequestException.
//
// A topic named "" without a cursor, on which Kafka 4.3 throws
// NullPointerException (the handler's start-index function reads the
// partition of the null cursor) and answers UNKNOWN_SERVER_ERROR for every
// topic, is answered as Kafka would answer it without the exception: it
// starts at partition 0, is not found, and gets INVALID_TOPIC_EXCEPTION
// (Topic.validate); the other topics are answered as usual.
func (r *Responder) DescribeTopicPartitions(img *image.Image, req *kmsg.DescribeTopicPartitionsRequest, rq Request) *kmsg.DescribeTopicPartitionsResponse {
	o := r.call(rq)
	return describeTopicPartitions(img, req, &o)
}

// describeTopicPartitions is DescribeTopicPartitions.
func describeTopicPartitions(img *image.Image, req *kmsg.DescribeTopicPartitionsRequest, o *call) *kmsg.DescribeTopicPartitionsResponse {
	resp := kmsg.NewPtrDescribeTopicPartitionsResponse()
	resp.Version = req.Version
	if req.Cursor != nil && req.Cursor.Partition < 0 {
		return invalidDTP(req, resp)
	}
	topics := img.Topics()
	names, ok := dtpNames(req, topics)
	if !ok {
		return invalidDTP(req, resp)
	}
	fetchAll := len(req.Topics) == 0
	limit := int32(2000)
	if o.MaxRequestPartitionSizeLimit > 0 {
		limit = o.MaxRequestPartitionSizeLimit
	}
	remaining := int(max(min(limit, req.ResponsePartitionLimit), 1))
	bt := o.r.brokersFor(img, o.Listener)
	names, denied := authorizeDTP(names, fetchAll, o)
	for _, n := range names {
		if remaining == 0 {
			c := kmsg.NewDescribeTopicPartitionsResponseNextCursor()
			c.Topic = n
			resp.NextCursor = &c
			break
		}
		t, ok := topics.ByName(n)
		if !ok {
			if !fetchAll {
				resp.Topics = append(resp.Topics, missingDTPTopic(n))
			}
			continue
		}
		start := 0
		if req.Cursor != nil && n == req.Cursor.Topic {
			start = int(req.Cursor.Partition)
		}
		e, upper := dtpTopic(t, start, remaining, bt)
		resp.Topics = append(resp.Topics, e)
		if upper < t.NumPartitions() {
			c := kmsg.NewDescribeTopicPartitionsResponseNextCursor()
			c.Topic = n
			c.Partition = int32(upper)
			resp.NextCursor = &c
			break
		}
		remaining -= len(e.Partitions)
	}
	for i := range resp.Topics {
		resp.Topics[i].AuthorizedOperations = o.authorizedOps(authz.ResourceTopic, *resp.Topics[i].Topic)
	}
	resp.Topics = append(resp.Topics, denied...)
	return resp
}

// dtpNames is the topics to walk, by name, from the cursor's topic on:
// every topic of the image, or the request's, deduplicated; false when the
// cursor names a topic the request does not list (InvalidRequestException).
func dtpNames(req *kmsg.DescribeTopicPartitionsRequest, topics *image.Topics) ([]string, bool) {
	cursorName := ""
	if req.Cursor != nil {
		cursorName = req.Cursor.Topic
	}
	var names []string
	if len(req.Topics) == 0 {
		for t := range topics.All() {
			if t.Name() >= cursorName {
				names = append(names, t.Name())
			}
		}
	} else {
		for i := range req.Topics {
			if n := req.Topics[i].Topic; n >= cursorName && !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
		if req.Cursor != nil && !slices.Contains(names, cursorName) {
			return nil, false
		}
	}
	slices.SortFunc(names, strings.Compare)
	return names, true
}

// authorizeDTP keeps the names the principal may DESCRIBE and, for an
// explicit list, answers the others TOPIC_AUTHORIZATION_FAILED. Every name
// is authorized before the walk: Kafka's stream filters them ahead of
// sorted(), which consumes the whole stream, so every unauthorized
// requested topic is listed, even past the page's end.
func authorizeDTP(names []string, fetchAll bool, o *call) ([]string, []kmsg.DescribeTopicPartitionsResponseTopic) {
	if o.Authorizer == nil {
		return names, nil
	}
	var denied []kmsg.DescribeTopicPartitionsResponseTopic
	kept := names[:0]
	for _, n := range names {
		if o.authorize(authz.OpDescribe, authz.ResourceTopic, n) {
			kept = append(kept, n)
			continue
		}
		if !fetchAll {
			e := kmsg.NewDescribeTopicPartitionsResponseTopic()
			e.ErrorCode = int16(kafkaerr.TopicAuthorizationFailed)
			s := n
			e.Topic = &s
			denied = append(denied, e)
		}
	}
	return kept, denied
}

// missingDTPTopic is the entry of a requested topic the image does not
// have: UNKNOWN_TOPIC_OR_PARTITION, or INVALID_TOPIC_EXCEPTION for a name
// Topic.validate rejects.
func missingDTPTopic(n string) kmsg.DescribeTopicPartitionsResponseTopic {
	code := kafkaerr.UnknownTopicOrPartition
	if !ValidTopicName(n) {
		code = kafkaerr.InvalidTopic
	}
	e := kmsg.NewDescribeTopicPartitionsResponseTopic()
	e.ErrorCode = int16(code)
	s := n
	e.Topic = &s
	e.IsInternal = IsInternal(n)
	return e
}

// dtpTopic is topic t's entry with its partitions from start, at most
// remaining of them, and the partition index it stopped before.
func dtpTopic(t image.Topic, start, remaining int, bt *brokers) (kmsg.DescribeTopicPartitionsResponseTopic, int) {
	upper := min(t.NumPartitions(), start+remaining)
	e := kmsg.NewDescribeTopicPartitionsResponseTopic()
	s := t.Name()
	e.Topic = &s
	e.TopicID = t.ID()
	e.IsInternal = IsInternal(s)
	for i := start; i < upper; i++ {
		p, ok := t.Partition(int32(i))
		if !ok {
			continue // Kafka logs and skips a missing partition id
		}
		e.Partitions = append(e.Partitions, dtpPartition(p, bt))
	}
	return e, upper
}

func dtpPartition(p image.Partition, bt *brokers) kmsg.DescribeTopicPartitionsResponseTopicPartition {
	d := kmsg.NewDescribeTopicPartitionsResponseTopicPartition()
	d.Partition = p.ID()
	d.LeaderID = -1
	if bi := bt.get(p.Leader()); bi != nil && bi.hasEP {
		d.LeaderID = p.Leader()
	}
	d.LeaderEpoch = p.LeaderEpoch()
	d.Replicas = p.Replicas()
	d.ISR = p.ISR()
	d.EligibleLeaderReplicas = p.ELR()
	d.LastKnownELR = p.LastKnownELR()
	d.OfflineReplicas = bt.appendOffline([]int32{}, p)
	return d
}

// invalidDTP is DescribeTopicPartitionsRequest.getErrorResponse for
// InvalidRequestException.
func invalidDTP(req *kmsg.DescribeTopicPartitionsRequest, resp *kmsg.DescribeTopicPartitionsResponse) *kmsg.DescribeTopicPartitionsResponse {
	for i := range req.Topics {
		e := kmsg.NewDescribeTopicPartitionsResponseTopic()
		e.ErrorCode = int16(kafkaerr.InvalidRequest)
		s := req.Topics[i].Topic
		e.Topic = &s
		resp.Topics = append(resp.Topics, e)
	}
	return resp
}
