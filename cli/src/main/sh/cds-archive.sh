#!/bin/sh
# Makes the CLI's class-data sharing archive, cli/target/perfpin.jsa, beside the jar it was made from: the
# classes a `perfpin stat` loads, parsed and verified once here instead of at every start. It is a static archive
# (-Xshare:dump from class lists), not JDK 17's dynamic one (-XX:ArchiveClassesAtExit): a dynamic archive leaves out
# every class older than Java 6, which all of picocli's are (built for Java 5), and with them every class that
# implements one of its interfaces (the options' converters), so that a third of what stat loads came from the jar
# and went through the old verifier at every start. The class lists come from training runs of the launcher users
# run, against a Service JVM of this jar's own (8 parked threads), each counting it for 100 ms: stat as typed at a
# terminal (a table), and as a script runs it (a regex, events, CSV or JSON, intervals), so that either finds its
# classes archived. The archive is dumped with the launcher's JVM options and its path to the jar. The JVM checks
# it against the jar (path, size, time) and the JDK at every start and ignores one that does not match, so a stale
# archive costs nothing but the time it would save.
# Never fails the build: without an archive the launcher starts the CLI as before, and says why here.
# The launcher, which runs as root, maps only an archive that the invoking user or root wrote and nobody else may
# write: this one is its owner's alone (umask 077: read-only for its owner, as the JVM makes it), dumped in a directory
# of this run's own and linked into place only where nothing is, so that it never replaces a file it did not make.
# An archive this user made before is replaced; anything else at its path is left as it is, and no archive made.
# Usage: cds-archive.sh LAUNCHER JAR ARCHIVE
launcher=$1
jar=$2
# Absolute, since the dump runs in the archive's directory: the build passes absolute paths, a user may not.
dir=$(cd "$(dirname "$3")" && pwd) || exit 0
jsa="$dir/$(basename "$3")"
fifo="$dir/cds-training.in"
out="$dir/cds-training.out"
lists="$dir/cds-training"
dumped="$lists/perfpin.jsa"
umask 077
no_archive() {
  echo "[perfpin] no class-data sharing archive for the CLI ($1): it starts without one" >&2
  exit 0
}
if [ -e "$jsa" ] || [ -L "$jsa" ]; then
  [ -n "$(find "$jsa" -maxdepth 0 -type f -user "$(id -u)" 2>/dev/null)" ] \
    || no_archive "$jsa is not a file of this user's: left as it is"
  rm -f "$jsa"
fi
rm -f "$fifo"
rm -rf "$lists"
[ "$(uname -s)" = Linux ] || no_archive "perfpin counts on Linux only"
mkdir "$lists" || no_archive "cannot make $lists"
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
# Each run lists the classes it loads whatever stat's exit code: a refusal of the kernel's still loads most of the
# classes a count does.
train() {
  name=$1
  shift
  PERFPIN_JAVA_OPTS="-XX:DumpLoadedClassList=$lists/$name.classlist" \
    timeout 120 "$launcher" stat "$service" --duration 100ms "$@" >/dev/null 2>"$lists/$name.err" || true
}
train table
train csv --threads 'parked-.*' --events task-clock,context-switches --format csv --interval 50ms
train json --format json
exec 3>&-
wait "$service" 2>/dev/null
# One list of them all, each line once: a class, or a lambda, listed twice makes the JDK 17 dump crash.
cat "$lists"/*.classlist 2>/dev/null | awk '!seen[$0]++' >"$lists/all.classlist"
grep -q '^io/perfpin/cli/StatCommand$' "$lists/all.classlist" \
  || no_archive "the training runs listed no class of stat's: $(head -c 300 "$lists/table.err")"
# The jar as the launcher names it (its directory, then cli/target), since the JVM checks the class path by name.
named=$(cd "$(dirname "$launcher")" && pwd)/cli/target/perfpin.jar
[ "$named" -ef "$jar" ] || named=$jar
# The launcher's own options, which the JVM checks against the archive's; a crash report stays in target/.
(cd "$dir" && java -Xshare:dump "-XX:SharedClassListFile=$lists/all.classlist" "-XX:SharedArchiveFile=$dumped" \
  -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xlog:cds=off -Xlog:cds+dynamic=off --enable-native-access=ALL-UNNAMED \
  -cp "$named" >"$lists/dump.out" 2>&1)
[ -s "$dumped" ] || no_archive "the dump wrote none: $(tail -c 300 "$lists/dump.out")"
# ln, not mv: it never replaces what another user may have put there meanwhile
ln "$dumped" "$jsa" 2>/dev/null || no_archive "$jsa appeared while the archive was made: left as it is"
rm -rf "$lists" "$out"
