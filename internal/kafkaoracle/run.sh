#!/usr/bin/env bash
# run.sh KBUILD OUTDIR SEED [GENERATOR...]
#
# Runs kmeta's oracle harness: compiles harness/kmetaoracle/*.java against a
# build of Kafka 4.4 and runs each generator (every name in
# harness/GENERATORS, or those given) with SEED, writing OUTDIR/<name>.jsonl.gz.
#
#   KBUILD   a folder made by ../shared/kafka-java/build.sh with
#            KAFKA_COMMIT=87943b2ff874f7186a7a091f7fad13d1ca62fc42 and then
#            build-extra.sh (see that folder's README): Kafka's classes, its
#            extracted sources and classpath-extra.txt. Kafka classes the
#            harness reaches beyond that build (storage's LogConfig, the
#            server module's config definitions, ...) are compiled from
#            KBUILD's sources into OUTDIR/.classes, never into this folder.
#   OUTDIR   where the vectors go; internal/kafkaoracle/testdata for the
#            committed ones
#   SEED     a number; every random input is drawn from java.util.Random(SEED)
#
# Environment: KMETA_SHARED (default: ../shared beside the repository) for
# the corpus generators that read it; JAVA_MEM (default 2g).
set -euo pipefail
if [ $# -lt 3 ]; then sed -n '2,20p' "$0" >&2; exit 2; fi
KBUILD=$(cd "$1" && pwd) OUTDIR=$2 SEED=$3; shift 3
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
SHARED=${KMETA_SHARED:-$REPO/../shared}
JAVA_MEM=${JAVA_MEM:-2g}
. "$HERE/harness.sh"
kafka_paths "$KBUILD"
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
CLASSES=$OUTDIR/.classes
compile_harness "$CLASSES"

if [ $# -eq 0 ]; then set -- $(grep -v '^#' "$HERE/harness/GENERATORS" | grep .); fi
for g in "$@"; do
  start=$(date +%s)
  java -Xmx"$JAVA_MEM" -cp "$CLASSES:$CP" "kmetaoracle.$g" --seed "$SEED" --out "$OUTDIR" --shared "$SHARED"
  echo "$g: $(( $(date +%s) - start )) s" >&2
done
rm -rf "$CLASSES"
ls -l "$OUTDIR" >&2
