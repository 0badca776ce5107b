package answer

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/authz"
	"github.com/kmeta-go/kmeta/image/kafkaerr"
)

// ErrInvalidACLFilter is the error of DescribeACLs for a request a Kafka
// broker cannot parse (DescribeAclsRequest.normalizeAndValidate: a filter
// with an UNKNOWN (0) resource type, pattern type, operation or permission
// type): the broker answers nothing and closes the connection.
var ErrInvalidACLFilter = errors.New("answer: DescribeAcls filter contains UNKNOWN elements")

// DescribeACLs answers a DescribeAcls request (v1-v3) as Kafka's
// AclApis.handleDescribeAcls does with StandardAuthorizer.acls: DESCRIBE on
// the cluster is required (CLUSTER_AUTHORIZATION_FAILED); a broker without
// an authorizer (Config.Authorizer nil) answers SECURITY_DISABLED, "No
// Authorizer is configured on the broker"; otherwise the answer lists the
// image's ACLs that match the filter (AclBindingFilter.matches: ANY
// matches every resource type, pattern type, operation and permission, a
// null name, principal or host everything; a MATCH pattern filter with a
// name matches the LITERAL ACLs of that name or "*" and the PREFIXED ACLs
// whose prefix the name starts with), grouped by resource pattern with
// identical entries once (DescribeAclsResponse.aclsResources). Codes Kafka
// 4.4 does not know (say 99, in the filter or in an image's ACL) are
// UNKNOWN, as its enums' fromCode reads them; an image ACL with an ANY or
// MATCH code, on which Kafka's StandardAcl.toBinding throws, makes the
// answer UNKNOWN_SERVER_ERROR, as does a MATCH filter with a name over an
// ACL whose pattern type is UNKNOWN.
//
// A filter with an UNKNOWN element is ErrInvalidACLFilter. Kafka's
// resources and entries come in the order of HashMaps and HashSets keyed by
// enums, which differs from one JVM to the next; kmeta sorts resources by
// type, pattern type and name, entries by principal, host, operation and
// permission. The message of the authorization error carries the request
// as Kafka's RequestChannel prints it (a runtime value); kmeta prints the
// principal and host.
func (r *Responder) DescribeACLs(img *image.Image, req *kmsg.DescribeACLsRequest, rq Request) (*kmsg.DescribeACLsResponse, error) {
	if req.ResourceType == 0 || req.ResourcePatternType == 0 || req.Operation == 0 || req.PermissionType == 0 {
		return nil, ErrInvalidACLFilter
	}
	resp := kmsg.NewPtrDescribeACLsResponse()
	resp.Version = req.Version
	a := r.cfg.Authorizer
	if a != nil && !a.Authorize(authz.Context{Principal: rq.Principal, Host: rq.Host}, authz.OpDescribe,
		authz.ResourceCluster, authz.ClusterName) {
		resp.ErrorCode = int16(kafkaerr.ClusterAuthorizationFailed)
		msg := fmt.Sprintf("Request DescribeAcls(principal=%s, host=%s) needs DESCRIBE permission.", rq.Principal, rq.Host)
		resp.ErrorMessage = &msg
		return resp, nil
	}
	if a == nil {
		resp.ErrorCode = int16(kafkaerr.SecurityDisabled)
		msg := "No Authorizer is configured on the broker"
		resp.ErrorMessage = &msg
		return resp, nil
	}
	var matched []image.ACL
	for acl := range img.ACLs().All() {
		acl = knownACLCodes(acl)
		match, ok := aclFilterMatches(req, &acl)
		if !ok || acl.ResourceType == anyCode || acl.PatternType == anyCode || acl.PatternType == matchCode ||
			acl.Operation == anyCode || acl.PermissionType == anyCode {
			// StandardAcl.toBinding or ResourcePatternFilter.matches throws
			// IllegalArgumentException: KafkaApis answers getErrorResponse.
			resp.ErrorCode = int16(kafkaerr.UnknownServerError)
			return resp, nil
		}
		if match {
			matched = append(matched, acl)
		}
	}
	resp.ErrorMessage = new(string)
	resp.Resources = aclsResources(matched)
	return resp, nil
}

// The codes of ANY and MATCH (ResourceType, PatternType, AclOperation,
// AclPermissionType), and the patterns an ACL can have.
const anyCode, matchCode, literalCode, prefixedCode = 1, 2, 3, 4

