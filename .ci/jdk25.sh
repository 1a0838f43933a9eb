# Sourced by .ci/run and ./bench: exports JDK25_HOME as a JDK 25 this machine has (a /usr/lib/jvm/*25* whose release
# file says version 25: not a jdk-17.0.25), unless JDK25_HOME is set. It is the second JDK that the tests which start
# JVMs also run on (CONTRIBUTING.md), and the one ./bench's virtual-thread benchmark runs on where the JDK that runs
# ./bench is older than 21.
if [ -z "${JDK25_HOME:-}" ]; then
  for home in /usr/lib/jvm/*25*; do
    if [ -x "$home/bin/java" ] && grep -q '^JAVA_VERSION="25' "$home/release" 2>/dev/null; then
      export JDK25_HOME="$home"
      break
    fi
  done
fi
