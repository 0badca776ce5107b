package answer_test

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/answer"
	"github.com/kmeta-go/kmeta/image/authz"
	"github.com/kmeta-go/kmeta/internal/javahash"
	"github.com/kmeta-go/kmeta/internal/kafkaoracle"
	"github.com/kmeta-go/kmeta/record"

	"github.com/kmeta-go/kmeta/image/kafkaerr"
)

// credDescribeVector is one line of cred_describe (harness CredDescribe):
// a DescribeUserScramCredentials, DescribeAcls or DescribeDelegationToken
// answer of Kafka's code, encoded.
type credDescribeVector struct {
	Kind string
	// scram
	Credentials []struct {
		User       string
		Mechanism  int8
		Iterations int32
	}
	Users      *[]string
	Authorized bool
	Response   []byte
	Exception  string
	// acls
	ACLs []struct {
		ID                            string
		ResourceType, PatternType     int8
		Operation, PermissionType     int8
		ResourceName, Principal, Host string
	}
	Filter struct {
		ResourceType, PatternType, Operation, PermissionType int8
		ResourceName, Principal, Host                        *string
	}
	Authorizer bool
	Answers    map[string]any
	// tokens
	SecretKey string
	Tokens    []struct {
		TokenID, Owner, Requester string
		Renewers                  []string
		Issue, Max, Expiry        int64
	}
	Owners               *[]string
	Protocol, Principal  string
	TokenAuthenticated   bool
	DescribeTokenIDs     []string `json:"describeTokenIds"`
	DescribeTokensOwners []string
}

// setAuthorizer answers from sets: the cluster's DESCRIBE, the token ids
// DESCRIBE allows and the owners DESCRIBE_TOKENS allows.
type setAuthorizer struct {
	cluster bool
	tokens  []string
	owners  []string
}

func (s setAuthorizer) Authorize(_ authz.Context, op authz.Operation, rt authz.ResourceType, name string) bool {
	switch {
	case rt == authz.ResourceCluster && op == authz.OpDescribe:
		return s.cluster
	case rt == authz.ResourceDelegationToken && op == authz.OpDescribe:
		return slices.Contains(s.tokens, name)
	case rt == authz.ResourceUser && op == authz.OpDescribeTokens:
		return slices.Contains(s.owners, name)
	}
	return false
}

// sameBytes fails t unless kmeta's answer ours encodes to Kafka's bytes
// kafka after canon has put both in one order; it also checks that kmsg
// reads and writes Kafka's bytes back unchanged.
func sameBytes[T kmsg.Response](t *testing.T, what string, ours, theirs T, kafka []byte, canon func(T)) {
	t.Helper()
	if err := theirs.ReadFrom(kafka); err != nil {
		t.Fatalf("%s: kmsg cannot read Kafka's answer: %v", what, err)
	}
	if again := theirs.AppendTo(nil); !bytes.Equal(again, kafka) {
		t.Fatalf("%s: kmsg does not write Kafka's answer back: %x, Kafka %x", what, again, kafka)
	}
	canon(theirs)
	canon(ours)
	if got, want := ours.AppendTo(nil), theirs.AppendTo(nil); !bytes.Equal(got, want) {
		t.Fatalf("%s:\n kmeta %+v\n Kafka %+v", what, ours, theirs)
	}
}

// TestCredDescribeVectors replays every DescribeUserScramCredentials,
// DescribeAcls and DescribeDelegationToken answer of Kafka's code, byte for
// byte at every version, with these exceptions, each a JVM's runtime order
// or value rather than a rule: a user's SCRAM mechanisms, the resources and
// entries of DescribeAcls and the tokens of DescribeDelegationToken are put
// in one order on both sides first (Kafka's follow enum identity hashes or
// a cache's history); the users of an all-users SCRAM answer are compared
// as a set, and Kafka's order is checked to be a java.util.HashMap's; the
// message of DescribeAcls' CLUSTER_AUTHORIZATION_FAILED prints Kafka's
// request object. An unauthorized SCRAM request with a null user list, on
// which Kafka throws, is counted and only its error code checked.
func TestCredDescribeVectors(t *testing.T) {
	counts := map[string]int{}
	defer func() { t.Logf("vectors: %v", counts) }()
	kafkaoracle.Decode(t, "cred_describe", func(n int, v *credDescribeVector) {
		t.Run(kafkaoracle.Name("cred_describe", n), func(t *testing.T) {
			counts[v.Kind]++
			switch v.Kind {
			case "scram":
				if v.Response == nil {
					counts["scram NullPointerException"]++
				}
				checkScramDescribe(t, v)
			case "acls":
				checkACLsDescribe(t, v)
			case "tokens":
				checkTokensDescribe(t, v)
			default:
				t.Fatalf("kind %q", v.Kind)
			}
		})
	})
}