// knownCode is the fromCode of Kafka's enums: a code beyond the highest
// known one (last) is UNKNOWN (0).
func knownCode(c, last int8) int8 {
	if c < 0 || c > last {
		return 0
	}
	return c
}

// knownACLCodes is the ACL as StandardAcl.fromRecord reads it: codes Kafka
// 4.4 does not know become UNKNOWN.
func knownACLCodes(a image.ACL) image.ACL {
	a.ResourceType, a.PatternType = knownCode(a.ResourceType, 7), knownCode(a.PatternType, 4)
	a.Operation, a.PermissionType = knownCode(a.Operation, 15), knownCode(a.PermissionType, 3)
	return a
}

// aclFilterMatches is AclBindingFilter.matches(binding) over the filter's
// codes as DescribeAclsRequest.filter reads them (fromCode: an unknown code
// is UNKNOWN): ResourcePatternFilter.matches and
// AccessControlEntryFilter.matches. ok is false where Kafka throws (a
// MATCH filter with a name over an ACL whose pattern is neither LITERAL
// nor PREFIXED).
func aclFilterMatches(req *kmsg.DescribeACLsRequest, acl *image.ACL) (match, ok bool) {
	rt, pt := knownCode(int8(req.ResourceType), 7), knownCode(int8(req.ResourcePatternType), 4)
	if rt != anyCode && rt != acl.ResourceType {
		return false, true
	}
	if pt != anyCode && pt != matchCode && pt != acl.PatternType {
		return false, true
	}
	if req.ResourceName != nil {
		name := *req.ResourceName
		switch {
		case pt == anyCode || pt == acl.PatternType:
			if name != acl.ResourceName {
				return false, true
			}
		case acl.PatternType == literalCode:
			if name != acl.ResourceName && acl.ResourceName != authz.WildcardResource {
				return false, true
			}
		case acl.PatternType == prefixedCode:
			if !strings.HasPrefix(name, acl.ResourceName) {
				return false, true
			}
		default: // IllegalArgumentException: Unsupported PatternType
			return false, false
		}
	}
	if req.Principal != nil && *req.Principal != acl.Principal || req.Host != nil && *req.Host != acl.Host {
		return false, true
	}
	if op := knownCode(int8(req.Operation), 15); op != anyCode && op != acl.Operation {
		return false, true
	}
	perm := knownCode(int8(req.PermissionType), 3)
	return perm == anyCode || perm == acl.PermissionType, true
}

// aclsResources is DescribeAclsResponse.aclsResources: the ACLs grouped by
// resource pattern, each distinct entry once, in kmeta's sorted order.
func aclsResources(acls []image.ACL) []kmsg.DescribeACLsResponseResource {
	slices.SortFunc(acls, func(a, b image.ACL) int {
		return cmp.Or(cmp.Compare(a.ResourceType, b.ResourceType), cmp.Compare(a.PatternType, b.PatternType),
			strings.Compare(a.ResourceName, b.ResourceName), strings.Compare(a.Principal, b.Principal),
			strings.Compare(a.Host, b.Host), cmp.Compare(a.Operation, b.Operation), cmp.Compare(a.PermissionType, b.PermissionType))
	})
	var out []kmsg.DescribeACLsResponseResource
	for i, a := range acls {
		if i > 0 {
			p := acls[i-1]
			if p.ResourceType == a.ResourceType && p.PatternType == a.PatternType && p.ResourceName == a.ResourceName {
				if p.Principal == a.Principal && p.Host == a.Host && p.Operation == a.Operation && p.PermissionType == a.PermissionType {
					continue
				}
				out[len(out)-1].ACLs = append(out[len(out)-1].ACLs, aclDescription(a))
				continue
			}
		}
		res := kmsg.NewDescribeACLsResponseResource()
		res.ResourceType = kmsg.ACLResourceType(a.ResourceType)
		res.ResourceName = a.ResourceName
		res.ResourcePatternType = kmsg.ACLResourcePatternType(a.PatternType)
		res.ACLs = []kmsg.DescribeACLsResponseResourceACL{aclDescription(a)}
		out = append(out, res)
	}
	return out
}

func aclDescription(a image.ACL) kmsg.DescribeACLsResponseResourceACL {
	d := kmsg.NewDescribeACLsResponseResourceACL()
	d.Principal, d.Host = a.Principal, a.Host
	d.Operation, d.PermissionType = kmsg.ACLOperation(a.Operation), kmsg.ACLPermissionType(a.PermissionType)
	return d
}
