package authz

import (
	"errors"
	"math/rand/v2"
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
// ACLs. It is safe for concurrent use: a reader holds one of several read
// locks (picked at random, so that readers on different cores seldom share
// one), and each change holds all of them for one ACL, so no reader sees a
// change half made, and a DENY applied before an ALLOW is never served
// after it.
type Incremental struct {
	locks [lockShards]paddedLock
	cfg   Config
	s     *Standard
	acls  map[record.UUID]image.ACL
	ready bool
}

// lockShards is the number of read locks; a power of two.
const lockShards = 8

// paddedLock is a read-write lock alone on its cache line.
type paddedLock struct {
	sync.RWMutex
	_ [64 - 24]byte
}

func (a *Incremental) lock() {
	for i := range a.locks {
		a.locks[i].Lock()
	}
}

func (a *Incremental) unlock() {
	for i := range a.locks {
		a.locks[i].Unlock()
	}
}

// rlock takes one read lock and returns it for the reader to release.
func (a *Incremental) rlock() *paddedLock {
	l := &a.locks[rand.Uint32()&(lockShards-1)]
	l.RLock()
	return l
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
	a.lock()
	a.s, a.acls = s, m
	a.unlock()
}

// Add adds acl under its id, replacing the ACL the id held.
func (a *Incremental) Add(acl image.ACL) {
	a.lock()
	defer a.unlock()
	if old, ok := a.acls[acl.ID]; ok {
		a.s.remove(old)
	}
	a.acls[acl.ID] = acl
	a.s.add(acl)
}

// Remove removes the ACL with id; an unknown id is ignored.
func (a *Incremental) Remove(id record.UUID) {
	a.lock()
	defer a.unlock()
	if old, ok := a.acls[id]; ok {
		delete(a.acls, id)
		a.s.remove(old)
	}
}

// SetMetadataVersion changes the metadata.version whose rules the
// decisions follow (Config.MetadataVersion: CIDR hosts from 4.4-IV1).
func (a *Incremental) SetMetadataVersion(mv image.MetadataVersion) {
	a.lock()
	defer a.unlock()
	a.cfg.MetadataVersion = mv
	a.s.cidr = mv.CidrACLSupported()
}

// CompleteInitialLoad makes the authorizer ready
// (ClusterMetadataAuthorizer.completeInitialLoad).
func (a *Incremental) CompleteInitialLoad() {
	a.lock()
	a.ready = true
	a.unlock()
}

// Ready reports whether CompleteInitialLoad was called.
func (a *Incremental) Ready() bool {
	defer a.rlock().RUnlock()
	return a.ready
}

// Len returns the number of ACLs held.
func (a *Incremental) Len() int {
	defer a.rlock().RUnlock()
	return len(a.acls)
}

// Check decides as Authorize does, and returns ErrNotReady for a principal
// that is not a super user before the initial load completes.
func (a *Incremental) Check(ctx Context, op Operation, rt ResourceType, name string) (bool, error) {
	req := newRequest(ctx, op)
	name = javaString(name)
	l := a.rlock()
	if !a.ready {
		if _, super := a.s.superUsers[req.ctx.Principal]; !super {
			l.RUnlock()
			return false, ErrNotReady
		}
	}
	ok := a.s.authorize(&req, rt, name)
	l.RUnlock()
	return ok, nil
}

// Authorize is Check as an Authorizer: not ready, it denies every
// principal that is not a super user.
func (a *Incremental) Authorize(ctx Context, op Operation, rt ResourceType, name string) bool {
	ok, _ := a.Check(ctx, op, rt, name)
	return ok
}
