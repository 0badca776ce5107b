package delta

import (
	"slices"
	"testing"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

func aclRecord(id byte, principal string) *record.AccessControlEntryRecord {
	r := record.NewAccessControlEntryRecord()
	r.ID, r.ResourceType, r.ResourceName, r.PatternType = record.UUID{id}, 2, "t", 3
	r.Principal, r.Host, r.Operation, r.PermissionType = principal, "*", 3, 3
	return r
}

func removeACLRecord(id byte) *record.RemoveAccessControlEntryRecord {
	r := record.NewRemoveAccessControlEntryRecord()
	r.ID = record.UUID{id}
	return r
}

// TestACLChangesInReplayOrder: Delta.ACLs lists the changes in the order of
// AclsDelta.changes, a LinkedHashMap: an id keeps the position of its first
// replay when replayed again, an ACL added and removed within the delta
// leaves no change and goes to the end when added once more, a removal of a
// base ACL keeps its place when the ACL is added back, and an ACL replayed
// with the base image's content is no change. Snapshot removals come last.
func TestACLChangesInReplayOrder(t *testing.T) {
	base := New(nil)
	for _, r := range []record.Record{aclRecord(1, "User:a"), aclRecord(2, "User:a")} {
		if err := base.Replay(r); err != nil {
			t.Fatal(err)
		}
	}
	img, err := base.Apply(image.EmptyProvenance)
	if err != nil {
		t.Fatal(err)
	}
	d := New(img)
	for _, r := range []record.Record{
		aclRecord(3, "User:b"), // added
		removeACLRecord(1),     // base ACL removed
		aclRecord(4, "User:b"), // added, then removed: no change...
		aclRecord(3, "User:c"), // replayed again: keeps its place
		removeACLRecord(4),
		aclRecord(1, "User:d"), // the removed base ACL back, changed: keeps its place
		aclRecord(4, "User:e"), // ...and added again: last
		aclRecord(2, "User:a"), // the base ACL as it is: no change
	} {
		if err := d.Replay(r); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, c := range d.ACLs() {
		got = append(got, c.ID.String()[:2]+" "+c.ACL.Principal)
	}
	want := []string{record.UUID{3}.String()[:2] + " User:c", record.UUID{1}.String()[:2] + " User:d", record.UUID{4}.String()[:2] + " User:e"}
	if !slices.Equal(got, want) {
		t.Fatalf("ACL changes %q, want %q", got, want)
	}
	if err := d.Replay(removeACLRecord(9)); err == nil {
		t.Fatal("removing an unknown ACL was accepted")
	}
	if got2 := len(d.ACLs()); got2 != 3 {
		t.Fatalf("a rejected record changed the ACL changes: %d", got2)
	}

	s := NewSnapshot(img)
	if err := s.Replay(aclRecord(5, "User:f")); err != nil {
		t.Fatal(err)
	}
	s.FinishSnapshot()
	ch := s.ACLs()
	if len(ch) != 3 || ch[0].ID != (record.UUID{5}) || !ch[1].Removed || !ch[2].Removed || ch[1].ID != (record.UUID{1}) {
		t.Fatalf("snapshot ACL changes %+v", ch)
	}
}
