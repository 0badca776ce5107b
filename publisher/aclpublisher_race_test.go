package publisher

import (
	"fmt"
	"math/rand"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kmeta-go/kmeta/image/authz"
	"github.com/kmeta-go/kmeta/record"
)

// topicACL allows User:alice to READ the topic "t<n>" (LITERAL, any host).
func topicACL(n int) *record.AccessControlEntryRecord {
	r := record.NewAccessControlEntryRecord()
	r.ID = record.UUID{0xad, 14: byte(n >> 8), 15: byte(n)}
	r.ResourceType, r.ResourceName, r.PatternType = int8(authz.ResourceTopic), fmt.Sprintf("t%d", n), int8(authz.PatternLiteral)
	r.Principal, r.Host, r.Operation, r.PermissionType = "User:alice", "*", int8(authz.OpRead), int8(authz.PermissionAllow)
	return r
}

// TestACLPublisherConcurrentReaders (AclPublisher beside request handler
// threads reading StandardAuthorizer): readers decide while the loader
// publishes one ACL per commit and, every 16 ACLs, a snapshot of all of
// them (a SnapshotLoad replacing every ACL). The ACLs are added in order,
// and each change is published whole, so a reader that sees t<j> allowed
// must see every t<i> with i < j allowed too; AuthorizeByResourceType, once
// true, stays true; and at the end every ACL decides. Run with -race. The
// readers' choices come from seed 1.
func TestACLPublisherConcurrentReaders(t *testing.T) {
	const n = 96
	l := NewLoader(Config{})
	defer l.Close()
	p := NewACLPublisher("acls", authz.Config{})
	must(t, l.Install(p))
	a := p.Authorizer()
	alice := authz.Context{Principal: "User:alice", Host: "10.1.1.1"}
	allowed := func(i int) bool { return a.Authorize(alice, authz.OpRead, authz.ResourceTopic, fmt.Sprintf("t%d", i)) }
	var done atomic.Bool
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewSource(int64(1 + g)))
			byType := false
			for !done.Load() {
				j := r.Intn(n)
				if allowed(j) {
					for i := range j {
						if !allowed(i) {
							t.Errorf("t%d allowed, then t%d (added before it) denied", j, i)
							return
						}
					}
				}
				now := a.AuthorizeByResourceType(alice, authz.OpRead, authz.ResourceTopic)
				if byType && !now {
					t.Error("AuthorizeByResourceType went back from true to false")
					return
				}
				byType = now
			}
		}()
	}
	var f feed
	var all []record.Record
	for i := range n {
		rec := topicACL(i)
		all = append(all, rec)
		if i%16 == 15 {
			s := Snapshot{LastContainedOffset: f.next, LastContainedEpoch: f.epoch, LastContainedLogTime: f.time, Records: slices.Clone(all)}
			f.next++
			must(t, l.LoadSnapshot(s.Reader()))
		} else {
			must(t, l.HandleCommit(f.batch(rec)))
		}
		l.SetHighWatermark(f.next)
	}
	done.Store(true)
	wg.Wait()
	for i := range n {
		if !allowed(i) {
			t.Fatalf("after every update: t%d denied", i)
		}
	}
	if got := a.Len(); got != n {
		t.Fatalf("authorizer holds %d ACLs, want %d", got, n)
	}
}
