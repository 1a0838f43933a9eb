#!/bin/sh
# Called by the Maven build: compiles the JNI library into $1 when a C compiler is there.
# Without one the build still succeeds; at run time perfpin then uses the jffi or JNA backend, and the
# JNI backend's tests say why they were skipped.
out="$1"
cc="${CC:-cc}"
if ! command -v "$cc" >/dev/null 2>&1 || ! command -v make >/dev/null 2>&1; then
  echo "[perfpin] no C compiler ($cc) or make found: skipping the JNI library; the jffi/JNA backends will be used." >&2
  echo "[perfpin] to build it: apt-get install gcc make (or set CC)" >&2
  exit 0
fi
exec make -s -C "$(dirname "$0")/src/main/c" OUT="$out" CC="$cc"
