package authz

import (
	"errors"
	"fmt"
	"math/rand"
	"testing"

	"github.com/kmeta-go/kmeta/image"
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
	if ok, err := inc.Check(Context{Principal: "User:admin", Host: "10.0.0.1"}, OpRead, ResourceTopic, "t"); !ok || err != nil {
		t.Fatalf("super user before the initial load: %v %v", ok, err)
	}
	inc.CompleteInitialLoad()
	if ok, err := inc.Check(alice, OpRead, ResourceTopic, "t"); !ok || err != nil {
		t.Fatalf("after the initial load (no ACL, allow.everyone.if.no.acl.found): %v %v", ok, err)
	}
}
