package authz

import (
	"errors"
	"fmt"
	"math/rand"
	"testing"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/internal/benchtest"
	"github.com/kmeta-go/kmeta/record"
)

// TestModelIncrementalEqualsFreshBuild: an Incremental loaded from a
// snapshot, then changed by random ACL additions, replacements and removals
// in replay order (as AclPublisher applies AclsDelta.changes), decides
// every random request at every step as New over the same ACLs does, for
// every configuration. Reproduce one with -run 'TestModelIncremental.*/seed=N$'.
func TestModelIncrementalEqualsFreshBuild(t *testing.T) {
	for seed := range 30 {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			r := rand.New(rand.NewSource(int64(seed)))
			for _, cfg := range modelConfigs {
				live := map[record.UUID]image.ACL{}
				next := 0
				newACL := func() image.ACL {
					a := randomACL(r)
					next++
					a.ID = record.UUID{0: byte(seed), 14: byte(next >> 8), 15: byte(next)}
					return a
				}
				for range r.Intn(10) {
					a := newACL()
					live[a.ID] = a
				}
				inc := NewIncremental(cfg)
				inc.LoadSnapshot(aclsFromMap(live))
				inc.CompleteInitialLoad()
				for step := range 60 {
					switch k := r.Intn(4); {
					case k < 2 || len(live) == 0:
						a := newACL()
						live[a.ID] = a
						inc.Add(a)
					case k == 2:
						for id := range live {
							a := randomACL(r)
							a.ID = id
							live[id] = a
							inc.Add(a)
							break
						}
					default:
						for id := range live {
							delete(live, id)
							inc.Remove(id)
							break
						}
					}
					fresh := New(aclsFromMap(live), cfg)
					list := make([]image.ACL, 0, len(live))
					for _, a := range live {
						list = append(list, a)
					}
					for range 40 {
						q := randomRequest(r, list)
						got, err := inc.Check(q.ctx, q.op, q.rt, q.name)
						if err != nil {
							t.Fatal(err)
						}
						if want := fresh.Authorize(q.ctx, q.op, q.rt, q.name); got != want {
							t.Fatalf("%+v step %d %s: incremental %v, fresh build %v", cfg, step, q, got, want)
						}
						if got, want := inc.AuthorizeByResourceType(q.ctx, q.op, q.rt), fresh.AuthorizeByResourceType(q.ctx, q.op, q.rt); got != want {
							t.Fatalf("%+v step %d %s: by resource type: incremental %v, fresh build %v", cfg, step, q, got, want)
						}
					}
				}
				if inc.Len() != len(live) {
					t.Fatalf("Len %d, want %d", inc.Len(), len(live))
				}
			}
		})
	}
}

func aclsFromMap(m map[record.UUID]image.ACL) *image.ACLs {
	list := make([]image.ACL, 0, len(m))
	for _, a := range m {
		list = append(list, a)
	}
	b := image.NewBuilder(nil)
	b.PutACLs(list, nil)
	return b.Image(image.EmptyProvenance).ACLs()
}

// TestIncrementalNotReadyUntilInitialLoad: before CompleteInitialLoad a
// principal that is not a super user gets ErrNotReady (Kafka's
// AuthorizerNotReadyException) and Authorize denies it; a super user is
// allowed; after it, ACLs decide.
func TestIncrementalNotReadyUntilInitialLoad(t *testing.T) {
	inc := NewIncremental(Config{SuperUsers: []string{"User:admin"}, AllowIfNoACLFound: true})
	alice := Context{Principal: "User:alice", Host: "10.0.0.1"}
	if _, err := inc.Check(alice, OpRead, ResourceTopic, "t"); !errors.Is(err, ErrNotReady) {
		t.Fatalf("before the initial load: %v, want ErrNotReady", err)
	}
	if inc.Authorize(alice, OpRead, ResourceTopic, "t") {
		t.Fatal("before the initial load: alice allowed")
	}
	if inc.AuthorizeByResourceType(alice, OpRead, ResourceTopic) {
		t.Fatal("before the initial load: alice allowed by resource type")
	}
	admin := Context{Principal: "User:admin", Host: "10.0.0.1"}
	if ok, err := inc.Check(admin, OpRead, ResourceTopic, "t"); !ok || err != nil {
		t.Fatalf("super user before the initial load: %v %v", ok, err)
	}
	if !inc.AuthorizeByResourceType(admin, OpRead, ResourceTopic) {
		t.Fatal("super user before the initial load: denied by resource type")
	}
	inc.CompleteInitialLoad()
	if ok, err := inc.Check(alice, OpRead, ResourceTopic, "t"); !ok || err != nil {
		t.Fatalf("after the initial load (no ACL, allow.everyone.if.no.acl.found): %v %v", ok, err)
	}
	if !inc.AuthorizeByResourceType(alice, OpRead, ResourceTopic) {
		t.Fatal("after the initial load (no ACL, allow.everyone.if.no.acl.found): denied by resource type")
	}
}

// BenchmarkIncrementalAddACL: one ACL added to (and removed from) an
// authorizer holding 100 000 ACLs, as AclPublisher applies a one-ACL delta;
// and one decision over those ACLs, to compare with BenchmarkAuthorize*.
func BenchmarkIncrementalAddACL(b *testing.B) {
	inc, probe := incrementalOf100k()
	b.ReportAllocs()
	b.ResetTimer()
	defer benchtest.ReportCPU(b, benchtest.ProcessCPU())
	for i := 0; i < b.N; i++ {
		probe.ID[0] = byte(i)
		inc.Add(probe)
		inc.Remove(probe.ID)
	}
}

