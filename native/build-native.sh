#!/bin/sh
# Called by the Maven build: compiles the JNI library into $1 when a C compiler is there; the other arguments
# are make variables (WERROR=true). The JNI headers are those of $JAVA_HOME, which the build sets to the JDK
# running Maven, so the library is built against the JDK that compiles the Java side.
# Without a compiler or headers the build still succeeds; at run time perfpin then uses the jffi or JNA backend,
# and the JNI backend's tests say why they were skipped.
out="$1"
shift
cc="${CC:-cc}"
if ! command -v "$cc" >/dev/null 2>&1 || ! command -v make >/dev/null 2>&1; then
  echo "[perfpin] no C compiler ($cc) or make found: skipping the JNI library; the jffi/JNA backends will be used." >&2
  echo "[perfpin] to build it: apt-get install gcc make (or set CC)" >&2
  exit 0
fi
if [ -n "${JAVA_HOME:-}" ] && [ ! -f "$JAVA_HOME/include/jni.h" ]; then
  echo "[perfpin] no JNI headers in $JAVA_HOME/include (a JRE, not a JDK?): skipping the JNI library;" \
       "the jffi/JNA backends will be used." >&2
  echo "[perfpin] to build it: run Maven with a JDK (JAVA_HOME)" >&2
  exit 0
fi
exec make -s -C "$(dirname "$0")/src/main/c" OUT="$out" CC="$cc" "$@"
