package kafkaoracle

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// EnvDir names the environment variable that points the tests at vectors
// written by run.sh instead of the committed testdata.
const EnvDir = "KMETA_ORACLE_DIR"

// maxLine bounds one vector line (a DescribeConfigs answer of every broker
// config at every version is the largest today, well under this).
const maxLine = 64 << 20

// Dir is where the vectors are read from: $KMETA_ORACLE_DIR when set, else
// this package's testdata directory.
func Dir() string {
	if d := os.Getenv(EnvDir); d != "" {
		return d
	}
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "testdata")
}

// Path is the file of the vectors named name ("configs" is
// Dir()/configs.jsonl.gz).
func Path(name string) string { return filepath.Join(Dir(), name+".jsonl.gz") }

// Lines calls fn for each line of the vectors named name, in order, with
// the line's number (from 1). It fails tb when the file is missing or
// damaged, or when it holds no line: a test over no vector would pass
// without checking anything.
func Lines(tb testing.TB, name string, fn func(n int, line []byte)) {
	tb.Helper()
	p := Path(name)
	f, err := os.Open(p)
	if err != nil {
		tb.Fatalf("kafkaoracle: %v (regenerate with internal/kafkaoracle/run.sh, see its README)", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatalf("kafkaoracle: %s: %v", p, err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 0, 1<<20), maxLine)
	n := 0
	for sc.Scan() {
		n++
		fn(n, sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		tb.Fatalf("kafkaoracle: %s line %d: %v", p, n+1, err)
	}
	if n == 0 {
		tb.Fatalf("kafkaoracle: %s holds no vector", p)
	}
}

// Decode calls fn for each line of the vectors named name decoded as JSON
// into a fresh T. A line that does not decode fails tb with its number.
func Decode[T any](tb testing.TB, name string, fn func(n int, v *T)) {
	tb.Helper()
	Lines(tb, name, func(n int, line []byte) {
		v := new(T)
		if err := json.Unmarshal(line, v); err != nil {
			tb.Fatalf("kafkaoracle: %s line %d: %v", Path(name), n, err)
		}
		fn(n, v)
	})
}

// Name is a test name for vector n of name, so that a failure says which
// line of which file to look at ("configs:17").
func Name(name string, n int) string { return fmt.Sprintf("%s:%d", name, n) }
