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
[ -e "$KBUILD/classpath-extra.txt" ] || { echo "$KBUILD/classpath-extra.txt missing: run build-extra.sh after build.sh" >&2; exit 1; }
grep -q 87943b2ff874f7186a7a091f7fad13d1ca62fc42 "$KBUILD/KAFKA_COMMIT" 2>/dev/null ||
  echo "warning: $KBUILD is not the Kafka 4.4 commit the vectors were made with" >&2
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)

# Kafka's classes and jars, without the shared folder's own harness classes.
CP=$(tr ':' '\n' < "$KBUILD/classpath-extra.txt" | grep -v '/classes/harness$\|/classes/extra-harness$' | paste -sd: -)
SP="$KBUILD/gen-extra:$KBUILD/gen"
for m in server storage storage/api group-coordinator group-coordinator/group-coordinator-api \
         transaction-coordinator share-coordinator coordinator-common; do
  SP="$SP:$KBUILD/src-extra/$m/src/main/java"
done
for m in clients server-common raft metadata; do SP="$SP:$KBUILD/src/$m/src/main/java"; done

CLASSES=$OUTDIR/.classes
rm -rf "$CLASSES"; mkdir -p "$CLASSES"
echo "compiling the harness (and the Kafka classes it reaches) ..." >&2
javac -J-Xmx"$JAVA_MEM" -nowarn -encoding UTF-8 --release 17 -proc:none -Xlint:none -XDsuppressNotes \
  -cp "$CP" -sourcepath "$SP" -implicit:class -d "$CLASSES" "$HERE"/harness/kmetaoracle/*.java

if [ $# -eq 0 ]; then set -- $(grep -v '^#' "$HERE/harness/GENERATORS" | grep .); fi
for g in "$@"; do
  start=$(date +%s)
  java -Xmx"$JAVA_MEM" -cp "$CLASSES:$CP" "kmetaoracle.$g" --seed "$SEED" --out "$OUTDIR" --shared "$SHARED"
  echo "$g: $(( $(date +%s) - start )) s" >&2
done
rm -rf "$CLASSES"
ls -l "$OUTDIR" >&2
