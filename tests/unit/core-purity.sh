#!/usr/bin/env bash
# The protocol core is sans-I/O: its objects may call only the functions
# listed here (GLib data structures and hashing, libc memory and strings).
# A socket, thread, clock, file or unseeded random call fails this test, and
# so does a GStreamer header among its sources.
set -eu
lib=$1
src=$2

allowed='^(donar_|g_hmac_|g_malloc0?$|g_malloc0?_n$|g_free$|g_realloc$|g_rand_new_with_seed|g_rand_set_seed|g_rand_int|g_rand_double|g_rand_free$|g_assertion_message|g_return_if_fail_warning$|g_strcmp0$|g_array_|g_ptr_array_|g_hash_table_|g_queue_|g_direct_|g_int_|mem(cpy|set|move|cmp)$|explicit_bzero$|str(len|cmp|ncmp)$|qsort$|__stack_chk_fail$|__memcpy_chk$|__memset_chk$|__asan_|__ubsan_|__sanitizer_|_GLOBAL_OFFSET_TABLE_$|__popcount[sd]i2$)'

status=0
for symbol in $(nm -u "$lib" | awk '$1 == "U" {print $2}' | sort -u); do
  if ! [[ $symbol =~ $allowed ]]; then
    echo "not ok: the core calls $symbol"
    status=1
  fi
done
if grep -nE '#include *[<"](gst/|sys/socket|netinet/|pthread|event2/|time\.h|sys/time|unistd)' "$src"/*.c "$src"/*.h; then
  echo "not ok: the core includes an I/O, thread, clock or GStreamer header"
  status=1
fi
[ $status = 0 ] && echo "ok: the core is sans-I/O"
exit $status
