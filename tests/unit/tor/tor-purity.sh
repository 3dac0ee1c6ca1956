#!/usr/bin/env bash
# The Tor codecs are sans-I/O like the core: their objects may call only
# the functions listed here (GLib data structures, strings and HMAC, libc
# memory and strings).  A socket, thread, clock, file, process or random
# call fails this test, and so does an I/O, thread, clock, libevent or
# GStreamer header among the sources.
set -eu
lib=$1
src=$2

allowed='^(donar_|g_hmac_(new|update|get_digest|unref)$|g_malloc0?$|g_malloc0?_n$|g_new0?$|g_free$|g_realloc$|g_strdup$|g_strndup$|g_strsplit$|g_strfreev$|g_str_has_prefix$|g_str_hash$|g_str_equal$|g_ascii_table$|g_ascii_xdigit_value$|g_string_(new|free|append|append_len|append_c|append_printf|insert_c|truncate)$|g_array_(new|free|append_vals)$|g_ptr_array_(new|new_with_free_func|add|free|unref)$|g_hash_table_(new_full|insert|contains|unref)$|g_assertion_message|g_return_if_fail_warning$|mem(cpy|set|move|cmp|chr)$|explicit_bzero$|str(len|cmp|ncmp|chr)$|__stack_chk_fail$|__memcpy_chk$|__memset_chk$|__asan_|__ubsan_|__sanitizer_|_GLOBAL_OFFSET_TABLE_$)'

status=0
for symbol in $(nm -u "$lib" | awk '$1 == "U" {print $2}' | sort -u); do
  if ! [[ $symbol =~ $allowed ]]; then
    echo "not ok: the Tor codecs call $symbol"
    status=1
  fi
done
if grep -nE '#include *[<"](gst/|gio/|sys/|netinet/|arpa/|netdb|pthread|event2/|time\.h|unistd|fcntl|stdio|signal|poll)' "$src"/*.c "$src"/*.h; then
  echo "not ok: the Tor codecs include an I/O, thread, clock or GStreamer header"
  status=1
fi
[ $status = 0 ] && echo "ok: the Tor codecs are sans-I/O"
exit $status
