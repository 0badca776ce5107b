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
// does not know (say 99) match nothing.
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
	resp.ErrorMessage = new(string)
	var matched []image.ACL
	for acl := range img.ACLs().All() {
		if aclFilterMatches(req, &acl) {
			matched = append(matched, acl)
		}
	}
	resp.Resources = aclsResources(matched)
	return resp, nil
}

// aclFilterMatches is AclBindingFilter.matches(binding):
// ResourcePatternFilter.matches and AccessControlEntryFilter.matches.
func aclFilterMatches(req *kmsg.DescribeACLsRequest, acl *image.ACL) bool {
	rt, pt := int8(req.ResourceType), int8(req.ResourcePatternType)
	const anyCode, matchCode, literal, prefixed = 1, 2, 3, 4
	if rt != anyCode && rt != acl.ResourceType {
		return false
	}
	if pt != anyCode && pt != matchCode && pt != acl.PatternType {
		return false
	}
	if req.ResourceName != nil {
		name := *req.ResourceName
		switch {
		case pt == anyCode || pt == acl.PatternType:
			if name != acl.ResourceName {
				return false
			}
		case acl.PatternType == literal:
			if name != acl.ResourceName && acl.ResourceName != authz.WildcardResource {
				return false
			}
		case acl.PatternType == prefixed:
			if !strings.HasPrefix(name, acl.ResourceName) {
				return false
			}
		default: // Kafka throws IllegalArgumentException (Unsupported PatternType): no such ACL in an image
			return false
		}
	}
	if req.Principal != nil && *req.Principal != acl.Principal || req.Host != nil && *req.Host != acl.Host {
		return false
	}
	if op := int8(req.Operation); op != anyCode && op != acl.Operation {
		return false
	}
	perm := int8(req.PermissionType)
	return perm == anyCode || perm == acl.PermissionType
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
