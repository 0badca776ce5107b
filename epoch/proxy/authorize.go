package proxy

import (
	"bufio"
	"bytes"
	"fmt"
	"os"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/authz"
	"github.com/kmeta-go/kmeta/image/kafkaerr"
	"github.com/kmeta-go/kmeta/record"
)

// clusterName is the CLUSTER resource's name (Resource.CLUSTER_NAME).
const clusterName = "kafka-cluster"

// check is one authorization a request needs: op on the resource, and the
// error code Kafka answers when it is denied.
type check struct {
	op   authz.Operation
	rt   authz.ResourceType
	name string
	code int16
	// whole: a denial refuses the whole request (a top-level error, or
	// every entry); else only the entries naming the resource.
	whole bool
	// anyOf: the check passes on the cluster, else each of these topics
	// is checked with op (CreateTopics).
	anyOf []string
	// orWriteAnyTopic: the check passes if the principal may WRITE some
	// topic (authorizeByResourceType; InitProducerId without a
	// transactional id).
	orWriteAnyTopic bool
}

// LoadACLFile reads a file of ACLs, one AccessControlEntryRecord a line in
// Kafka's JSON form (MetadataJsonConverters: {"type":
// "ACCESS_CONTROL_ENTRY_RECORD","version":0,"data":{...}}, as
// kafka-metadata-shell and kmeta's metadump print them); blank lines are
// skipped. An error names the file and line.
func LoadACLFile(path string) (*image.ACLs, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var list []image.ACL
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		r, _, err := record.ParseEnvelopeJSON(sc.Bytes())
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, n, err)
		}
		ace, ok := r.(*record.AccessControlEntryRecord)
		if !ok {
			return nil, fmt.Errorf("%s line %d: %T, want an ACCESS_CONTROL_ENTRY_RECORD", path, n, r)
		}
		list = append(list, image.ACLFromRecord(ace))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	b := image.NewBuilder(nil)
	b.PutACLs(list, nil)
	return b.Image(image.EmptyProvenance).ACLs(), nil
}

// decision is what authorizing a request decided: forward it, or answer
// it with out (a whole response frame).
type decision struct {
	forward bool
	out     []byte
	denied  int   // checks denied
	code    int16 // out's error code (Observer.Request), for a request denied whole

	// A Produce or Fetch whose topics are partly denied is forwarded
	// without them (frame: the request frame to forward instead) and
	// merge's entries are added to upstream's answer, as KafkaApis
	// merges its unauthorized and authorized partitions.
	frame []byte
	merge kmsg.Response
}

// authorizeRequest authorizes a request that is to be forwarded, as
// KafkaApis does before it handles the request: every resource the
// request names, with the operation Kafka checks, for the session's
// principal and host. All allowed: forwarded. Otherwise answered here with
// Kafka's authorization errors (denyResponse) and nothing reaches
// upstream. A Produce or Fetch mixing allowed and denied topics is
// forwarded without the denied ones, whose errors are merged into the
// answer (partial), as KafkaApis does; any other request mixing them is
// refused whole (each entry with its resource's error), which denies no
// less than Kafka. An API the table does not know is refused with
// CLUSTER_AUTHORIZATION_FAILED where its answer has a top-level error
// code, else its connection is closed.
func (c *fconn) authorizeRequest(h Header, frame []byte) (decision, error) {
	a := c.f.authz
	ctx := authz.Context{Principal: c.sess.principal, Host: c.sess.host}
	if h.APIKey == 0 {
		return c.authorizeProduce(a, ctx, h, frame)
	}
	req, err := decodeRequest(h, frame)
	if err != nil {
		return decision{}, err
	}
	checks, known := requestChecks(req, c.f.topicNamer())
	if !known {
		out, ok := errorResponse(h.APIKey, h.APIVersion, h.CorrelationID, kafkaerr.ClusterAuthorizationFailed.Int16())
		if !ok {
			return decision{}, fmt.Errorf("api %d v%d: not authorized by the proxy and no error answer", h.APIKey, h.APIVersion)
		}
		return decision{out: out, denied: 1, code: kafkaerr.ClusterAuthorizationFailed.Int16()}, nil
	}
	res, whole := evaluate(a, ctx, checks)
	if len(res) == 0 && whole == 0 {
		return decision{forward: true}, nil
	}
	if whole == 0 {
		if d, ok := c.partial(h, frame, req, res); ok {
			return d, nil
		}
	}
	return decision{out: denyResponse(h, req, res, whole), denied: max(len(res), 1), code: denyCode(res, whole)}, nil
}

