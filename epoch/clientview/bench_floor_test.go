package clientview

import (
	"runtime"
	"testing"
	"unsafe"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/internal/benchtest"
)

// The floor under BenchmarkMergeIdentical, measured on this machine: what
// any merge of a 5 000 × 10 answer into a view must at least do — read
// every field of the answer an identical merge compares (each topic's
// name, and each partition's index, leader, epoch, error and three lists)
// and the view's copy of each — without any of Merge's other work (the
// hint and rewind rules, the report, the table). BenchmarkMergeIdentical
// over BenchmarkMergeReadFloor is what Merge adds; the floor against the
// machine's memory bandwidth (BenchmarkMemoryStream, the bytes the floor
// touches reported as answer-B and view-B) says how far memory alone is
// from the 1 ms goal.

// readFloor reads every field an identical merge of r into v compares, in
// the order Merge reads them (v's order hints, then each partition and its
// lists), and sums them: memory traffic with as little compute as Go
// allows, to set against Merge's.
func readFloor(v *View, r *kmsg.MetadataResponse) uint64 {
	var sum uint64
	for i := range r.Topics {
		rt := &r.Topics[i]
		t := v.tab.at(v.order[i])
		sum += uint64(len(*rt.Topic)) + uint64(len(t.name)) + uint64(uint16(rt.ErrorCode)) + uint64(uint16(t.errorCode))
		parts := t.parts[:len(rt.Partitions)]
		for j := range rt.Partitions {
			rp, p := &rt.Partitions[j], &parts[j]
			sum += uint64(uint32(rp.Partition^p.id)) + uint64(uint32(rp.Leader^p.leader)) +
				uint64(uint32(rp.LeaderEpoch^p.leaderEpoch)) + uint64(uint16(rp.ErrorCode^p.errorCode))
			for _, id := range rp.Replicas {
				sum += uint64(uint32(id))
			}
			for _, id := range rp.ISR {
				sum += uint64(uint32(id))
			}
			for _, id := range rp.OfflineReplicas {
				sum += uint64(uint32(id))
			}
			for _, id := range p.allLists() {
				sum += uint64(uint32(id))
			}
		}
	}
	return sum
}

// BenchmarkMergeReadFloor: readFloor over the answer and view of
// BenchmarkMergeIdentical.
func BenchmarkMergeReadFloor(b *testing.B) {
	r := bigAnswer(5000, 10, 0)
	v, _ := NewView(ViewConfig{}).Merge(r, MergeOptions{})
	want := readFloor(v, r)
	b.ReportAllocs()
	runtime.GC()
	cpu := benchtest.ProcessCPU()
	for b.Loop() {
		if readFloor(v, r) != want {
			b.Fatal("the answer or the view changed")
		}
	}
	benchtest.ReportCPU(b, cpu)
	b.ReportMetric(float64(answerBytes(r)), "answer-B")
	b.ReportMetric(float64(viewBytes(v)), "view-B")
}

// answerBytes is the memory the floor reads of the answer: its topic and
// partition structs and the lists' arrays.
func answerBytes(r *kmsg.MetadataResponse) int {
	n := len(r.Topics) * int(unsafe.Sizeof(kmsg.MetadataResponseTopic{}))
	for i := range r.Topics {
		ps := r.Topics[i].Partitions
		n += len(ps) * int(unsafe.Sizeof(kmsg.MetadataResponseTopicPartition{}))
		for j := range ps {
			n += 4 * (len(ps[j].Replicas) + len(ps[j].ISR) + len(ps[j].OfflineReplicas))
		}
	}
	return n
}

// viewBytes is the memory the floor reads of the view: its topics, their
// partitions and the partitions' lists.
func viewBytes(v *View) int {
	n := 0
	for t := range v.tab.all() {
		n += int(unsafe.Sizeof(Topic{})) + len(t.parts)*int(unsafe.Sizeof(Partition{}))
		for i := range t.parts {
			p := &t.parts[i]
			n += 4 * (int(p.nRep) + int(p.nISR) + int(p.nOff))
		}
	}
	return n
}

// BenchmarkMemoryStream: this machine's read bandwidth from memory, one
// pass over a 64 MiB array (well past the caches) summing 8-byte words, as
// bytes per second (MB/s) — the rate no pass over a merge's answer and view
// can beat.
func BenchmarkMemoryStream(b *testing.B) {
	buf := make([]uint64, 64<<20/8)
	for i := range buf {
		buf[i] = uint64(i)
	}
	b.SetBytes(int64(len(buf) * 8))
	b.ReportAllocs()
	var sum uint64
	for b.Loop() {
		var s0, s1, s2, s3 uint64
		for i := 0; i+3 < len(buf); i += 4 {
			s0 += buf[i]
			s1 += buf[i+1]
			s2 += buf[i+2]
			s3 += buf[i+3]
		}
		sum += s0 + s1 + s2 + s3
	}
	if sum == 1 {
		b.Log(sum)
	}
}
