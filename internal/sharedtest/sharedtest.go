// Package sharedtest finds the test inputs that live beside the checkout in
// ../shared (Kafka-written corpus files and vectors from Kafka's own code).
// They are read in place and never copied into the repository.
package sharedtest

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

var (
	once sync.Once
	root string
)

// find walks up from the working directory to the module root (the directory
// holding go.mod whose parent holds shared/) and returns ../shared, or "".
func find() string {
	once.Do(func() {
		if d := os.Getenv("KMETA_SHARED"); d != "" {
			root = d
			return
		}
		dir, err := os.Getwd()
		if err != nil {
			return
		}
		for {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				cand := filepath.Join(dir, "..", "shared")
				if st, err := os.Stat(cand); err == nil && st.IsDir() {
					root = filepath.Clean(cand)
					return
				}
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				return
			}
			dir = parent
		}
	})
	return root
}

// Find returns the shared directory, or "" when it is absent (for fuzz
// seeds, which are optional).
func Find() string { return find() }

// Dir returns the shared directory, or skips the test with a message saying
// what is missing. KMETA_SHARED overrides the location.
func Dir(tb testing.TB) string {
	tb.Helper()
	d := find()
	if d == "" {
		tb.Skip("../shared (Kafka corpus and vectors) not found beside the checkout; set KMETA_SHARED to run this test")
	}
	return d
}

// Path joins elements under the shared directory, skipping the test when the
// shared directory or the path is absent.
func Path(tb testing.TB, elem ...string) string {
	tb.Helper()
	p := filepath.Join(append([]string{Dir(tb)}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("shared test input %s not present: %v", p, err)
	}
	return p
}

// Corpus returns ../shared/corpus/kraft.
func Corpus(tb testing.TB) string { tb.Helper(); return Path(tb, "corpus", "kraft") }

// Vectors returns ../shared/vectors.
func Vectors(tb testing.TB) string { tb.Helper(); return Path(tb, "vectors") }
