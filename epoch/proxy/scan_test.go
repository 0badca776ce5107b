package proxy

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func randProduce(r *rand.Rand, v int16) (*kmsg.ProduceResponse, Summary) {
	var want Summary
	resp := kmsg.NewPtrProduceResponse()
	resp.Version = v
	for range r.IntN(3) {
		t := kmsg.NewProduceResponseTopic()
		t.Topic = fmt.Sprint("t", r.IntN(100))
		t.TopicID = [16]byte{byte(r.IntN(256))}
		for range r.IntN(4) {
			p := kmsg.NewProduceResponseTopicPartition()
			p.Partition = r.Int32N(10)
			if r.IntN(3) == 0 {
				p.ErrorCode = 6
				want.Errors++
				p.CurrentLeader.LeaderID, p.CurrentLeader.LeaderEpoch = 1, 4
			}
			p.BaseOffset = r.Int64()
			for range r.IntN(2) {
				er := kmsg.NewProduceResponseTopicPartitionErrorRecord()
				er.RelativeOffset = 3
				er.ErrorMessage = strp("bad record")
				p.ErrorRecords = append(p.ErrorRecords, er)
			}
			if r.IntN(2) == 0 {
				p.ErrorMessage = strp("why")
			}
			t.Partitions = append(t.Partitions, p)
		}
		resp.Topics = append(resp.Topics, t)
	}
	if v >= 10 && r.IntN(2) == 0 {
		b := kmsg.NewProduceResponseBroker()
		b.NodeID, b.Host, b.Port = 1, "h", 1
		resp.Brokers = append(resp.Brokers, b)
		want.NodeEndpoints = true
	}
	return resp, want
}

func randFetch(r *rand.Rand, v int16) (*kmsg.FetchResponse, Summary) {
	var want Summary
	resp := kmsg.NewPtrFetchResponse()
	resp.Version = v
	if v >= 7 && r.IntN(5) == 0 {
		resp.ErrorCode = 71
		want.Errors++
	}
	for range r.IntN(3) {
		t := kmsg.NewFetchResponseTopic()
		t.Topic = fmt.Sprint("t", r.IntN(100))
		t.TopicID = [16]byte{byte(r.IntN(256))}
		for range r.IntN(4) {
			p := kmsg.NewFetchResponseTopicPartition()
			p.Partition = r.Int32N(10)
			if r.IntN(3) == 0 {
				p.ErrorCode = 6
				want.Errors++
				p.CurrentLeader.LeaderID, p.CurrentLeader.LeaderEpoch = 2, 5
				p.DivergingEpoch.Epoch = 3
			}
			p.HighWatermark = r.Int64()
			for range r.IntN(2) {
				at := kmsg.NewFetchResponseTopicPartitionAbortedTransaction()
				at.ProducerID = 7
				p.AbortedTransactions = append(p.AbortedTransactions, at)
			}
			if r.IntN(2) == 0 {
				p.RecordBatches = make([]byte, r.IntN(300))
			}
			t.Partitions = append(t.Partitions, p)
		}
		resp.Topics = append(resp.Topics, t)
	}
	if v >= 16 && r.IntN(2) == 0 {
		b := kmsg.NewFetchResponseBroker()
		b.NodeID, b.Host, b.Port = 2, "h", 1
		resp.Brokers = append(resp.Brokers, b)
		want.NodeEndpoints = true
	}
	return resp, want
}

// TestScanMatchesKmsgSeed1 builds random Produce and Fetch answers at every
// version kmsg knows, and checks the scanners' summaries against what was
// built, every strict prefix is refused as truncated, and trailing bytes are
// refused. Seed 1 (in the name) reproduces it.
func TestScanMatchesKmsgSeed1(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for v := int16(0); v <= kmsg.NewPtrProduceRequest().MaxVersion(); v++ {
		for range 40 {
			resp, want := randProduce(r, v)
			wire := resp.AppendTo(nil)
			got, err := ScanProduce(v, wire)
			require.NoError(t, err, "produce v%d", v)
			require.Equal(t, want, got, "produce v%d", v)
			for n := range len(wire) {
				_, err := ScanProduce(v, wire[:n])
				require.Error(t, err, "produce v%d prefix %d of %d", v, n, len(wire))
			}
			_, err = ScanProduce(v, append(wire, 0))
			require.Error(t, err)
		}
	}
	for v := int16(0); v <= kmsg.NewPtrFetchRequest().MaxVersion(); v++ {
		for range 40 {
			resp, want := randFetch(r, v)
			wire := resp.AppendTo(nil)
			got, err := ScanFetch(v, wire)
			require.NoError(t, err, "fetch v%d", v)
			require.Equal(t, want, got, "fetch v%d", v)
			for n := range len(wire) {
				_, err := ScanFetch(v, wire[:n])
				require.Error(t, err, "fetch v%d prefix %d of %d", v, n, len(wire))
			}
		}
	}
}

func TestScanAllocatesNothing(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	presp, _ := randProduce(r, 11)
	fresp, _ := randFetch(r, 17)
	pw, fw := presp.AppendTo(nil), fresp.AppendTo(nil)
	allocs := testing.AllocsPerRun(100, func() {
		_, _ = ScanProduce(11, pw)
		_, _ = ScanFetch(17, fw)
	})
	require.Zero(t, allocs)
}

func FuzzScan(f *testing.F) {
	r := rand.New(rand.NewPCG(3, 3))
	for v := int16(0); v <= 18; v++ {
		p, _ := randFetch(r, v)
		f.Add(v, p.AppendTo(nil))
	}
	f.Fuzz(func(t *testing.T, v int16, b []byte) {
		_, _ = ScanProduce(v, b)
		_, _ = ScanFetch(v, b)
	})
}
