package imagetest

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// IndexRow is one row of a tab-separated index file (vectors'
// corpus-images/INDEX.tsv and dirs/INDEX.tsv), by column name.
type IndexRow map[string]string

// ReadIndex reads a tab-separated file whose first line names the columns.
func ReadIndex(tb testing.TB, path string) []IndexRow {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<22)
	var cols []string
	var rows []IndexRow
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		if cols == nil {
			cols = fields
			continue
		}
		row := IndexRow{}
		for i, c := range cols {
			if i < len(fields) {
				row[c] = fields[i]
			}
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return rows
}
