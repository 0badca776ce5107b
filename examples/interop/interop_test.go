package interop

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/answer"
	"github.com/kmeta-go/kmeta/image/imagetest"
	"github.com/kmeta-go/kmeta/internal/sharedtest"
	"github.com/kmeta-go/kmeta/publisher/dirfollow"
)

// part is one partition as every client can report it.
type part struct {
	ID       int32
	Leader   int32
	Replicas []int32
	ISR      []int32
}

// view is what a client sees of the cluster: broker ids and, per topic, its
// partitions in id order.
type view struct {
	Brokers []int32
	Topics  map[string][]part
}

func (v *view) norm(sortLists bool) *view {
	slices.Sort(v.Brokers)
	for _, ps := range v.Topics {
		slices.SortFunc(ps, func(a, b part) int { return int(a.ID - b.ID) })
		for i := range ps {
			if ps[i].Replicas == nil {
				ps[i].Replicas = []int32{}
			}
			if ps[i].ISR == nil {
				ps[i].ISR = []int32{}
			}
			if sortLists {
				slices.Sort(ps[i].Replicas)
				slices.Sort(ps[i].ISR)
			}
		}
	}
	return v
}

func (v *view) clone() *view {
	out := &view{Brokers: slices.Clone(v.Brokers), Topics: map[string][]part{}}
	for t, ps := range v.Topics {
		for _, p := range ps {
			out.Topics[t] = append(out.Topics[t], part{p.ID, p.Leader, slices.Clone(p.Replicas), slices.Clone(p.ISR)})
		}
	}
	return out
}

var proxyBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "kmeta-interop")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	proxyBin = filepath.Join(dir, "proxy")
	cmd := exec.Command("go", "build", "-o", proxyBin, "./examples/proxy")
	cmd.Dir = filepath.Join("..", "..")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building examples/proxy:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

var startedRE = regexp.MustCompile(`listener "([^"]*)", cluster "([^"]*)", on (127\.0\.0\.1:\d+)`)

// startProxy runs examples/proxy -advertise on a loopback port for dir and
// returns its address and listener; it is killed when the test ends.
func startProxy(t *testing.T, dir string) (addr, listener string, brokers map[int32]string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	cmd := exec.CommandContext(ctx, proxyBin, "-listen", "127.0.0.1:0", "-advertise", dir)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); cmd.Wait() })
	sc := bufio.NewScanner(stderr)
	lines := make(chan string)
	go func() {
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	// -advertise opens one port per broker id ("proxy: broker N on ADDR")
	// before it logs that it serves.
	brokers = map[int32]string{}
	timeout := time.After(30 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("proxy exited before serving")
			}
			if m := fwdBrokerRE.FindStringSubmatch(l); m != nil {
				id, _ := strconv.Atoi(m[1])
				brokers[int32(id)] = m[2]
				continue
			}
			m := startedRE.FindStringSubmatch(l)
			if m == nil {
				t.Fatalf("proxy did not start: %q", l)
			}
			go func() {
				for range lines {
				}
			}()
			return m[3], m[1], brokers
		case <-timeout:
			t.Fatal("proxy did not start within 30s")
		}
	}
}

// kmetaView is the Metadata answer kmeta builds from the image (v12, all
// topics) on the listener.
func kmetaView(t *testing.T, img *image.Image, listener string) *view {
	req := kmsg.NewPtrMetadataRequest()
	req.Version = 12
	resp, _ := answer.New(answer.Config{}).Metadata(img, req, answer.Request{Listener: listener})
	v := &view{Topics: map[string][]part{}}
	for _, b := range resp.Brokers {
		v.Brokers = append(v.Brokers, b.NodeID)
	}
	for _, tp := range resp.Topics {
		for _, p := range tp.Partitions {
			v.Topics[*tp.Topic] = append(v.Topics[*tp.Topic], part{p.Partition, p.Leader, p.Replicas, p.ISR})
		}
		if len(tp.Partitions) == 0 {
			v.Topics[*tp.Topic] = nil
		}
	}
	return v.norm(false)
}

// kafkaView applies KafkaApis.handleTopicMetadataRequest's answer rules to Kafka's own image of the
// directory (corpus-images/dirs): alive brokers with the listener; leader -1
// when the leader is not registered or lacks the listener.
func kafkaView(t *testing.T, jsonl, listener string) *view {
	type ep struct{ Name string }
	type rec struct {
		Type string
		Data struct {
			BrokerID    int32 `json:"brokerId"`
			Fenced      bool
			EndPoints   []ep `json:"endPoints"`
			Name        string
			TopicID     string `json:"topicId"`
			PartitionID int32  `json:"partitionId"`
			Leader      int32
			Replicas    []int32
			ISR         []int32 `json:"isr"`
		}
	}
	hasListener := map[int32]bool{}
	names := map[string]string{}
	v := &view{Topics: map[string][]part{}}
	var parts []rec
	for _, line := range imagetest.ReadLines(t, jsonl) {
		var r rec
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		switch r.Type {
		case "REGISTER_BROKER_RECORD":
			has := slices.ContainsFunc(r.Data.EndPoints, func(e ep) bool { return e.Name == listener })
			hasListener[r.Data.BrokerID] = has
			if has && !r.Data.Fenced {
				v.Brokers = append(v.Brokers, r.Data.BrokerID)
			}
		case "TOPIC_RECORD":
			names[r.Data.TopicID] = r.Data.Name
			v.Topics[r.Data.Name] = nil
		case "PARTITION_RECORD":
			parts = append(parts, r)
		}
	}
	for _, r := range parts {
		leader := r.Data.Leader
		if !hasListener[leader] {
			leader = -1
		}
		n := names[r.Data.TopicID]
		v.Topics[n] = append(v.Topics[n], part{r.Data.PartitionID, leader, r.Data.Replicas, r.Data.ISR})
	}
	return v.norm(false)
}

