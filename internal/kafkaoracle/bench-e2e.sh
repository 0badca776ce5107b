#!/usr/bin/env bash
# bench-e2e.sh KBUILD [ROUNDS [WORKDIR]]     (run from anywhere; KBUILD as for run.sh)
#
# The end-to-end rows, kmeta against Kafka, from one run on this machine: a
# snapshot file's bytes to a published image (100 000 topics = 1 M
# partitions; 10 M partitions too with KMETA_BENCH10M=1) and a log segment of
# 1 M records replayed commit by commit. Both sides read the same files,
# which publisher's TestE2EFiles writes: kmeta through record's readers into
# publisher.Loader (BenchmarkEndToEnd*), Kafka through RecordsSnapshotReader /
# RecordsBatchReader into MetadataLoader (harness BenchE2E). Each round runs
# Kafka's side then kmeta's; ROUNDS (default 2) rounds alternate. Prints,
# per row, the medians over all rounds and the ratio kmeta/Kafka (below 1:
# kmeta faster), in wall time; kmeta's CPU time per op is printed beside.
#
# Environment: JAVA_MEM (default 8g), WARMUPS (Java warm-up loads per round,
# default 3), ITER (measured loads per round and side, default 5).
set -euo pipefail
if [ $# -lt 1 ]; then sed -n '2,16p' "$0" >&2; exit 2; fi
KBUILD=$(cd "$1" && pwd) ROUNDS=${2:-2} W=${3:-$(mktemp -d)}
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
JAVA_MEM=${JAVA_MEM:-8g} WARMUPS=${WARMUPS:-3} ITER=${ITER:-5}
. "$HERE/harness.sh"
kafka_paths "$KBUILD"
mkdir -p "$W"; W=$(cd "$W" && pwd)
compile_harness "$W/classes"

echo "writing the files into $W ..." >&2
rm -f "$W/FILES.tsv"
(cd "$REPO" && KMETA_E2E_DIR=$W go test ./publisher -run '^TestE2EFiles$' -count=1 >&2)
(cd "$REPO" && go test -c -o "$W/publisher.test" ./publisher)

: > "$W/java.txt"; : > "$W/go.txt"
for r in $(seq 1 "$ROUNDS"); do
  echo "round $r/$ROUNDS: Kafka ..." >&2
  java -Xmx"$JAVA_MEM" -Xms"$JAVA_MEM" -cp "$W/classes:$CP" kmetaoracle.BenchE2E "$W/FILES.tsv" "$WARMUPS" "$ITER" | tee -a "$W/java.txt" >&2
  echo "round $r/$ROUNDS: kmeta ..." >&2
  (cd "$REPO/publisher" && "$W/publisher.test" -test.run '^$' -test.bench '^BenchmarkEndToEnd' \
    -test.benchtime "${ITER}x" -test.count 1 -test.benchmem) | tee -a "$W/go.txt" >&2
done

# Go rows: BenchmarkEndToEndSnapshot/topics=100000-2  5  NS ns/op ... CPU cpu-ns/op
awk -v java="$W/java.txt" '
  function median(list,   n, a, i, j, t) { n = split(list, a, " ");
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
  BEGIN { while ((getline l < java) > 0) { split(l, f, " "); j[f[1]] = j[f[1]] " " f[2] } }
  /^BenchmarkEndToEnd/ {
    name = $1; sub(/-[0-9]+$/, "", name)
    row = (name ~ /Segment/) ? "segment-1M" : (name ~ /10M/ ? "snapshot-10M" : "snapshot-100000")
    for (i = 1; i <= NF; i++) { if ($(i + 1) == "ns/op") g[row] = g[row] " " $i; if ($(i + 1) == "cpu-ns/op") c[row] = c[row] " " $i }
  }
  END {
    printf "%-16s %14s %14s %14s %8s\n", "row", "Kafka ns", "kmeta ns", "kmeta cpu-ns", "ratio"
    for (r in g) { jm = median(j[r]); gm = median(g[r]);
      printf "%-16s %14.0f %14.0f %14.0f %8.3f\n", r, jm, gm, median(c[r]), (jm > 0 ? gm / jm : 0) }
  }' "$W/go.txt"
