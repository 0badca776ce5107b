// Command recordgen generates kmeta's record codec (record/zz_generated.go)
// from the project's own definitions in defs/*.kdef: one Go type per
// metadata record and KRaft control record, with the binary codec at every
// version, Kafka's JSON form, defaults and the lookup tables of package record.
//
// Run it with go generate ./record (CI checks that doing so changes nothing).
package main

import (
	"flag"
	"fmt"
	"go/format"
	"os"
	"path/filepath"
	"sort"
)

func main() {
	defs := flag.String("defs", "../internal/recordgen/defs", "directory of .kdef definitions")
	out := flag.String("out", "zz_generated.go", "output file")
	flag.Parse()
	if err := run(*defs, *out); err != nil {
		fmt.Fprintln(os.Stderr, "recordgen:", err)
		os.Exit(1)
	}
}

func run(defsDir, out string) error {
	files, err := filepath.Glob(filepath.Join(defsDir, "*.kdef"))
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("no .kdef files in %s", defsDir)
	}
	sort.Strings(files)
	var msgs []*message
	for _, f := range files {
		m, err := parseFile(f)
		if err != nil {
			return err
		}
		msgs = append(msgs, m...)
	}
	if err := check(msgs); err != nil {
		return err
	}
	src := generate(msgs)
	formatted, err := format.Source(src)
	if err != nil {
		_ = os.WriteFile(out+".broken", src, 0o644)
		return fmt.Errorf("formatting generated code (unformatted output in %s.broken): %w", out, err)
	}
	return os.WriteFile(out, formatted, 0o644)
}
