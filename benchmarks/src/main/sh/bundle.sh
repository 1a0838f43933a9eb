#!/bin/sh
# Packs what ./bench needs to run on a machine with no JDK (gcc is enough for its C programs) into DIR: a jlinked
# runtime and the built jars, with DIR/run.sh, which puts them in place beside a copy of this repository's files
# and runs the benchmarks named by ONLY (default 3,5,8). Every JVM the benchmarks start runs on that runtime, for
# perfpin and its peers alike. Native libraries for other platforms are left out of the jars, and of the jars inside
# them, so the whole fits in about 52 MiB. Build first: ./mvnw -B -q -DskipTests package.
#   benchmarks/src/main/sh/bundle.sh DIR     then, there: [ONLY=3,5] [RUNS=7] [OUT=dir] DIR/run.sh
set -e
[ $# -eq 1 ] || { echo "usage: $0 DIR (a new directory inside a copy of the repository)" >&2; exit 2; }
repo=$(cd "$(dirname "$0")/../../../.." && pwd)
dir=$1
mkdir "$dir"
jlink --add-modules java.base,java.instrument,java.management,jdk.attach,jdk.jcmd,jdk.management,jdk.jfr,\
jdk.unsupported,java.logging,jdk.zipfs,java.naming \
    --strip-debug --no-man-pages --no-header-files --compress=2 --output "$dir/jrt"
strip --strip-unneeded "$dir/jrt/lib/server/libjvm.so" 2>/dev/null || true
# Deletes other platforms' native libraries from the jar $1 (an absolute path), and from the jars inside it, at any
# depth (the CLI's agent jar, the agent's library jars), each put back compressed or stored as it was.
strip_natives() {
  local other inner work stored
  other=$(unzip -Z1 "$1" | grep -E '\.(so|dll|jnilib|dylib|a)$' \
          | grep -vE 'linux-x86-64|x86_64-Linux|linux-x64|linux-x86_64|/libperfpin\.so$|^libperfpin-agent\.so$' || true)
  [ -z "$other" ] || zip -q -d "$1" $other
  for inner in $(unzip -Z1 "$1" | grep -E '\.jar$' || true); do
    work=$(mktemp -d)
    (cd "$work" && unzip -q "$1" "$inner")
    strip_natives "$work/$inner"
    stored=$(unzip -v "$1" "$inner" | grep -c ' Stored ' || true)
    if [ "$stored" -gt 0 ]; then
      (cd "$work" && zip -q -0 "$1" "$inner")
    else
      (cd "$work" && zip -q "$1" "$inner")
    fi
    rm -r "$work"
  done
}
for jar in agent/target/perfpin-agent.jar cli/target/perfpin.jar benchmarks/target/benchmarks.jar; do
  cp "$repo/$jar" "$dir/"
  strip_natives "$(cd "$dir" && pwd)/$(basename "$jar")"
done
# the agent's -agentpath way in, beside its jar there as here (benchmark 3); none where the build had no C compiler
[ ! -e "$repo/agent/target/libperfpin-agent.so" ] || cp "$repo/agent/target/libperfpin-agent.so" "$dir/"
(cd "$repo" && tar cf "$dir/classes.tar" test-apps/target/classes annotations/target/classes)
cat > "$dir/run.sh" <<'RUN'
#!/bin/sh
# Runs ./bench's benchmarks ONLY (default 3,5,8) on this bundle's runtime; the report goes to $OUT (or /tmp).
set -e
bundle=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$bundle/.." && pwd)
out=${OUT:-/tmp}
export JAVA_HOME="$bundle/jrt" PATH="$bundle/jrt/bin:$PATH"
# The runtime's own class-data sharing archive, which jlink does not make: start-up is measured as a JDK starts.
[ -e "$bundle/jrt/lib/server/classes.jsa" ] || java -Xshare:dump > /dev/null
cd "$repo"
mkdir -p agent/target cli/target benchmarks/target jmh/target
cp "$bundle/perfpin-agent.jar" agent/target/
[ ! -e "$bundle/libperfpin-agent.so" ] || cp "$bundle/libperfpin-agent.so" agent/target/
cp "$bundle/perfpin.jar" cli/target/
cp "$bundle/benchmarks.jar" benchmarks/target/
tar xf "$bundle/classes.tar"
# The CLI's own archive, made as the build makes it, for this runtime: perfpin stat is measured as users start it.
# Made again at every run: the JVM checks the archive against the jar's time, which the copy above renewed, and
# would start the CLI without a stale one, silently.
sh cli/src/main/sh/cds-archive.sh "$repo/perfpin" cli/target/perfpin.jar cli/target/perfpin.jsa
# Only benchmark 9 runs the JMH jar, which stays behind for its size; the workspace checks that it exists.
[ -e jmh/target/perfpin-jmh.jar ] || : > jmh/target/perfpin-jmh.jar
echo "cpus: $(nproc); $(java -version 2>&1 | head -1); $(uname -r)"
java -jar benchmarks/target/benchmarks.jar --repo "$repo" --only "${ONLY:-3,5,8}" --runs "${RUNS:-7}" \
    --output "$out/benchmarks.md"
RUN
chmod +x "$dir/run.sh"
du -sh "$dir"
