// Command embed is the README's ten-minute path for a Go program that embeds
// kmeta, as a program: follow a __cluster_metadata-0 directory, wait for the
// first image, answer a Metadata request as the cluster's brokers would, and
// check a request's partition against the image the way a broker checks a
// Produce and a Fetch.
//
//	go run ./examples/embed /var/lib/kafka/data/__cluster_metadata-0
//	go run ./examples/embed -demo
//
// -demo writes a simulated three-broker cluster's directory to a temporary
// folder first. The body of run between its README markers is the README's
// "Embed kmeta" block, word for word (TestReadmeBlockIsRun checks it), and
// TestEmbedPath runs it against the corpus and a simulated directory.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/epoch"
	"github.com/kmeta-go/kmeta/image/answer"
	"github.com/kmeta-go/kmeta/publisher"
	"github.com/kmeta-go/kmeta/publisher/dirfollow"
	"github.com/kmeta-go/kmeta/record/metaprops"
)

func main() {
	demo := flag.Bool("demo", false, "follow a simulated cluster's directory written to a temporary folder")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	dir := flag.Arg(0)
	if *demo {
		tmp, err := os.MkdirTemp("", "kmeta-embed")
		if err != nil {
			fatal(err)
		}
		defer os.RemoveAll(tmp)
		if dir, err = writeDemo(tmp); err != nil {
			fatal(err)
		}
	}
	if dir == "" {
		fmt.Fprintln(os.Stderr, "usage: embed (METADATA_DIR | -demo)")
		os.Exit(2)
	}
	if err := run(ctx, dir, os.Stdout); err != nil {
		fatal(err)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "embed:", err)
	os.Exit(1)
}

// writeDemo writes a simulated cluster's metadata directory under parent:
// three brokers, two topics, broker 1 fenced.
func writeDemo(parent string) (string, error) {
	sim := deltatest.MustCluster(3)
	sim.MustCreateTopic("orders", 6, 3)
	sim.MustCreateTopic("payments", 3, 3)
	if err := sim.FenceBroker(1); err != nil { // its leaderships move, at a new leader epoch
		return "", err
	}
	return sim.WriteDir(parent, deltatest.WriteDirOptions{})
}

// failed carries a check's error out of run's README block.
type failed struct{ err error }

// check stops run with err, unless err is nil.
func check(err error) {
	if err != nil {
		panic(failed{err})
	}
}

// run is the README's "Embed kmeta" path over dir, printing to out.
func run(ctx context.Context, dir string, out io.Writer) (err error) {
	defer func() {
		if r := recover(); r != nil {
			f, ok := r.(failed)
			if !ok {
				panic(r)
			}
			err = f.err
		}
	}()
	// README BEGIN
	// Follow the directory; Start returns once the first image is published.
	l := publisher.NewLoader(publisher.Config{})
	defer l.Close()
	cache := publisher.NewCache("cache") // what request handlers read
	check(l.Install(cache))
	img, following, err := dirfollow.Start(ctx, l, dir, dirfollow.Options{})
	check(err)
	defer following.Stop()

	// The cluster id is not in the metadata log: Kafka keeps it in the log
	// directory's meta.properties. The listener to answer on is the one the
	// brokers use between them (inter.broker.listener.name, if you know it).
	clusterID := ""
	if p, err := metaprops.FindFor(dir); err == nil {
		clusterID = p.ClusterID
	} else if !errors.Is(err, metaprops.ErrNotFound) {
		check(err) // a *metaprops.Error names the file and the field
	}
	listener, err := answer.InterBrokerListener(img.Cluster(), "")
	check(err)

	// Answer Metadata as the cluster's brokers would. The request's Version
	// sets the answer's (set it from the request header before decoding).
	r := answer.New(answer.Config{ClusterID: clusterID})
	req := kmsg.NewPtrMetadataRequest()
	req.Version = 12
	resp, _ := r.Metadata(cache.Load(), req, answer.Request{Listener: listener})
	fmt.Fprintf(out, "listener %s: %d alive brokers, %d topics\n", listener, len(resp.Brokers), len(resp.Topics))

	// Check a request's partition as a broker does: a Produce only for
	// leadership (it carries no leader epoch), a Fetch also for its epoch.
	for t := range cache.Load().Topics().AllByName() {
		p, ok := t.Partition(0)
		if !ok || !p.HasLeader() {
			continue
		}
		pr := epoch.CheckProduce(t, 0, p.Leader())
		fr := epoch.Check(t, 0, p.LeaderEpoch()-1, p.Leader(), true) // a client one epoch behind
		fmt.Fprintf(out, "%s-0: produce to broker %d: error %d; fetch at epoch %d: error %d, leader hint %d at epoch %d\n",
			t.Name(), p.Leader(), pr.ErrorCode, p.LeaderEpoch()-1, fr.ErrorCode, fr.LeaderID, fr.LeaderEpoch)
		break
	}
	// README END
	return nil
}
