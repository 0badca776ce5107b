package clientview

import (
	"fmt"

	"github.com/kmeta-go/kmeta/internal/invariants"
	"github.com/kmeta-go/kmeta/record"
)

// checkedView returns v after checking it under the invariants build tag
// (package internal/invariants); it panics on a view whose indexes
// disagree, which only a bug in kmeta can build.
func checkedView(v *View) *View {
	if invariants.Enabled {
		if err := viewInvariants(v); err != nil {
			panic(fmt.Sprintf("kmeta invariants: view after %d updates: %v", v.Updates(), err))
		}
	}
	return v
}

// viewInvariants checks what every view holds whatever answers built it:
// brokers ascend by node id; the name and id maps agree; partitions sit at
// the index of their id; the refresh counts are right; the order hint names
// slots of the table; no leader epoch is above the highest epoch seen.
func viewInvariants(v *View) error {
	bs := v.brokers
	for i := 1; i < len(bs); i++ {
		if bs[i].nodeID <= bs[i-1].nodeID {
			return fmt.Errorf("broker %d listed after broker %d", bs[i].nodeID, bs[i-1].nodeID)
		}
	}
	refreshing, n := 0, 0
	for tp := range v.tab.all() {
		name := tp.name
		n++
		if got := v.tab.get(name); got != tp {
			return fmt.Errorf("topic %q not found under its name", name)
		}
		if tp.id != record.ZeroUUID && v.ids[tp.id] != name {
			return fmt.Errorf("id of %q maps to %q", name, v.ids[tp.id])
		}
		if tp.NeedsRefresh() {
			refreshing++
		}
		pending := 0
		for i := range tp.parts {
			p := &tp.parts[i]
			if p.id != int32(i) {
				return fmt.Errorf("%s: partition %d at index %d", name, p.id, i)
			}
			if p.flags&NeedsRefresh != 0 {
				pending++
			}
			if (p.lists == nil) != (int(p.nRep)+int(p.nISR)+int(p.nOff) == 0) {
				return fmt.Errorf("%s/%d: lists %p for %d + %d + %d", name, i, p.lists, p.nRep, p.nISR, p.nOff)
			}
			if p.leaderEpoch > p.seenEpoch {
				return fmt.Errorf("%s/%d: leader epoch %d above the highest seen, %d", name, i, p.leaderEpoch, p.seenEpoch)
			}
		}
		if pending != tp.pending {
			return fmt.Errorf("%s: pending %d, counted %d", name, tp.pending, pending)
		}
	}
	if refreshing != v.refreshing {
		return fmt.Errorf("refreshing %d, counted %d", v.refreshing, refreshing)
	}
	if n != v.tab.n {
		return fmt.Errorf("table counts %d topics, holds %d", v.tab.n, n)
	}
	for id, name := range v.ids {
		if tp := v.tab.get(name); tp == nil || tp.id != id {
			return fmt.Errorf("id %x maps to %q, which does not have it", id, name)
		}
	}
	for i, s := range v.order {
		if s < -1 || int(s) >= v.tab.slots() {
			return fmt.Errorf("order hint %d: slot %d out of [-1, %d)", i, s, v.tab.slots())
		}
	}
	return nil
}