// resKey names a resource in a denial.
type resKey struct {
	rt   authz.ResourceType
	name string
}

// evaluate authorizes checks: the error code of each denied resource, and
// the code that refuses the whole request (0: none).
func evaluate(a authz.Authorizer, ctx authz.Context, checks []check) (map[resKey]int16, int16) {
	var denied map[resKey]int16
	var whole int16
	deny := func(rt authz.ResourceType, name string, code int16, all bool) {
		if all {
			if whole == 0 {
				whole = code
			}
			return
		}
		if denied == nil {
			denied = map[resKey]int16{}
		}
		if _, ok := denied[resKey{rt, name}]; !ok {
			denied[resKey{rt, name}] = code
		}
	}
	for _, ch := range checks {
		switch {
		case ch.anyOf != nil:
			if a.Authorize(ctx, ch.op, ch.rt, ch.name) {
				continue
			}
			for _, t := range ch.anyOf {
				if !a.Authorize(ctx, ch.op, rtTopic, t) {
					deny(rtTopic, t, ch.code, false)
				}
			}
		case ch.orWriteAnyTopic:
			if a.Authorize(ctx, ch.op, ch.rt, ch.name) {
				continue
			}
			if br, ok := a.(interface {
				AuthorizeByResourceType(authz.Context, authz.Operation, authz.ResourceType) bool
			}); ok && br.AuthorizeByResourceType(ctx, opWrite, rtTopic) {
				continue
			}
			deny(ch.rt, ch.name, ch.code, true)
		case ch.op == authz.OpUnknown || !a.Authorize(ctx, ch.op, ch.rt, ch.name):
			deny(ch.rt, ch.name, ch.code, ch.whole)
		}
	}
	return denied, whole
}

// decodeRequest decodes a request body with kmsg.
func decodeRequest(h Header, frame []byte) (kmsg.Request, error) {
	req := kmsg.RequestForKey(h.APIKey)
	if req == nil {
		return nil, fmt.Errorf("unknown api key %d", h.APIKey)
	}
	req.SetVersion(h.APIVersion)
	if err := req.ReadFrom(frame[h.Size:]); err != nil {
		return nil, fmt.Errorf("api %d v%d request: %w", h.APIKey, h.APIVersion, err)
	}
	return req, nil
}

// filterMetadata is KafkaApis.handleTopicMetadataRequest's authorization
// of an answer built from the view: a topic asked for by name that the
// principal may not DESCRIBE is answered TOPIC_AUTHORIZATION_FAILED with
// no partitions (and a zero topic id); of all topics, only those it may
// DESCRIBE are listed; the topic (v8+) and cluster (v8-v10) authorized
// operations asked for are computed for the principal
// (AuthHelper.authorizedOperations).
func (c *fconn) filterMetadata(req *kmsg.MetadataRequest, resp *kmsg.MetadataResponse) {
	if c.f.passThrough || resp == nil {
		return
	}
	ctx := authz.Context{Principal: c.sess.principal, Host: c.sess.host}
	kept := resp.Topics[:0]
	for _, t := range resp.Topics {
		name := ""
		if t.Topic != nil {
			name = *t.Topic
		}
		if c.f.authz.Authorize(ctx, opDescribe, rtTopic, name) {
			if req.IncludeTopicAuthorizedOperations && req.Version >= 8 {
				t.AuthorizedOperations = authz.AuthorizedOperations(c.f.authz, ctx, rtTopic, name)
			}
			kept = append(kept, t)
			continue
		}
		if req.Topics == nil {
			continue // all topics: the unauthorized are left out
		}
		t.ErrorCode, t.Partitions, t.TopicID = kafkaerr.TopicAuthorizationFailed.Int16(), nil, [16]byte{}
		kept = append(kept, t)
	}
	resp.Topics = kept
	if req.IncludeClusterAuthorizedOperations && req.Version >= 8 && req.Version <= 10 {
		resp.AuthorizedOperations = authz.AuthorizedOperations(c.f.authz, ctx, rtCluster, clusterName)
	}
}
