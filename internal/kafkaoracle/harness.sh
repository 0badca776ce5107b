# Sourced by run.sh and bench-e2e.sh: the classpath of a Kafka 4.4 build and
# the compilation of the harness against it.
#   kafka_paths KBUILD      sets CP (Kafka's classes and jars, without the
#                           shared folder's own harness) and SP (Kafka's
#                           sources, for the classes the harness reaches beyond
#                           the build)
#   compile_harness CLASSES compiles harness/kmetaoracle/*.java into CLASSES
kafka_paths() {
  local kb=$1 m
  [ -e "$kb/classpath-extra.txt" ] || { echo "$kb/classpath-extra.txt missing: run build-extra.sh after build.sh" >&2; return 1; }
  grep -q 87943b2ff874f7186a7a091f7fad13d1ca62fc42 "$kb/KAFKA_COMMIT" 2>/dev/null ||
    echo "warning: $kb is not the Kafka 4.4 commit the vectors were made with" >&2
  CP=$(tr ':' '\n' < "$kb/classpath-extra.txt" | grep -v '/classes/harness$\|/classes/extra-harness$' | paste -sd: -)
  SP="$kb/gen-extra:$kb/gen"
  for m in server storage storage/api group-coordinator group-coordinator/group-coordinator-api \
           transaction-coordinator share-coordinator coordinator-common; do
    SP="$SP:$kb/src-extra/$m/src/main/java"
  done
  for m in clients server-common raft metadata; do SP="$SP:$kb/src/$m/src/main/java"; done
}

compile_harness() {
  local classes=$1
  rm -rf "$classes"; mkdir -p "$classes"
  echo "compiling the harness (and the Kafka classes it reaches) ..." >&2
  javac -J-Xmx"${JAVA_MEM:-2g}" -nowarn -encoding UTF-8 --release 17 -proc:none -Xlint:none -XDsuppressNotes \
    -cp "$CP" -sourcepath "$SP" -implicit:class -d "$classes" "$HERE"/harness/kmetaoracle/*.java
}
