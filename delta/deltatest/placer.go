package deltatest

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/kmeta-go/kmeta/record"
)

// errPlacement is wrapped by every placement failure (Kafka answers
// INVALID_REPLICATION_FACTOR).
var errPlacement = errors.New("invalid replication factor")

// brokerCache is what every placement reads of the brokers
// (BrokerHeartbeatManager.usableBrokers grouped as RackList's constructor
// groups them), kept until a broker record changes it.
type brokerCache struct {
	rackKeys    []string  // racks in the order RackList first meets them
	rackOrder   []int     // racks.values() order (Java HashMap<Optional<String>>)
	rackSorted  []int     // rackNames after the constructor's sort
	fenced      [][]int32 // per rack, ascending
	unfenced    [][]int32
	numUnfenced int
	numTotal    int
	defaultDirs map[int32]record.UUID
	// active[id] is isActive(id) for ids below len(active) (dense ids are
	// the common case; others fall back to the broker map).
	active []bool
}

// noRack stands for Optional.empty(): it cannot be a rack name Kafka accepts.
const noRack = "\x00none"

func rackKeyHash(k string) int32 {
	if k == noRack {
		return 0 // Optional.empty().hashCode()
	}
	return javaStringHash(k)
}

func (s *Simulator) brokerCache() *brokerCache {
	if s.bc != nil {
		return s.bc
	}
	c := &brokerCache{defaultDirs: make(map[int32]record.UUID, len(s.brokers))}
	index := map[string]int{}
	// BrokerHeartbeatManager.usableBrokers iterates a HashMap<Integer>:
	// registered brokers not shutting down and, from Kafka 4.3, with a log
	// directory that is not cordoned (BrokerRegistration.hasUncordonedDirs,
	// KIP-1066).
	for _, id := range hashOrder(s.brokerIDs(), intHash, 16) {
		b := s.brokers[id]
		c.defaultDirs[id] = s.computeDefaultDir(id)
		if id >= 0 && id < 4096 {
			if int(id) >= len(c.active) {
				c.active = append(c.active, make([]bool, int(id)+1-len(c.active))...)
			}
			c.active[id] = s.computeActive(id)
		}
		if b.reg.InControlledShutdown() || !b.reg.HasUncordonedDirs() {
			continue
		}
		k := noRack
		if r, ok := b.reg.Rack(); ok {
			k = r
		}
		i, ok := index[k]
		if !ok {
			i = len(c.rackKeys)
			index[k] = i
			c.rackKeys = append(c.rackKeys, k)
			c.fenced = append(c.fenced, nil)
			c.unfenced = append(c.unfenced, nil)
		}
		if b.reg.Fenced() {
			c.fenced[i] = append(c.fenced[i], id)
		} else {
			c.unfenced[i] = append(c.unfenced[i], id)
			c.numUnfenced++
		}
		c.numTotal++
	}
	for i := range c.rackKeys {
		slices.Sort(c.fenced[i])
		slices.Sort(c.unfenced[i])
		c.rackOrder = append(c.rackOrder, i)
		c.rackSorted = append(c.rackSorted, i)
	}
	c.rackOrder = hashOrder(c.rackOrder, func(i int) int32 { return rackKeyHash(c.rackKeys[i]) }, 16)
	// "No rack" first, then String.compareTo order (UTF-16 code units; rack
	// names are ASCII in practice, where byte order is the same).
	slices.SortFunc(c.rackSorted, func(a, b int) int {
		ka, kb := c.rackKeys[a], c.rackKeys[b]
		switch {
		case ka == noRack && kb == noRack:
			return 0
		case ka == noRack:
			return -1
		case kb == noRack:
			return 1
		}
		return strings.Compare(ka, kb)
	})
	s.bc = c
	return c
}

// brokerList is StripedReplicaPlacer.BrokerList.
type brokerList struct {
	brokers      []int32
	epoch, index int
	offset       int
}

func (l *brokerList) initialize(r *javaRandom) {
	if len(l.brokers) > 0 {
		// already sorted by the cache
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

// rackList is StripedReplicaPlacer.RackList, racks named by index.
type rackList struct {
	rnd         *javaRandom
	racks       []rack
	rackOrder   []int
	rackNames   []int
	numUnfenced int
	numTotal    int
	epoch       int
	offset      int
}

// newRackList is the RackList constructor: fresh copies of the cached
// lists, then the random draws of the RackList constructor.
func newRackList(rnd *javaRandom, c *brokerCache) *rackList {
	rl := &rackList{rnd: rnd, rackOrder: c.rackOrder, numUnfenced: c.numUnfenced, numTotal: c.numTotal}
	rl.racks = make([]rack, len(c.rackKeys))
	backing := make([]int32, 0, c.numTotal)
	for i := range rl.racks {
		n := len(backing)
		backing = append(backing, c.fenced[i]...)
		rl.racks[i].fenced.brokers = backing[n:len(backing):len(backing)]
		n = len(backing)
		backing = append(backing, c.unfenced[i]...)
		rl.racks[i].unfenced.brokers = backing[n:len(backing):len(backing)]
	}
	rl.rackNames = slices.Clone(c.rackSorted)
	for _, i := range rl.rackOrder {
		rl.racks[i].fenced.initialize(rnd)
		rl.racks[i].unfenced.initialize(rnd)
	}
	if len(rl.rackNames) > 0 {
		rl.offset = int(rnd.nextInt(int32(len(rl.rackNames))))
	}
	return rl
}

func (rl *rackList) place(out []int32) error {
	rf := cap(out)
	if rl.epoch == rl.numUnfenced && rl.numUnfenced > 1 {
		shuffle(rl.rackNames, rl.rnd)
		for _, i := range rl.rackOrder {
			shuffle(rl.racks[i].fenced.brokers, rl.rnd)
			shuffle(rl.racks[i].unfenced.brokers, rl.rnd)
		}
		rl.epoch = 0
	}
	if rl.offset == len(rl.rackNames) {
		rl.offset = 0
	}
	first := rl.offset
	for tries := 0; ; tries++ {
		if tries > len(rl.rackNames) {
			return fmt.Errorf("%w: no unfenced broker left in this placement round", errPlacement)
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
				return fmt.Errorf("%w: brokers exhausted in this placement round", errPlacement)
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
	return nil
}

// placeReplicas is StripedReplicaPlacer.place for count partitions of
// replication factor rf.
func placeReplicas(rnd *javaRandom, c *brokerCache, count, rf int) ([][]int32, error) {
	rl := newRackList(rnd, c)
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
	backing := make([]int32, count*rf)
	for i := range out {
		p := backing[i*rf : i*rf : (i+1)*rf]
		if err := rl.place(p); err != nil {
			return nil, err
		}
		out[i] = p[:rf]
	}
	return out, nil
}