func franzView(t *testing.T, addr string, ports map[int32]string) (*view, *kadm.Client, *kgo.Client) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.RequestRetries(2), kgo.RetryTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	adm := kadm.NewClient(cl)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	md, err := adm.Metadata(ctx)
	if err != nil {
		t.Fatal(err)
	}
	v := &view{Topics: map[string][]part{}}
	for _, b := range md.Brokers {
		if fmt.Sprintf("%s:%d", b.Host, b.Port) != ports[b.NodeID] {
			t.Errorf("franz-go: broker %d at %s:%d, not its proxy port %s", b.NodeID, b.Host, b.Port, ports[b.NodeID])
		}
		v.Brokers = append(v.Brokers, b.NodeID)
	}
	for name, td := range md.Topics {
		v.Topics[name] = nil
		for _, p := range td.Partitions {
			v.Topics[name] = append(v.Topics[name], part{p.Partition, p.Leader, p.Replicas, p.ISR})
		}
	}
	// ListTopics (with internal topics) names the same topics.
	lt, err := adm.ListTopicsWithInternal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := lt.Names(), slices.Sorted(mapsKeys(v.Topics)); !reflect.DeepEqual(sortedCopy(got), want) {
		t.Errorf("franz-go ListTopics %v, want %v", got, want)
	}
	return v.norm(true), adm, cl
}

func mapsKeys(m map[string][]part) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func sortedCopy(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }

func saramaView(t *testing.T, addr string, ports map[int32]string, img *image.Image, listener string) *view {
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V3_6_0_0
	cfg.Net.DialTimeout, cfg.Net.ReadTimeout = 5*time.Second, 10*time.Second
	cfg.Metadata.Retry.Max = 1
	cl, err := sarama.NewClient([]string{addr}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close() })
	v := &view{Topics: map[string][]part{}}
	for _, b := range cl.Brokers() {
		if b.Addr() != ports[b.ID()] {
			t.Errorf("sarama: broker %d at %s, not its proxy port %s", b.ID(), b.Addr(), ports[b.ID()])
		}
		v.Brokers = append(v.Brokers, b.ID())
	}
	// The group coordinator sarama finds is kmeta's choice.
	exp, _ := answer.New(answer.Config{}).FindCoordinatorKey(img, 2, answer.CoordinatorGroup, "interop-group", answer.Request{Listener: listener})
	if exp.ErrorCode == 0 {
		b, err := cl.Coordinator("interop-group")
		if err != nil || b.ID() != exp.NodeID {
			t.Errorf("sarama coordinator %v %v, want node %d", b, err, exp.NodeID)
		}
	}
	topics, err := cl.Topics()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range topics {
		ps, err := cl.Partitions(name)
		if err != nil {
			t.Fatal(err)
		}
		v.Topics[name] = nil
		for _, p := range ps {
			leader := int32(-1)
			if b, err := cl.Leader(name, p); err == nil {
				leader = b.ID()
			}
			reps, _ := cl.Replicas(name, p)
			isr, _ := cl.InSyncReplicas(name, p)
			v.Topics[name] = append(v.Topics[name], part{p, leader, reps, isr})
		}
	}
	return v.norm(false)
}

func kcatView(t *testing.T, addr string, ports map[int32]string) *view {
	if _, err := exec.LookPath("kcat"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("kcat is not installed; .ci/run installs it")
		}
		t.Skip("kcat not installed (apt-get install kcat); .ci/run installs it")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "kcat", "-L", "-J", "-b", addr, "-m", "10").Output()
	if err != nil {
		t.Fatalf("kcat: %v", err)
	}
	var md struct {
		Brokers []struct {
			ID   int32
			Name string
		}
		Topics []struct {
			Topic      string
			Partitions []struct {
				Partition int32
				Leader    int32
				Replicas  []struct{ ID int32 }
				Isrs      []struct{ ID int32 }
			}
		}
	}
	if err := json.Unmarshal(out, &md); err != nil {
		t.Fatalf("kcat output: %v\n%s", err, out)
	}
	v := &view{Topics: map[string][]part{}}
	for _, b := range md.Brokers {
		if b.Name != ports[b.ID] {
			t.Errorf("kcat: broker %d at %s, not its proxy port %s", b.ID, b.Name, ports[b.ID])
		}
		v.Brokers = append(v.Brokers, b.ID)
	}
	for _, tp := range md.Topics {
		v.Topics[tp.Topic] = nil
		for _, p := range tp.Partitions {
			pp := part{ID: p.Partition, Leader: p.Leader}
			for _, r := range p.Replicas {
				pp.Replicas = append(pp.Replicas, r.ID)
			}
			for _, r := range p.Isrs {
				pp.ISR = append(pp.ISR, r.ID)
			}
			v.Topics[tp.Topic] = append(v.Topics[tp.Topic], pp)
		}
	}
	return v.norm(false)
}

