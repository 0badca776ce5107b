package main

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kmeta-go/kmeta/image/answer"
	"github.com/kmeta-go/kmeta/internal/sharedtest"
	"github.com/kmeta-go/kmeta/publisher/dirfollow"
)

// TestReadmeBlockIsRun: the README's "Embed kmeta" block is run's body
// between its markers, so that the path the README shows is the one
// TestEmbedPath runs (and internal/lint's TestReadmeCodeCompiles
// type-checks the README's copy).
func TestReadmeBlockIsRun(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)\n## Embed kmeta\n.*?```go\n(.*?)```").FindSubmatch(readme)
	if m == nil {
		t.Fatal(`README.md has no "## Embed kmeta" section with a go block`)
	}
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	body := regexp.MustCompile(`(?s)// README BEGIN\n(.*?)\t// README END`).FindSubmatch(src)
	if body == nil {
		t.Fatal("main.go has no README markers")
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSuffix(string(body[1]), "\n"), "\n") {
		lines = append(lines, strings.TrimPrefix(l, "\t"))
	}
	if want := strings.Join(lines, "\n") + "\n"; string(m[1]) != want {
		t.Fatalf("README block and run differ.\nREADME:\n%s\nmain.go:\n%s", m[1], want)
	}
}

// TestEmbedPath runs the path against a simulated directory (exact output)
// and against every corpus metadata directory whose image has a broker
// listener (the output must be what the image says).
func TestEmbedPath(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir, err := writeDemo(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(ctx, dir, &out); err != nil {
		t.Fatal(err)
	}
	want := "listener PLAINTEXT: 2 alive brokers, 2 topics\n" +
		"orders-0: produce to broker 2: error 0; fetch at epoch 0: error 74, leader hint 2 at epoch 1\n"
	if out.String() != want {
		t.Fatalf("simulated directory:\n%s\nwant:\n%s", out.String(), want)
	}

	ran := 0
	for _, f := range sharedtest.CorpusFolders(t) {
		_ = filepath.WalkDir(f.Root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() || d.Name() != "__cluster_metadata-0" {
				return err
			}
			img, err := dirfollow.LoadImage(path)
			if err != nil || img.Cluster().NumBrokers() == 0 {
				return nil // damaged or without brokers: other tests cover them
			}
			listener, err := answer.InterBrokerListener(img.Cluster(), "")
			if err != nil {
				return nil
			}
			alive := 0
			for b := range img.Cluster().AliveBrokers() {
				if _, ok := b.Listener(listener); ok {
					alive++
				}
			}
			var out bytes.Buffer
			if err := run(ctx, path, &out); err != nil {
				t.Errorf("%s: %v", path, err)
				return nil
			}
			first := strings.SplitN(out.String(), "\n", 2)[0]
			if want := fmt.Sprintf("listener %s: %d alive brokers, %d topics", listener, alive, img.Topics().Len()); first != want {
				t.Errorf("%s: %q, want %q", path, first, want)
			}
			ran++
			return nil
		})
	}
	if ran == 0 {
		t.Fatal("no corpus directory with brokers")
	}
	t.Logf("ran the path on %d corpus directories", ran)
}
