package authz

import (
	"errors"
	"sync"

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
// ACLs. It is safe for concurrent use: readers share a read lock, and each
// change holds the write lock for one ACL, so no reader sees a change half
// made, and a DENY applied before an ALLOW is never served after it.
type Incremental struct {
	mu    sync.RWMutex
	cfg   Config
	s     *Standard
	acls  map[record.UUID]image.ACL
	ready bool
}

// NewIncremental returns an Incremental with no ACL, not ready.
func NewIncremental(cfg Config) *Incremental {
	return &Incremental{cfg: cfg, s: New(nil, cfg), acls: map[record.UUID]image.ACL{}}
}

// LoadSnapshot replaces every ACL with those of acls (a snapshot load:
// AclPublisher calls loadSnapshot with the new image's ACLs).
func (a *Incremental) LoadSnapshot(acls *image.ACLs) {
	s := New(acls, a.cfg)
	m := make(map[record.UUID]image.ACL, acls.Len())
	for acl := range acls.All() {
		m[acl.ID] = acl
	}
	a.mu.Lock()
	a.s, a.acls = s, m
	a.mu.Unlock()
}

// Add adds acl under its id, replacing the ACL the id held.
func (a *Incremental) Add(acl image.ACL) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if old, ok := a.acls[acl.ID]; ok {
		a.s.remove(old)
	}
	a.acls[acl.ID] = acl
	a.s.add(acl)
}

// Remove removes the ACL with id; an unknown id is ignored.
func (a *Incremental) Remove(id record.UUID) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if old, ok := a.acls[id]; ok {
		delete(a.acls, id)
		a.s.remove(old)
	}
}

// SetMetadataVersion changes the metadata.version whose rules the
// decisions follow (Config.MetadataVersion: CIDR hosts from 4.4-IV1).
func (a *Incremental) SetMetadataVersion(mv image.MetadataVersion) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.cfg.MetadataVersion = mv
	a.s.cidr = mv.CidrACLSupported()
}

// CompleteInitialLoad makes the authorizer ready
// (ClusterMetadataAuthorizer.completeInitialLoad).
func (a *Incremental) CompleteInitialLoad() {
	a.mu.Lock()
	a.ready = true
	a.mu.Unlock()
}

// Ready reports whether CompleteInitialLoad was called.
func (a *Incremental) Ready() bool {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return a.ready
}

// Len returns the number of ACLs held.
func (a *Incremental) Len() int {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return len(a.acls)
}

// Check decides as Authorize does, and returns ErrNotReady for a principal
// that is not a super user before the initial load completes.
func (a *Incremental) Check(ctx Context, op Operation, rt ResourceType, name string) (bool, error) {
	req := newRequest(ctx, op)
	a.mu.RLock()
	defer a.mu.RUnlock()
	if _, super := a.s.superUsers[req.ctx.Principal]; !super && !a.ready {
		return false, ErrNotReady
	}
	return a.s.authorize(&req, rt, javaString(name)), nil
}

// Authorize is Check as an Authorizer: not ready, it denies every
// principal that is not a super user.
func (a *Incremental) Authorize(ctx Context, op Operation, rt ResourceType, name string) bool {
	ok, _ := a.Check(ctx, op, rt, name)
	return ok
}
