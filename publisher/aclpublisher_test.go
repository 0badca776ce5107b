package publisher

import (
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/authz"
	"github.com/kmeta-go/kmeta/record"
)

func aclRec(n int, principal string, op, perm int8) *record.AccessControlEntryRecord {
	r := record.NewAccessControlEntryRecord()
	r.ID = record.UUID{0xac, 15: byte(n)}
	r.ResourceType, r.ResourceName, r.PatternType = 2, "orders", 3
	r.Principal, r.Host, r.Operation, r.PermissionType = principal, "*", op, perm
	return r
}

func removeACLRec(n int) *record.RemoveAccessControlEntryRecord {
	r := record.NewRemoveAccessControlEntryRecord()
	r.ID = record.UUID{0xac, 15: byte(n)}
	return r
}

// sameDecisions fails t unless a decides every probe as a fresh
// StandardAuthorizer over img's ACLs.
func sameDecisions(t *testing.T, where string, a *authz.Incremental, img *image.Image) {
	t.Helper()
	fresh := authz.New(img.ACLs(), authz.Config{MetadataVersion: img.Features().EffectiveMetadataVersion()})
	for _, p := range []string{"User:alice", "User:bob", "User:carol"} {
		for _, op := range []authz.Operation{authz.OpRead, authz.OpWrite, authz.OpDescribe} {
			ctx := authz.Context{Principal: p, Host: "10.1.1.1"}
			got, err := a.Check(ctx, op, authz.ResourceTopic, "orders")
			if err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			if want := fresh.Authorize(ctx, op, authz.ResourceTopic, "orders"); got != want {
				t.Fatalf("%s: %s %v: incremental %v, fresh build %v", where, p, op, got, want)
			}
		}
	}
}

// TestACLPublisherEqualsFreshBuild: through a loader, an ACLPublisher's
// authorizer decides as a fresh StandardAuthorizer over each published
// image, random ACL additions and removals in random batches (the seed in
// the subtest name); it is not ready before the first update.
func TestACLPublisherEqualsFreshBuild(t *testing.T) {
	for seed := range 10 {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			r := rand.New(rand.NewSource(int64(seed)))
			l := NewLoader(Config{})
			defer l.Close()
			p := NewACLPublisher("acls", authz.Config{})
			if _, err := p.Authorizer().Check(authz.Context{Principal: "User:alice"}, authz.OpRead, authz.ResourceTopic, "orders"); !errors.Is(err, authz.ErrNotReady) {
				t.Fatalf("before any update: %v", err)
			}
			must(t, l.Install(p))
			l.SetHighWatermark(0)
			var f feed
			live := map[int]bool{}
			users := []string{"User:alice", "User:bob", "User:*"}
			for step := range 40 {
				var recs []record.Record
				for range 1 + r.Intn(4) {
					n := r.Intn(12)
					if live[n] && r.Intn(2) == 0 {
						recs = append(recs, removeACLRec(n))
						delete(live, n)
					} else {
						recs = append(recs, aclRec(n, users[r.Intn(3)], int8(2+r.Intn(3)), int8(2+r.Intn(2))))
						live[n] = true
					}
				}
				must(t, l.HandleCommit(f.batch(recs...)))
				sameDecisions(t, fmt.Sprintf("step %d", step), p.Authorizer(), l.Image())
			}
		})
	}
}

// TestBadBatchKeepsChangeSetsWhole: a batch whose records contradict the
// image gets typed errors (*delta.RecordError), and what the publishers
// receive is never part of a record. Skipping (Kafka's loader), the
// update's change sets list exactly the records that replayed, in replay
// order, and the authorizer follows the published image; halting, no update
// is published, the last good image stays served and the authorizer keeps
// its decisions.
func TestBadBatchKeepsChangeSetsWhole(t *testing.T) {
	for _, mode := range []ReplayErrorMode{Skip, Halt} {
		t.Run(fmt.Sprint(mode), func(t *testing.T) {
			var fs faults
			l := NewLoader(Config{ReplayErrors: mode, FaultHandler: fs.handler})
			defer l.Close()
			cache := NewCache("cache")
			acls := NewACLPublisher("acls", authz.Config{})
			var got [][]delta.ACLChange
			rec := Func("rec", func(u Update) error {
				got = append(got, slices.Clone(u.Changes.ACLs()))
				return nil
			})
			must(t, l.Install(cache, acls, rec))
			l.SetHighWatermark(0)
			var f feed
			must(t, l.HandleCommit(f.batch(aclRec(1, "User:alice", 3, 3))))
			good := cache.Load()
			err := l.HandleCommit(f.batch(aclRec(2, "User:bob", 3, 3), removeACLRec(9), aclRec(3, "User:bob", 4, 2), partRec(7, 0, 1)))
			if mode == Skip {
				must(t, err)
			} else if !errors.Is(err, ErrHalted) {
				t.Fatalf("halt: %v", err)
			}
			if len(fs.list) == 0 {
				t.Fatal("no fault")
			}
			for _, x := range fs.list {
				var re *delta.RecordError
				if !errors.As(x, &re) || !errors.Is(x, delta.ErrRejected) {
					t.Fatalf("fault %v is not a *delta.RecordError", x)
				}
			}
			last := got[len(got)-1]
			if mode == Halt {
				if cache.Load() != good || len(got) != 1 {
					t.Fatalf("halted: image or updates changed (%d updates)", len(got))
				}
			} else {
				ids := []record.UUID{}
				for _, c := range last {
					ids = append(ids, c.ID)
				}
				if want := []record.UUID{{0xac, 15: 2}, {0xac, 15: 3}}; !slices.Equal(ids, want) {
					t.Fatalf("skipping: ACL changes %v, want %v", ids, want)
				}
			}
			sameDecisions(t, "after the bad batch", acls.Authorizer(), cache.Load())
		})
	}
}
