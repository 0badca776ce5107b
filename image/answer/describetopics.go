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
	cursorName := ""
	if req.Cursor != nil {
		cursorName = req.Cursor.Topic
		if req.Cursor.Partition < 0 {
			return invalidDTP(req, resp)
		}
	}
	fetchAll := len(req.Topics) == 0
	var names []string
	topics := img.Topics()
	if fetchAll {
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
			return invalidDTP(req, resp)
		}
	}
	slices.SortFunc(names, strings.Compare)

	limit := int32(2000)
	if o.MaxRequestPartitionSizeLimit > 0 {
		limit = o.MaxRequestPartitionSizeLimit
	}
	remaining := int(max(min(limit, req.ResponsePartitionLimit), 1))
	bt := o.r.brokersFor(img, o.Listener)
	var denied []kmsg.DescribeTopicPartitionsResponseTopic

	// Every name is authorized before the walk: Kafka's stream filters
	// them ahead of sorted(), which consumes the whole stream, so every
	// unauthorized requested topic is listed, even past the page's end.
	if o.Authorizer != nil {
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
		names = kept
	}
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
				code := kafkaerr.UnknownTopicOrPartition
				if !ValidTopicName(n) {
					code = kafkaerr.InvalidTopic
				}
				e := kmsg.NewDescribeTopicPartitionsResponseTopic()
				e.ErrorCode = int16(code)
				s := n
				e.Topic = &s
				e.IsInternal = IsInternal(n)
				resp.Topics = append(resp.Topics, e)
			}
			continue
		}
		start := 0
		if n == cursorName && req.Cursor != nil {
			start = int(req.Cursor.Partition)
		}
		count := t.NumPartitions()
		upper := min(count, start+remaining)
		e := kmsg.NewDescribeTopicPartitionsResponseTopic()
		s := n
		e.Topic = &s
		e.TopicID = t.ID()
		e.IsInternal = IsInternal(n)
		for i := start; i < upper; i++ {
			p, ok := t.Partition(int32(i))
			if !ok {
				continue // Kafka logs and skips a missing partition id
			}
			e.Partitions = append(e.Partitions, dtpPartition(p, bt))
		}
		resp.Topics = append(resp.Topics, e)
		if upper < count {
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

func dtpPartition(p *image.Partition, bt *brokers) kmsg.DescribeTopicPartitionsResponseTopicPartition {
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