func checkScramDescribe(t *testing.T, v *credDescribeVector) {
	b := image.NewBuilder(nil)
	creds := map[image.ScramKey]*image.ScramCredential{}
	for _, c := range v.Credentials {
		creds[image.ScramKey{Mechanism: c.Mechanism, User: c.User}] = &image.ScramCredential{Salt: []byte("s"), Iterations: c.Iterations}
	}
	b.PutScram(creds)
	img := b.Image(image.EmptyProvenance)
	req := kmsg.NewPtrDescribeUserSCRAMCredentialsRequest()
	if v.Users != nil {
		req.Users = []kmsg.DescribeUserSCRAMCredentialsRequestUser{}
		for _, u := range *v.Users {
			req.Users = append(req.Users, kmsg.DescribeUserSCRAMCredentialsRequestUser{Name: u})
		}
	}
	r := answer.New(answer.Config{Authorizer: setAuthorizer{cluster: v.Authorized}})
	ours := r.DescribeUserSCRAMCredentials(img, req, answer.Request{Principal: "User:admin"})
	if v.Response == nil {
		if v.Authorized || ours.ErrorCode != kafkaerr.ClusterAuthorizationFailed.Int16() || len(ours.Results) != 0 {
			t.Fatalf("null users, unauthorized: %+v", ours)
		}
		return
	}
	all := len(req.Users) == 0
	sameBytes(t, "DescribeUserScramCredentials v0", ours, kmsg.NewPtrDescribeUserSCRAMCredentialsResponse(), v.Response,
		func(resp *kmsg.DescribeUserSCRAMCredentialsResponse) {
			if all {
				names := make([]string, len(resp.Results))
				for i, res := range resp.Results {
					names[i] = res.User
				}
				if order := javahash.HashMapOrder(names); !slices.IsSorted(order) {
					t.Fatalf("all users: %q is not a HashMap's order", names)
				}
				slices.SortFunc(resp.Results, func(a, b kmsg.DescribeUserSCRAMCredentialsResponseResult) int {
					return strings.Compare(a.User, b.User)
				})
			}
			for i := range resp.Results {
				slices.SortFunc(resp.Results[i].CredentialInfos, func(a, b kmsg.DescribeUserSCRAMCredentialsResponseResultCredentialInfo) int {
					return cmp.Compare(a.Mechanism, b.Mechanism)
				})
			}
		})
}

func answerBytes(t *testing.T, a any) (resp []byte, invalid string) {
	m, _ := a.(map[string]any)
	if s, ok := m["invalid"].(string); ok {
		return nil, s
	}
	b, err := base64.StdEncoding.DecodeString(m["response"].(string))
	if err != nil {
		t.Fatal(err)
	}
	return b, ""
}

