# Sourced by .ci/run and ./bench: exports JDK25_HOME as a JDK 25 this machine has (/usr/lib/jvm/*25*), unless it
# already names one. It is the second JDK that the tests which start JVMs also run on (CONTRIBUTING.md), and the one
# ./bench's virtual-thread benchmark runs on where the JDK that runs ./bench is older than 21.
if [ -z "${JDK25_HOME:-}" ]; then
  for home in /usr/lib/jvm/*25*; do
    if [ -x "$home/bin/java" ]; then
      export JDK25_HOME="$home"
      break
    fi
  done
fi