func BenchmarkIncrementalAuthorize(b *testing.B) {
	inc, _ := incrementalOf100k()
	fresh := New(aclsFromMap(inc.acls), Config{})
	ctx := Context{Principal: "User:u7", Host: "10.0.0.1"}
	for _, c := range []struct {
		name string
		a    Authorizer
	}{{"incremental", inc}, {"fresh", fresh}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			defer benchtest.ReportCPU(b, benchtest.ProcessCPU())
			for i := 0; i < b.N; i++ {
				c.a.Authorize(ctx, OpRead, ResourceTopic, "topic-4242")
			}
		})
	}
}

func incrementalOf100k() (*Incremental, image.ACL) {
	m := map[record.UUID]image.ACL{}
	for i := range 100_000 {
		id := record.UUID{12: byte(i >> 24), 13: byte(i >> 16), 14: byte(i >> 8), 15: byte(i)}
		m[id] = image.ACL{ID: id, ResourceType: int8(ResourceTopic), ResourceName: fmt.Sprintf("topic-%d", i%20000),
			PatternType: int8(PatternLiteral + PatternType(i%2)), Principal: fmt.Sprintf("User:u%d", i%100), Host: "*",
			Operation: int8(OpRead), PermissionType: int8(PermissionAllow)}
	}
	inc := NewIncremental(Config{})
	inc.LoadSnapshot(aclsFromMap(m))
	inc.CompleteInitialLoad()
	probe := image.ACL{ID: record.UUID{1: 1}, ResourceType: int8(ResourceTopic), ResourceName: "topic-4242",
		PatternType: int8(PatternLiteral), Principal: "User:u7", Host: "*", Operation: int8(OpWrite), PermissionType: int8(PermissionDeny)}
	return inc, probe
}

// BenchmarkIncrementalAuthorizeParallel: decisions from every core at once
// (the read lock shared), against a fresh build's.
func BenchmarkIncrementalAuthorizeParallel(b *testing.B) {
	inc, _ := incrementalOf100k()
	fresh := New(aclsFromMap(inc.acls), Config{})
	ctx := Context{Principal: "User:u7", Host: "10.0.0.1"}
	for _, c := range []struct {
		name string
		a    Authorizer
	}{{"incremental", inc}, {"fresh", fresh}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					c.a.Authorize(ctx, OpRead, ResourceTopic, "topic-4242")
				}
			})
		})
	}
}

// TestIncrementalConcurrentReaders: decisions made while ACLs are added and
// removed (run with -race) see each change whole: a DENY added after its
// ALLOW, then removed, flips the decision and never leaves one that neither
// state gives.
func TestIncrementalConcurrentReaders(t *testing.T) {
	inc, _ := incrementalOf100k()
	ctx := Context{Principal: "User:u7", Host: "10.0.0.1"}
	allow := image.ACL{ID: record.UUID{2: 1}, ResourceType: int8(ResourceTopic), ResourceName: "race",
		PatternType: int8(PatternLiteral), Principal: "User:u7", Host: "*", Operation: int8(OpWrite), PermissionType: int8(PermissionAllow)}
	deny := allow
	deny.ID, deny.PermissionType = record.UUID{2: 2}, int8(PermissionDeny)
	inc.Add(allow)
	done := make(chan struct{})
	errs := make(chan string, 1)
	go func() {
		defer close(done)
		for range 2000 {
			inc.Authorize(ctx, OpWrite, ResourceTopic, "race")
			if !inc.Authorize(ctx, OpRead, ResourceTopic, "topic-7") { // the PREFIXED ALLOW of User:u7 on topic-7
				select {
				case errs <- "an ACL no change touched stopped allowing":
				default:
				}
			}
		}
	}()
	for i := range 500 {
		inc.Add(deny)
		if inc.Authorize(ctx, OpWrite, ResourceTopic, "race") {
			select {
			case errs <- "allowed with the DENY in place":
			default:
			}
		}
		inc.Remove(deny.ID)
		if !inc.Authorize(ctx, OpWrite, ResourceTopic, "race") {
			select {
			case errs <- fmt.Sprintf("denied after the DENY was removed (round %d)", i):
			default:
			}
		}
	}
	<-done
	select {
	case e := <-errs:
		t.Fatal(e)
	default:
	}
}

// BenchmarkIncrementalAddOne: ACLs added one by one, each on a name of its
// own, to an authorizer holding 100 000 (the cost of addAcl for one ACL).
func BenchmarkIncrementalAddOne(b *testing.B) {
	inc, probe := incrementalOf100k()
	acls := make([]image.ACL, b.N)
	for i := range acls {
		acls[i] = probe
		acls[i].ID = record.UUID{3: byte(i >> 16), 4: byte(i >> 8), 5: byte(i)}
		acls[i].ResourceName = fmt.Sprintf("bench-%d", i)
	}
	b.ReportAllocs()
	b.ResetTimer()
	defer benchtest.ReportCPU(b, benchtest.ProcessCPU())
	for i := 0; i < b.N; i++ {
		inc.Add(acls[i])
	}
}
