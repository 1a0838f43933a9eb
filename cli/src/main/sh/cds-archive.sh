#!/bin/sh
# Makes the CLI's class-data sharing archive, cli/target/perfpin.jsa, beside the jar it was made from: the
# classes a `perfpin stat` loads, parsed and verified once here instead of at every start (JDK 17's dynamic
# archive, -XX:ArchiveClassesAtExit). It runs the launcher users run, so that the archive is made with the
# launcher's JVM options and its path to the jar, against a Service JVM of this jar's own (8 parked threads),
# counting it for 100 ms. The JVM checks the archive against the jar (path, size, time) and the JDK at every
# start and ignores one that does not match, so a stale archive costs nothing but the time it would save.
# Never fails the build: without an archive the launcher starts the CLI as before, and says why here.
# Usage: cds-archive.sh LAUNCHER JAR ARCHIVE
launcher=$1
jar=$2
jsa=$3
dir=$(dirname "$jsa")
fifo="$dir/cds-training.in"
out="$dir/cds-training.out"
rm -f "$jsa" "$fifo"
no_archive() {
  echo "[perfpin] no class-data sharing archive for the CLI ($1): it starts without one" >&2
  rm -f "$jsa"
  exit 0
}
[ "$(uname -s)" = Linux ] || no_archive "perfpin counts on Linux only"
mkfifo "$fifo" || no_archive "cannot make $fifo"
# The Service ends when its standard input closes (fd 3 below), and after 60 s whatever happens here.
java -cp "$jar" io.perfpin.apps.Service 0 60 8 <"$fifo" >"$out" 2>&1 &
service=$!
exec 3>"$fifo"
rm -f "$fifo"
waited=0
until grep -qx ready "$out" 2>/dev/null; do
  if [ $waited -ge 300 ] || ! kill -0 "$service" 2>/dev/null; then
    exec 3>&-
    no_archive "the training JVM did not start: $(head -c 300 "$out")"
  fi
  sleep 0.1
  waited=$((waited + 1))
done
# The archive is written as this JVM exits, whatever stat's exit code: a refusal of the kernel's still loads most
# of the classes a count does.
PERFPIN_JAVA_OPTS="-XX:ArchiveClassesAtExit=$jsa -Xlog:cds=off -Xlog:cds+dynamic=off" \
  timeout 120 "$launcher" stat "$service" --duration 100ms >/dev/null 2>"$out.stat" || true
exec 3>&-
wait "$service" 2>/dev/null
[ -s "$jsa" ] || no_archive "the training run wrote none: $(head -c 300 "$out.stat")"
rm -f "$out" "$out.stat"
