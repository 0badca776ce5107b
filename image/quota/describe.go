package quota

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/kafkaerr"
)

// FilterError is a DescribeClientQuotas filter that ClientQuotasImage.describe
// refuses: the error code Kafka answers with (INVALID_REQUEST, or
// UNSUPPORTED_VERSION for an entity type other than user, client-id and
// ip) and its message.
type FilterError struct {
	Code    kafkaerr.Code
	Message string
}

// Unwrap is the code, so that errors.Is(err, kafkaerr.InvalidRequest) and
// kafkaerr.CodeOf see it.
func (e *FilterError) Unwrap() error { return e.Code }

// Error prints the message and the code.
func (e *FilterError) Error() string {
	return fmt.Sprintf("quota: DescribeClientQuotas: %s (error code %d)", e.Message, e.Code)
}

// filter is a validated DescribeClientQuotas filter: exact[type] is the
// name to match (nil for MATCH_TYPE_DEFAULT), specified the types matched
// by MATCH_TYPE_SPECIFIED.
type filter struct {
	exact     map[string]*string
	specified map[string]bool
	strict    bool
}

// parseFilter is the validation of ClientQuotasImage.describe, each
// component in order, the first fault winning.
func parseFilter(req *kmsg.DescribeClientQuotasRequest) (filter, error) {
	f := filter{exact: map[string]*string{}, specified: map[string]bool{}, strict: req.Strict}
	invalid := func(msg string) (filter, error) {
		return filter{}, &FilterError{Code: kafkaerr.InvalidRequest, Message: msg}
	}
	for _, c := range req.Components {
		t := c.EntityType
		_, dupExact := f.exact[t]
		switch {
		case t == "":
			return invalid("Invalid empty entity type.")
		case dupExact || f.specified[t]:
			return invalid("Entity type " + t + " cannot appear more than once in the filter.")
		case t != EntityIP && t != EntityUser && t != EntityClientID:
			return filter{}, &FilterError{Code: kafkaerr.UnsupportedVersion, Message: "Unsupported entity type " + t}
		}
		switch c.MatchType {
		case 0: // MATCH_TYPE_EXACT
			if c.Match == nil {
				return invalid("Request specified MATCH_TYPE_EXACT, but set match string to null.")
			}
			f.exact[t] = c.Match
		case 1: // MATCH_TYPE_DEFAULT
			if c.Match != nil {
				return invalid("Request specified MATCH_TYPE_DEFAULT, but also specified a match string.")
			}
			f.exact[t] = nil
		case 2: // MATCH_TYPE_SPECIFIED
			if c.Match != nil {
				return invalid("Request specified MATCH_TYPE_SPECIFIED, but also specified a match string.")
			}
			f.specified[t] = true
		default:
			return invalid(fmt.Sprintf("Unknown match type %d", int8(c.MatchType)))
		}
	}
	if f.has(EntityIP) && (f.has(EntityUser) || f.has(EntityClientID)) {
		return invalid("Invalid entity filter component combination. IP filter component should not be used with user or clientId filter component.")
	}
	return f, nil
}

func (f *filter) has(t string) bool {
	_, ok := f.exact[t]
	return ok || f.specified[t]
}

// matches reports whether an entity with parts is in the answer
// (ClientQuotasImage.matches): it has every exact component with that name
// (or the default) and every specified type, and, when strict, nothing
// else. With no component, every entity matches unless strict.
func (f *filter) matches(parts []image.QuotaEntityPart) bool {
	n := len(f.exact) + len(f.specified)
	if n == 0 {
		return !f.strict
	}
	for t, name := range f.exact {
		got, ok := part(parts, t)
		if !ok || (got == nil) != (name == nil) || (got != nil && *got != *name) {
			return false
		}
	}
	for t := range f.specified {
		if _, ok := part(parts, t); !ok {
			return false
		}
	}
	return !f.strict || len(parts) == n
}

// DescribeClientQuotas answers req from q as a broker does
// (KafkaApis.handleDescribeClientQuotasRequest over
// ClientQuotasImage.describe): the entities that match the filter, each
// with its parts and quotas. A filter Kafka refuses is answered with its
// error code and message and no entries (DescribeClientQuotasRequest.getErrorResponse),
// and returned as a *FilterError too. Kafka lists entries, parts and
// values in the order of its hash maps, which no client relies on; kmeta
// lists entries in entity key order (image.QuotaEntityKey), parts by type
// and values by key. ThrottleMillis is 0 (the request quota's throttle is
// the broker's to set). The response has req's version.
func DescribeClientQuotas(q *image.ClientQuotas, req *kmsg.DescribeClientQuotasRequest) (*kmsg.DescribeClientQuotasResponse, error) {
	resp := kmsg.NewPtrDescribeClientQuotasResponse()
	resp.Version = req.Version
	f, err := parseFilter(req)
	if err != nil {
		fe := err.(*FilterError)
		msg := fe.Message
		resp.ErrorCode, resp.ErrorMessage, resp.Entries = fe.Code.Int16(), &msg, nil
		return resp, err
	}
	empty := "" // the schema's default, which Kafka's answer keeps
	resp.ErrorMessage = &empty
	resp.Entries = []kmsg.DescribeClientQuotasResponseEntry{}
	for _, e := range q.Entities() {
		parts := e.Parts()
		if !f.matches(parts) {
			continue
		}
		entry := kmsg.NewDescribeClientQuotasResponseEntry()
		for _, p := range parts {
			ent := kmsg.NewDescribeClientQuotasResponseEntryEntity()
			ent.Type, ent.Name = p.Type, p.Name
			entry.Entity = append(entry.Entity, ent)
		}
		for _, v := range e.Values() {
			val := kmsg.NewDescribeClientQuotasResponseEntryValue()
			val.Key, val.Value = v.Key, v.Value
			entry.Values = append(entry.Values, val)
		}
		resp.Entries = append(resp.Entries, entry)
	}
	return resp, nil
}

// DescribeClientQuotasUnauthorized is the answer to a DescribeClientQuotas
// request whose principal may not DESCRIBE_CONFIGS the cluster
// (KafkaApis.handleDescribeClientQuotasRequest): CLUSTER_AUTHORIZATION_FAILED,
// no message, no entries, at version.
func DescribeClientQuotasUnauthorized(version int16) *kmsg.DescribeClientQuotasResponse {
	resp := kmsg.NewPtrDescribeClientQuotasResponse()
	resp.Version = version
	resp.ErrorCode = kafkaerr.ClusterAuthorizationFailed.Int16()
	resp.Entries = nil
	return resp
}