func compare(t *testing.T, who string, got, want *view) {
	t.Helper()
	if !reflect.DeepEqual(got.Brokers, want.Brokers) {
		t.Errorf("%s: brokers %v, want %v", who, got.Brokers, want.Brokers)
	}
	for name, ps := range want.Topics {
		if g, ok := got.Topics[name]; !ok {
			t.Errorf("%s: topic %q missing", who, name)
		} else if !reflect.DeepEqual(g, ps) {
			t.Errorf("%s: topic %q\n got %+v\nwant %+v", who, name, g, ps)
		}
	}
	for name := range got.Topics {
		if _, ok := want.Topics[name]; !ok {
			t.Errorf("%s: unexpected topic %q", who, name)
		}
	}
}

// interopDirs are corpus directories (Kafka's image in corpus-images/dirs)
// and a vector scenario with two listeners and racks.
var interopDirs = []string{
	"corpus/kraft/hiage__kafka-raft/data/kafka1/__cluster_metadata-0",
	"corpus/kraft/ftmhxp__real-time-data-streaming-pipeline/kafka1/data/__cluster_metadata-0",
	"corpus/kraft/rjmfernandes__flink-on-prem/data/__cluster_metadata-0",
	"corpus/kraft/vasifvortex__azercell_docker_project3/data/kafka1/__cluster_metadata-0",
	"vectors/snapshots/mv-4.0-IV0-kraft0/__cluster_metadata-0",
}

// TestRealClients: franz-go, sarama and kcat each see, through the proxy,
// exactly the brokers, topics, partitions, leaders, replicas and ISR of the
// Metadata answer kmeta builds from the image; for corpus directories that
// answer agrees with Kafka's own image of the directory under
// KafkaApis.handleTopicMetadataRequest's rules; the group coordinator franz-go and sarama find is kmeta's.
func TestRealClients(t *testing.T) {
	shared := sharedtest.Dir(t)
	for _, d := range interopDirs {
		t.Run(strings.SplitN(strings.TrimPrefix(d, "corpus/kraft/"), "/", 2)[0], func(t *testing.T) {
			dir := filepath.Join(shared, d)
			img, err := dirfollow.LoadImage(dir)
			if err != nil {
				t.Fatal(err)
			}
			addr, listener, ports := startProxy(t, dir)
			want := kmetaView(t, img, listener)
			if strings.HasPrefix(d, "corpus/") {
				k := kafkaView(t, filepath.Join(shared, "vectors", "corpus-images", "dirs", strings.TrimPrefix(d, "corpus/kraft/")+".image-records.jsonl"), listener)
				compare(t, "kmeta's answer vs Kafka's image", want, k)
			}
			t.Run("franz-go", func(t *testing.T) {
				got, adm, cl := franzView(t, addr, ports)
				compare(t, "franz-go", got, want.clone().norm(true))
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				exp, _ := answer.New(answer.Config{}).FindCoordinatorKey(img, 4, answer.CoordinatorGroup, "interop-group", answer.Request{Listener: listener})
				fc := adm.FindGroupCoordinators(ctx, "interop-group")
				r := fc["interop-group"]
				if exp.ErrorCode == 0 && (r.Err != nil || r.NodeID != exp.NodeID) {
					t.Errorf("franz-go coordinator %+v, want node %d", r, exp.NodeID)
				}
				// DescribeCluster through kgo.
				dc := kmsg.NewPtrDescribeClusterRequest()
				resp, err := dc.RequestWith(ctx, cl)
				if err != nil {
					t.Fatal(err)
				}
				var ids []int32
				for _, b := range resp.Brokers {
					ids = append(ids, b.NodeID)
				}
				slices.Sort(ids)
				if !reflect.DeepEqual(ids, want.Brokers) && !(len(ids) == 0 && len(want.Brokers) == 0) {
					t.Errorf("DescribeCluster brokers %v, want %v", ids, want.Brokers)
				}
			})
			t.Run("sarama", func(t *testing.T) {
				if len(want.Brokers) == 0 {
					t.Skip("no alive broker in this image: sarama drops a broker whose Metadata answer lists none (its KAFKA-7924 rule), as it would with Kafka's own answer")
				}
				compare(t, "sarama", saramaView(t, addr, ports, img, listener), want)
			})
			t.Run("kcat", func(t *testing.T) {
				compare(t, "kcat", kcatView(t, addr, ports), want)
			})
		})
	}
}
