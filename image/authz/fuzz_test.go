package authz

import (
	"testing"

	"github.com/kmeta-go/kmeta/image"
)

// fuzzInput turns fuzz bytes into an ACL set, a configuration, a request
// and one more DENY ACL: each byte picks from the pools of the model test,
// or, now and then, is the length of raw bytes taken as a string.
type fuzzInput struct{ b []byte }

func (f *fuzzInput) byte() byte {
	if len(f.b) == 0 {
		return 0
	}
	c := f.b[0]
	f.b = f.b[1:]
	return c
}

func (f *fuzzInput) str(pool []string) string {
	c := f.byte()
	if c < 240 {
		return pool[int(c)%len(pool)]
	}
	n := int(c - 240)
	if n > len(f.b) {
		n = len(f.b)
	}
	s := string(f.b[:n])
	f.b = f.b[n:]
	return s
}

// code is a small enum code: mostly valid, sometimes outside the enum.
func (f *fuzzInput) code(valid []int8) int8 {
	c := f.byte()
	if c >= 250 {
		return int8(c) // negative or large: UNKNOWN to Kafka's fromCode
	}
	return valid[int(c)%len(valid)]
}

var (
	fuzzTypes = []int8{int8(ResourceTopic), int8(ResourceTopic), int8(ResourceGroup), int8(ResourceCluster), int8(ResourceTransactionalID), int8(ResourceDelegationToken), int8(ResourceUser), int8(ResourceUnknown), int8(ResourceAny)}
	fuzzPats  = []int8{int8(PatternLiteral), int8(PatternLiteral), int8(PatternPrefixed), int8(PatternPrefixed), int8(PatternUnknown), int8(PatternAny), int8(PatternMatch)}
	fuzzOps   = []int8{int8(OpUnknown), int8(OpAny), int8(OpAll), int8(OpRead), int8(OpWrite), int8(OpCreate), int8(OpDelete), int8(OpAlter), int8(OpDescribe), int8(OpClusterAction), int8(OpDescribeConfigs), int8(OpAlterConfigs), int8(OpIdempotentWrite), int8(OpCreateTokens), int8(OpDescribeTokens), int8(OpTwoPhaseCommit)}
	fuzzPerms = []int8{int8(PermissionAllow), int8(PermissionAllow), int8(PermissionDeny), int8(PermissionUnknown), int8(PermissionAny)}
)

func (f *fuzzInput) acl() image.ACL {
	return image.ACL{ResourceType: f.code(fuzzTypes), ResourceName: f.str(genNames), PatternType: f.code(fuzzPats),
		Principal: f.str(genPrincipals), Host: f.str(genACLHosts), Operation: f.code(fuzzOps), PermissionType: f.code(fuzzPerms)}
}

func (f *fuzzInput) config() Config {
	c := f.byte()
	cfg := Config{AllowIfNoACLFound: c&1 != 0}
	if c&2 != 0 {
		cfg.SuperUsers = []string{f.str(genCtxUsers)}
	}
	if c&4 != 0 {
		cfg.MetadataVersion = image.MV4_4_IV2
	}
	return cfg
}

// FuzzAuthorize: for any ACL set and request, Standard never panics, gives
// the model's decision, and is monotonic where Kafka answers at all:
// adding a DENY never turns DENIED into ALLOWED, and (with
// allow.everyone.if.no.acl.found=false, since removing the last ACL of a
// resource brings the default back) removing an ALLOW never does either.
// Requests on which Kafka throws or loops (request.failed) are denied by
// kmeta and left out of the monotonicity check: which ACLs make Kafka fail
// is not monotonic (see Standard.Authorize).
func FuzzAuthorize(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{3, 0, 7, 0, 0, 0, 3, 0, 1, 1, 0, 0, 7, 0, 3, 0, 0})
	f.Add([]byte{5, 1, 1, 8, 2, 1, 9, 3, 0, 2, 2, 4, 1, 9, 2, 9, 1, 1, 3, 1, 0, 2})
	f.Add([]byte{4, 0, 14, 0, 1, 12, 3, 0, 0, 15, 2, 0, 3, 2, 4, 7, 2, 0, 15, 0, 0, 6, 3, 2})
	f.Add([]byte{2, 0, 16, 2, 0, 0, 3, 0, 17, 0, 1, 0, 3, 1, 0, 16, 3, 0, 2})
	f.Add([]byte{6, 0, 8, 0, 1, 22, 3, 0, 0, 8, 0, 2, 27, 3, 2, 2, 3, 0, 0, 4, 1, 0, 8})
	f.Add([]byte{244, 'a', 'b', 'c', 'd', 0, 243, '1', '/', '8', 0, 3, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		in := &fuzzInput{b: data}
		n := int(in.byte() % 16)
		list := make([]image.ACL, n)
		for i := range list {
			list[i] = in.acl()
		}
		cfg := in.config()
		q := vectorRow{ctx: Context{Principal: in.str(genCtxUsers), Host: in.str(genCtxHosts)},
			op: Operation(in.code(fuzzOps)), rt: ResourceType(in.code(fuzzTypes)), name: in.str(genNames), byType: in.byte()&1 != 0}
		extra := in.acl()
		extra.PermissionType = int8(PermissionDeny)

		ask := func(list []image.ACL) (bool, bool) {
			s := New(acls(list...), cfg)
			req := request{ctx: q.ctx, op: operationFromCode(int8(q.op))}
			var ok bool
			if q.byType {
				ok = s.authorizeByResourceType(&req, q.rt)
			} else {
				ok = s.authorize(&req, q.rt, q.name)
			}
			if ok != decide(s, q) {
				t.Fatalf("internal and exported answers differ")
			}
			return ok, req.failed
		}
		got, failed := ask(list)
		if want := (&model{acls: list, cfg: cfg}).decide(q); got != want {
			t.Fatalf("%+v %s: Standard %s, model %s; ACLs %+v", cfg, q, verdict(got), verdict(want), list)
		}
		if got || failed {
			return
		}
		if ok, f2 := ask(append(append([]image.ACL(nil), list...), extra)); ok && !f2 {
			t.Fatalf("%+v %s: DENIED, but ALLOWED after adding the DENY %+v; ACLs %+v", cfg, q, extra, list)
		}
		if cfg.AllowIfNoACLFound {
			return
		}
		for i := range list {
			if permissionFromCode(list[i].PermissionType) != PermissionAllow {
				continue
			}
			rest := append(append([]image.ACL(nil), list[:i]...), list[i+1:]...)
			if ok, f2 := ask(rest); ok && !f2 {
				t.Fatalf("%+v %s: DENIED, but ALLOWED after removing the ALLOW %+v; ACLs %+v", cfg, q, list[i], list)
			}
		}
	})
}