func checkACLsDescribe(t *testing.T, v *credDescribeVector) {
	b := image.NewBuilder(nil)
	var acls []image.ACL
	for _, a := range v.ACLs {
		var id record.UUID
		if err := id.UnmarshalText([]byte(a.ID)); err != nil {
			t.Fatal(err)
		}
		acls = append(acls, image.ACL{ID: id, ResourceType: a.ResourceType, ResourceName: a.ResourceName, PatternType: a.PatternType,
			Principal: a.Principal, Host: a.Host, Operation: a.Operation, PermissionType: a.PermissionType})
	}
	b.PutACLs(acls, nil)
	img := b.Image(image.EmptyProvenance)
	cfg := answer.Config{}
	if v.Authorizer {
		cfg.Authorizer = setAuthorizer{cluster: v.Authorized}
	}
	r := answer.New(cfg)
	for ver := int16(1); ver <= 3; ver++ {
		kafka, invalid := answerBytes(t, v.Answers[strconv.Itoa(int(ver))])
		req := kmsg.NewPtrDescribeACLsRequest()
		req.Version = ver
		f := v.Filter
		req.ResourceType, req.ResourcePatternType = kmsg.ACLResourceType(f.ResourceType), kmsg.ACLResourcePatternType(f.PatternType)
		req.ResourceName, req.Principal, req.Host = f.ResourceName, f.Principal, f.Host
		req.Operation, req.PermissionType = kmsg.ACLOperation(f.Operation), kmsg.ACLPermissionType(f.PermissionType)
		ours, err := r.DescribeACLs(img, req, answer.Request{Principal: "User:admin", Host: "10.0.0.9"})
		if invalid != "" {
			if !errors.Is(err, answer.ErrInvalidACLFilter) {
				t.Fatalf("v%d: %+v %v, Kafka refuses the request: %s", ver, ours, err, invalid)
			}
			continue
		}
		if err != nil {
			t.Fatalf("v%d: %v", ver, err)
		}
		theirs := kmsg.NewPtrDescribeACLsResponse()
		theirs.Version = ver
		ours.Version = ver
		sameBytes(t, "DescribeAcls v"+strconv.Itoa(int(ver)), ours, theirs, kafka, func(resp *kmsg.DescribeACLsResponse) {
			if resp.ErrorCode == kafkaerr.ClusterAuthorizationFailed.Int16() && resp.ErrorMessage != nil && strings.HasSuffix(*resp.ErrorMessage, " needs DESCRIBE permission.") {
				resp.ErrorMessage = nil // runtime: Kafka prints its request object
			}
			for i := range resp.Resources {
				slices.SortFunc(resp.Resources[i].ACLs, func(a, b kmsg.DescribeACLsResponseResourceACL) int {
					return cmp.Or(strings.Compare(a.Principal, b.Principal), strings.Compare(a.Host, b.Host),
						cmp.Compare(a.Operation, b.Operation), cmp.Compare(a.PermissionType, b.PermissionType))
				})
			}
			slices.SortFunc(resp.Resources, func(a, b kmsg.DescribeACLsResponseResource) int {
				return cmp.Or(cmp.Compare(a.ResourceType, b.ResourceType), cmp.Compare(a.ResourcePatternType, b.ResourcePatternType),
					strings.Compare(a.ResourceName, b.ResourceName))
			})
		})
	}
}

func checkTokensDescribe(t *testing.T, v *credDescribeVector) {
	b := image.NewBuilder(nil)
	toks := map[string]*image.Token{}
	for _, tk := range v.Tokens {
		toks[tk.TokenID] = &image.Token{TokenID: tk.TokenID, Owner: tk.Owner, Requester: tk.Requester, Renewers: tk.Renewers,
			IssueTimestamp: tk.Issue, MaxTimestamp: tk.Max, ExpirationTimestamp: tk.Expiry}
	}
	b.PutTokens(toks)
	img := b.Image(image.EmptyProvenance)
	r := answer.New(answer.Config{Authorizer: setAuthorizer{tokens: v.DescribeTokenIDs, owners: v.DescribeTokensOwners}})
	for ver := int16(1); ver <= 3; ver++ {
		kafka, _ := base64.StdEncoding.DecodeString(v.Answers[strconv.Itoa(int(ver))].(string))
		req := kmsg.NewPtrDescribeDelegationTokenRequest()
		req.Version = ver
		if v.Owners != nil {
			req.Owners = []kmsg.DescribeDelegationTokenRequestOwner{}
			for _, o := range *v.Owners {
				typ, name, _ := strings.Cut(o, ":")
				req.Owners = append(req.Owners, kmsg.DescribeDelegationTokenRequestOwner{PrincipalType: typ, PrincipalName: name})
			}
		}
		ours := r.DescribeDelegationToken(img, req, answer.Request{Principal: v.Principal, Host: "10.0.0.9"},
			answer.TokenRequest{SecretKey: v.SecretKey, SecurityProtocol: v.Protocol, TokenAuthenticated: v.TokenAuthenticated})
		theirs := kmsg.NewPtrDescribeDelegationTokenResponse()
		theirs.Version = ver
		sameBytes(t, "DescribeDelegationToken v"+strconv.Itoa(int(ver)), ours, theirs, kafka, func(resp *kmsg.DescribeDelegationTokenResponse) {
			slices.SortFunc(resp.TokenDetails, func(a, b kmsg.DescribeDelegationTokenResponseTokenDetail) int {
				return strings.Compare(a.TokenID, b.TokenID)
			})
		})
	}
}
