#!/usr/bin/env bash
# A sans-I/O library may call only GLib data structures and hashing and libc
# memory and strings, plus what its own allow list adds: a socket, thread,
# clock, file, process or unseeded random call fails this test, and so does
# an I/O, thread, clock, libevent or GStreamer header among its sources.
# usage: sans-io.sh NAME LIBRARY SOURCE_DIR EXTRA_ALLOWED_REGEX
set -eu
name=$1
lib=$2
src=$3
extra=$4

common='donar_|g_malloc0?$|g_malloc0?_n$|g_new0?$|g_free$|g_realloc$|g_hmac_(new|update|get_digest|unref)$|g_assertion_message|g_return_if_fail_warning$|mem(cpy|set|move|cmp|chr)$|explicit_bzero$|str(len|cmp|ncmp|chr)$|__stack_chk_fail$|__memcpy_chk$|__memset_chk$|__asan_|__ubsan_|__sanitizer_|_GLOBAL_OFFSET_TABLE_$|__popcount[sd]i2$'
allowed="^($common|$extra)"

status=0
for symbol in $(nm -u "$lib" | awk '$1 == "U" {print $2}' | sort -u); do
  if ! [[ $symbol =~ $allowed ]]; then
    echo "not ok: $name calls $symbol"
    status=1
  fi
done
if grep -nE '#include *[<"](gst/|gio/|sys/|netinet/|arpa/|netdb|pthread|event2/|time\.h|unistd|fcntl|stdio|signal|poll)' "$src"/*.c "$src"/*.h; then
  echo "not ok: $name includes an I/O, thread, clock or GStreamer header"
  status=1
fi
[ $status = 0 ] && echo "ok: $name is sans-I/O"
exit $status
