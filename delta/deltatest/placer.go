package deltatest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// usableBroker is one entry of BrokerHeartbeatManager.usableBrokers: a
// registered broker that is not shutting down, with its rack and whether the
// controller considers it fenced.
type usableBroker struct {
	id     int32
	rack   *string
	fenced bool
}

// errPlacement is wrapped by every placement failure (Kafka answers
// INVALID_REPLICATION_FACTOR).
var errPlacement = errors.New("invalid replication factor")

// brokerList is StripedReplicaPlacer.BrokerList.
type brokerList struct {
	brokers      []int32
	epoch, index int
	offset       int
}

func (l *brokerList) initialize(r *javaRandom) {
	if len(l.brokers) > 0 {
		slices.Sort(l.brokers)
		l.offset = int(r.nextInt(int32(len(l.brokers))))
	}
}

func (l *brokerList) next(epoch int) int32 {
	if len(l.brokers) == 0 {
		return -1
	}
	if l.epoch != epoch {
		l.epoch = epoch
		l.index = 0
		l.offset = (l.offset + 1) % len(l.brokers)
	}
	if l.index >= len(l.brokers) {
		return -1
	}
	b := l.brokers[(l.index+l.offset)%len(l.brokers)]
	l.index++
	return b
}

// rack is StripedReplicaPlacer.Rack.
type rack struct{ fenced, unfenced brokerList }

func (r *rack) next(epoch int) int32 {
	if b := r.unfenced.next(epoch); b >= 0 {
		return b
	}
	return r.fenced.next(epoch)
}

// rackList is StripedReplicaPlacer.RackList.
type rackList struct {
	rnd         *javaRandom
	racks       map[string]*rack
	rackOrder   []string // racks.values() order of Java's HashMap<Optional<String>, Rack>
	rackNames   []string
	numUnfenced int
	numTotal    int
	epoch       int
	offset      int
}

// rackKey maps an optional rack to a map key; "\x00none" cannot be a rack
// name Kafka accepts, so it stands for Optional.empty().
const noRack = "\x00none"

func rackKeyHash(k string) int32 {
	if k == noRack {
		return 0 // Optional.empty().hashCode()
	}
	return javaStringHash(k)
}

func newRackList(rnd *javaRandom, usable []usableBroker) *rackList {
	rl := &rackList{rnd: rnd, racks: map[string]*rack{}}
	var inserted []string
	for _, b := range usable {
		k := noRack
		if b.rack != nil {
			k = *b.rack
		}
		r, ok := rl.racks[k]
		if !ok {
			r = &rack{}
			rl.racks[k] = r
			rl.rackNames = append(rl.rackNames, k)
			inserted = append(inserted, k)
		}
		if b.fenced {
			r.fenced.brokers = append(r.fenced.brokers, b.id)
		} else {
			r.unfenced.brokers = append(r.unfenced.brokers, b.id)
			rl.numUnfenced++
		}
		rl.numTotal++
	}
	rl.rackOrder = hashOrder(inserted, rackKeyHash, 16)
	for _, k := range rl.rackOrder {
		r := rl.racks[k]
		r.fenced.initialize(rnd)
		r.unfenced.initialize(rnd)
	}
	// "No rack" sorts first, then String.compareTo order (UTF-16 code units;
	// rack names are ASCII in practice, where byte order is the same).
	slices.SortFunc(rl.rackNames, func(a, b string) int {
		switch {
		case a == noRack && b == noRack:
			return 0
		case a == noRack:
			return -1
		case b == noRack:
			return 1
		}
		return strings.Compare(a, b)
	})
	if len(rl.rackNames) > 0 {
		rl.offset = int(rnd.nextInt(int32(len(rl.rackNames))))
	}
	return rl
}

func (rl *rackList) place(rf int) ([]int32, error) {
	if rl.epoch == rl.numUnfenced && rl.numUnfenced > 1 {
		shuffle(rl.rackNames, rl.rnd)
		for _, k := range rl.rackOrder {
			r := rl.racks[k]
			shuffle(r.fenced.brokers, rl.rnd)
			shuffle(r.unfenced.brokers, rl.rnd)
		}
		rl.epoch = 0
	}
	if rl.offset == len(rl.rackNames) {
		rl.offset = 0
	}
	out := make([]int32, 0, rf)
	first := rl.offset
	for tries := 0; ; tries++ {
		if tries > len(rl.rackNames) {
			return nil, fmt.Errorf("%w: no unfenced broker left in this placement round", errPlacement)
		}
		if b := rl.racks[rl.rackNames[first]].unfenced.next(rl.epoch); b >= 0 {
			out = append(out, b)
			break
		}
		first = (first + 1) % len(rl.rackNames)
	}
	idx := rl.offset
	for len(out) < rf {
		var b int32 = -1
		for tries := 0; b < 0; tries++ {
			if tries > 2*len(rl.rackNames)+1 {
				return nil, fmt.Errorf("%w: brokers exhausted in this placement round", errPlacement)
			}
			if idx == first {
				first = -1
			} else {
				b = rl.racks[rl.rackNames[idx]].next(rl.epoch)
			}
			idx = (idx + 1) % len(rl.rackNames)
		}
		out = append(out, b)
	}
	rl.epoch++
	rl.offset++
	return out, nil
}

// placeReplicas is StripedReplicaPlacer.place for count partitions of
// replication factor rf.
func placeReplicas(rnd *javaRandom, usable []usableBroker, count, rf int) ([][]int32, error) {
	rl := newRackList(rnd, usable)
	if rf <= 0 {
		return nil, fmt.Errorf("%w: invalid replication factor %d: the replication factor must be positive", errPlacement, rf)
	}
	if rl.numUnfenced == 0 {
		return nil, fmt.Errorf("%w: all brokers are currently fenced", errPlacement)
	}
	if rf > rl.numTotal {
		return nil, fmt.Errorf("%w: the target replication factor of %d cannot be reached because only %d broker(s) are registered", errPlacement, rf, rl.numTotal)
	}
	out := make([][]int32, count)
	for i := range out {
		p, err := rl.place(rf)
		if err != nil {
			return nil, err
		}
		out[i] = p
	}
	return out, nil
}
