#!/bin/sh
# glibc-floor.sh FLOOR WERROR LIBRARY: names each function LIBRARY needs of a glibc newer than FLOOR (glibcfloor.h
# says why it matters), and fails where WERROR is true, as the compiler's warnings do (the Makefile's WERROR).
floor="$1"
werror="$2"
library="$3"
fail() {
  [ "$werror" = true ] && exit 1
  exit 0
}
if ! command -v readelf >/dev/null 2>&1; then
  echo "[perfpin] no readelf (binutils): the glibc versions $(basename "$library") needs are not checked" >&2
  fail
fi
symbols=$(readelf --dyn-syms -W "$library") || fail
newer=$(printf '%s\n' "$symbols" | awk -v floor="$floor" '
  # whether version a.b[.c] is newer than the floor; GLIBC_PRIVATE is no version to need
  function newer(version,    v, f, i) {
    if (version !~ /^[0-9]+(\.[0-9]+)*$/) {
      return 1
    }
    split(version, v, ".")
    split(floor, f, ".")
    for (i = 1; i <= 3; i++) {
      if (v[i] + 0 != f[i] + 0) {
        return v[i] + 0 > f[i] + 0
      }
    }
    return 0
  }
  {
    for (i = 1; i <= NF; i++) {
      if (match($i, /@@?GLIBC_/) && newer(substr($i, RSTART + RLENGTH))) {
        print $i
      }
    }
  }' | sort -u | tr '\n' ' ')
if [ -n "$newer" ]; then
  echo "[perfpin] $(basename "$library") needs functions of a glibc newer than $floor, the oldest perfpin supports:" \
       "$newer(bind an older version in glibcfloor.h, or make the system call)" >&2
  fail
fi
