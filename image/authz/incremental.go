package authz

import (
	"errors"
	"sync"
	"sync/atomic"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

// ErrNotReady is what Incremental.Check returns for a principal that is
// not a super user before CompleteInitialLoad (Kafka's
// AuthorizerNotReadyException, thrown by StandardAuthorizerData.authorize
// until the initial load completes).
var ErrNotReady = errors.New("authorizer not ready: the initial ACL load has not completed")

// Incremental is Kafka's StandardAuthorizer as AclPublisher keeps it: built
// once from a snapshot's ACLs (LoadSnapshot, ClusterMetadataAuthorizer
// .loadSnapshot), then changed ACL by ACL in replay order (Add and Remove,
// addAcl and removeAcl), and not ready for principals other than super users
// until CompleteInitialLoad. Decisions equal those of New over the same
// ACLs.
//
// It is safe for concurrent use, and readers take no lock: each change
// builds a new index that shares all but the path to the changed ACL's name
// with the previous one (copy-on-write, as Kafka's StandardAuthorizerData
// copies its persistent AclCache) and publishes it atomically, so no reader
// sees a change half made, and a DENY applied before an ALLOW is never
// served after it.
type Incremental struct {
	mu    sync.Mutex // writers
	cfg   Config
	acls  map[record.UUID]image.ACL
	cur   atomic.Pointer[Standard]
	ready atomic.Bool
}

// NewIncremental returns an Incremental with no ACL, not ready.
func NewIncremental(cfg Config) *Incremental {
	a := &Incremental{cfg: cfg, acls: map[record.UUID]image.ACL{}}
	a.cur.Store(New(nil, cfg))
	return a
}

// LoadSnapshot replaces every ACL with those of acls (a snapshot load:
// AclPublisher calls loadSnapshot with the new image's ACLs).
func (a *Incremental) LoadSnapshot(acls *image.ACLs) {
	a.mu.Lock()
	defer a.mu.Unlock()
	m := make(map[record.UUID]image.ACL, acls.Len())
	for acl := range acls.All() {
		m[acl.ID] = acl
	}
	a.acls = m
	a.cur.Store(New(acls, a.cfg))
}

// Add adds acl under its id, replacing the ACL the id held, in one step.
func (a *Incremental) Add(acl image.ACL) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.cur.Load()
	if old, ok := a.acls[acl.ID]; ok {
		rt, e, _ := compile(old)
		s = s.cloneFor(rt, e)
		s.remove(old)
	}
	rt, e, _ := compile(acl)
	s = s.cloneFor(rt, e)
	s.add(acl)
	a.acls[acl.ID] = acl
	a.cur.Store(s)
}

// Remove removes the ACL with id; an unknown id is ignored.
func (a *Incremental) Remove(id record.UUID) {
	a.mu.Lock()
	defer a.mu.Unlock()
	old, ok := a.acls[id]
	if !ok {
		return
	}
	delete(a.acls, id)
	rt, e, _ := compile(old)
	s := a.cur.Load().cloneFor(rt, e)
	s.remove(old)
	a.cur.Store(s)
}

// SetMetadataVersion changes the metadata.version whose rules the
// decisions follow (Config.MetadataVersion: CIDR hosts from 4.4-IV1).
func (a *Incremental) SetMetadataVersion(mv image.MetadataVersion) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.cfg.MetadataVersion = mv
	c := *a.cur.Load()
	c.cidr = mv.CidrACLSupported()
	a.cur.Store(&c)
}

// CompleteInitialLoad makes the authorizer ready
// (ClusterMetadataAuthorizer.completeInitialLoad).
func (a *Incremental) CompleteInitialLoad() { a.ready.Store(true) }

// Ready reports whether CompleteInitialLoad was called.
func (a *Incremental) Ready() bool { return a.ready.Load() }

// Len returns the number of ACLs held.
func (a *Incremental) Len() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.acls)
}

// Check decides as Authorize does, and returns ErrNotReady for a principal
// that is not a super user before the initial load completes.
func (a *Incremental) Check(ctx Context, op Operation, rt ResourceType, name string) (bool, error) {
	req := newRequest(ctx, op)
	s := a.cur.Load()
	if !a.ready.Load() {
		if _, super := s.superUsers[req.ctx.Principal]; !super {
			return false, ErrNotReady
		}
	}
	return s.authorize(&req, rt, javaString(name)), nil
}

// Authorize is Check as an Authorizer: not ready, it denies every
// principal that is not a super user.
func (a *Incremental) Authorize(ctx Context, op Operation, rt ResourceType, name string) bool {
	ok, _ := a.Check(ctx, op, rt, name)
	return ok
}

// AuthorizeByResourceType is Standard.AuthorizeByResourceType over the
// current ACLs (Authorizer.authorizeByResourceType, which asks authorize
// first): not ready, it denies every principal that is not a super user.
func (a *Incremental) AuthorizeByResourceType(ctx Context, op Operation, rt ResourceType) bool {
	s := a.cur.Load()
	if !a.ready.Load() {
		req := newRequest(ctx, op)
		if _, super := s.superUsers[req.ctx.Principal]; !super {
			return false
		}
	}
	return s.AuthorizeByResourceType(ctx, op, rt)
}
