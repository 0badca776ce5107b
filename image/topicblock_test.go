package image

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"testing"
	"unsafe"

	"github.com/kmeta-go/kmeta/record"
)

// TestTopicBlockKnowsEveryPointerField: Topic and Partition hold pointers
// in exactly the fields newTopicBlock redirects into the block. A new
// pointer field (a string, a slice, a map, ...) would point out of a block
// the garbage collector does not scan, and must be laid out by
// newTopicBlock first.
func TestTopicBlockKnowsEveryPointerField(t *testing.T) {
	var got []string
	for _, typ := range []reflect.Type{reflect.TypeFor[topic](), reflect.TypeFor[PartitionRegistration]()} {
		for i := range typ.NumField() {
			if f := typ.Field(i); hasPointers(f.Type) {
				got = append(got, typ.Name()+"."+f.Name)
			}
		}
	}
	want := []string{"topic.name", "topic.parts", "PartitionRegistration.ids"}
	if !slices.Equal(got, want) {
		t.Fatalf("pointer fields %v, want %v: newTopicBlock must copy every pointer's target into the block", got, want)
	}
}

func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Array:
		return t.Len() > 0 && hasPointers(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
		return false
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return false
	}
	return true
}

// TestTopicBlockPointsOnlyIntoItself_seed1: topics of random shapes (empty,
// inline partitions, long replica lists, directories, ELR) frozen by a
// TopicBuilder hold the partitions they were given, and every pointer in
// the topic (its name, its partition array, each partition's id array)
// points into the topic's own block; partitions kept by a reader stay
// intact after the builder's memory and the topic are collected.
func TestTopicBlockPointsOnlyIntoItself_seed1(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 15))
	var kept []PartitionRegistration
	var want []PartitionRegistration
	for n := 0; n < 200; n++ {
		name := fmt.Sprintf("topic-%d-%s", n, string(make([]byte, r.IntN(40))))
		b := NewTopicBuilder(name, record.UUID{byte(n), 7})
		if r.IntN(2) == 0 {
			b.Grow(r.IntN(40))
		}
		var parts []PartitionRegistration
		inline := r.IntN(2) == 0 // topics whose partitions stay in the builder's block
		for id := range int32(r.IntN(30)) {
			p := randomPartition(t, r, id)
			for inline && p.ids != nil {
				p = randomPartition(t, r, id)
			}
			parts = append(parts, p)
			b.Put(p)
		}
		tp := b.Topic().t
		lo := uintptr(unsafe.Pointer(tp))
		hi := lo + blockSize(tp)
		inside := func(what string, p unsafe.Pointer) {
			if a := uintptr(p); a < lo || a >= hi {
				t.Fatalf("topic %d: %s at %#x is outside its block [%#x, %#x)", n, what, a, lo, hi)
			}
		}
		if tp.name != name || tp.id != (record.UUID{byte(n), 7}) || len(tp.parts) != len(parts) {
			t.Fatalf("topic %d: %q %s %d partitions, want %q, %d", n, tp.name, tp.id, len(tp.parts), name, len(parts))
		}
		if len(name) > 0 {
			inside("name", unsafe.Pointer(unsafe.StringData(tp.name)))
		}
		if len(tp.parts) > 0 {
			inside("partitions", unsafe.Pointer(&tp.parts[0]))
		}
		for i := range tp.parts {
			p := &tp.parts[i]
			if !p.Equal(&parts[i]) {
				t.Fatalf("topic %d partition %d: %v, want %v", n, i, p, &parts[i])
			}
			if p.ids != nil {
				inside(fmt.Sprintf("partition %d's ids", i), unsafe.Pointer(&p.ids[0]))
			}
		}
		if len(tp.parts) > 0 {
			kept = append(kept, tp.parts[len(tp.parts)-1])
			want = append(want, parts[len(parts)-1])
		}
	}
	runtime.GC()
	runtime.GC()
	for i := range kept {
		if !kept[i].Equal(&want[i]) {
			t.Fatalf("kept partition %d after collection: %v, want %v", i, &kept[i], &want[i])
		}
	}
}

// blockSize is the largest size tp's block may have: a TopicBuilder keeps
// the block it filled when at most an eighth of its room is spare.
func blockSize(tp *topic) uintptr {
	pool := 0
	for i := range tp.parts {
		pool += len(tp.parts[i].ids)
	}
	room := len(tp.parts) + len(tp.parts)/8
	return topicSize + uintptr(room)*partitionSize + uintptr(pool)*4 + uintptr(len(tp.name))
}

// randomPartition makes a partition with lists of random lengths (some
// inline, some not), directories half the time.
func randomPartition(t *testing.T, r *rand.Rand, id int32) PartitionRegistration {
	rec := record.NewPartitionRecord()
	rec.PartitionID = id
	list := func(n int) []int32 {
		l := make([]int32, n)
		for i := range l {
			l[i] = r.Int32N(100)
		}
		return l
	}
	rf := 1 + r.IntN(6)
	rec.Replicas, rec.ISR = list(rf), list(r.IntN(rf+1))
	rec.RemovingReplicas, rec.AddingReplicas = list(r.IntN(2)), list(r.IntN(2))
	if r.IntN(4) == 0 {
		rec.EligibleLeaderReplicas, rec.LastKnownELR = list(r.IntN(3)), list(r.IntN(2))
	}
	if r.IntN(2) == 0 {
		rec.Directories = make([]record.UUID, rf)
		for i := range rec.Directories {
			rec.Directories[i] = record.UUID{byte(r.Uint32()), byte(i), 1}
		}
	}
	rec.Leader, rec.LeaderEpoch, rec.PartitionEpoch = rec.Replicas[0], r.Int32N(9), r.Int32N(9)
	p, err := NewPartition(rec)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
