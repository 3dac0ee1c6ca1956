/* donar-shaper measured: the delay it applies, a spike starting and ending
 * on time, both directions, many connections at once, and a peer closing
 * mid-stream.
 *
 * Exact assertions are on what the shaper stamped (its log: when it read a
 * chunk, the delay it took, when the chunk was due).  The clock assertions
 * are loose, so that a loaded machine does not fail them: bytes never
 * arrive before they are due, and not more than LATE_US after. */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "shaper-process.h"
#include "torsim-test-util.h"

#define MS G_GINT64_CONSTANT (1000)
/* How late a write may be on a loaded machine. */
#define LATE_US (500 * MS)
/* How far the delay the shaper took may be from the schedule's. */
#define DELAY_TOLERANCE_US (1 * MS)

/* A relay's schedule as a test states it: base, and one spike or none. */
typedef struct
{
  gint64 base_us;
  gint64 spike_start_us, spike_end_us, spike_extra_us;
} Expected;

static gint64
expected_delay (const Expected * e, gint64 t)
{
  gboolean in_spike = e->spike_start_us <= t && t < e->spike_end_us;

  return e->base_us + (in_spike ? e->spike_extra_us : 0);
}

typedef struct
{
  guint chunks, writes, ends, closes;
  gint64 bytes_in, bytes_out;
  gint64 max_late_us;
} Checked;

/* Every chunk of relay r took the schedule's delay at the time it was
 * read (to DELAY_TOLERANCE_US), was due then unless it queued behind the
 * chunk ahead (FIFO), and was written at or after it was due. */
static Checked
check_events (GArray * events, guint relay, const Expected * e)
{
  GHashTable *last = g_hash_table_new_full (g_int64_hash, g_int64_equal,
      g_free, g_free);
  Checked c = { 0 };

  for (guint i = 0; i < events->len; i++) {
    ShaperEvent *ev = &g_array_index (events, ShaperEvent, i);
    gint64 key = ev->conn * 2 + ev->dir;
    gint64 *previous;

    if (ev->relay != relay)
      continue;
    if (!strcmp (ev->kind, "chunk") || !strcmp (ev->kind, "end")) {
      gint64 due;

      g_assert_cmpint (ev->recv_us, >=, 0);
      g_assert_cmpint (ABS (ev->delay_us - expected_delay (e, ev->recv_us)),
          <=, DELAY_TOLERANCE_US);
      due = ev->recv_us + ev->delay_us;
      previous = g_hash_table_lookup (last, &key);
      g_assert_cmpint (ev->release_us, ==, previous ? MAX (*previous, due)
          : due);
      if (previous == NULL) {
        previous = g_new (gint64, 1);
        g_hash_table_insert (last, g_memdup2 (&key, sizeof key), previous);
      }
      *previous = ev->release_us;
      if (ev->kind[0] == 'c') {
        c.chunks++;
        c.bytes_in += ev->bytes;
      } else {
        c.ends++;
      }
    } else if (!strcmp (ev->kind, "write") || !strcmp (ev->kind, "close")) {
      if (ev->kind[0] == 'w') {
        c.writes++;
        c.bytes_out += ev->bytes;
        g_assert_cmpint (ev->written_us, >=, ev->release_us);
        g_assert_cmpint (ev->written_us - ev->release_us, <=, LATE_US);
        c.max_late_us = MAX (c.max_late_us, ev->written_us - ev->release_us);
      } else {
        c.closes++;
      }
    }
  }
  g_hash_table_unref (last);
  return c;
}

/* The test's clock reads the shaper's (both CLOCK_MONOTONIC). */
static gint64
stamp_now (void)
{
  return g_get_monotonic_time ();
}

/* A shaper with one relay of schedule e (a spike when it has one) to a
 * target that listens on *listener. */
static ShaperProcess *
start_one_relay (const Expected * e, gint * listener)
{
  guint16 target_port;
  gchar *relay, *spike = NULL;
  ShaperProcess *p;

  *listener = tcp_listen (&target_port);
  relay = g_strdup_printf ("0,%u,%" G_GINT64_FORMAT, target_port,
      e->base_us / MS);
  if (e->spike_extra_us > 0)
    spike = g_strdup_printf ("0,%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT
        ",%" G_GINT64_FORMAT, e->spike_start_us / MS,
        (e->spike_end_us - e->spike_start_us) / MS, e->spike_extra_us / MS);
  p = shaper_process_start ((const gchar *[]) {
        "--relay", relay, spike ? "--spike" : NULL, spike, NULL
      });
  g_free (relay);
  g_free (spike);
  return p;
}

static gint64
round_trip_one (gint from, gint to)
{
  gint64 sent = stamp_now (), got;

  write_all (from, &sent, sizeof sent);
  g_assert_true (read_exact (to, &got, sizeof got, TIMEOUT_MS));
  g_assert_cmpint (got, ==, sent);
  return stamp_now () - sent;
}

/* Two relays of one process, each with its own delay, both ways. */
static void
test_delay (void)
{
  const Expected expected[2] = { {.base_us = 40 * MS}, {.base_us = 70 * MS} };
  guint16 target_port[2];
  gint listener[2];
  gchar *relay_args[2];
  ShaperProcess *p;
  GArray *events;

  for (guint r = 0; r < 2; r++) {
    listener[r] = tcp_listen (&target_port[r]);
    relay_args[r] = g_strdup_printf ("0,%u,%" G_GINT64_FORMAT,
        target_port[r], expected[r].base_us / MS);
  }
  p = shaper_process_start ((const gchar *[]) {
        "--relay", relay_args[0], "--relay", relay_args[1], NULL
      });
  for (guint r = 0; r < 2; r++) {
    gint client = tcp_connect (p->ports[r]);
    gint target = tcp_accept (listener[r], TIMEOUT_MS);
    gint64 max_one_way[2] = { 0, 0 };

    for (guint round = 0; round < 10; round++) {
      for (guint dir = 0; dir < 2; dir++) {
        gint64 one_way = dir == 0 ? round_trip_one (client, target) :
            round_trip_one (target, client);

        /* Never early: the same clock, and the bytes were due at recv +
         * delay with recv after the send. */
        g_assert_cmpint (one_way, >=, expected[r].base_us);
        g_assert_cmpint (one_way, <=, expected[r].base_us + LATE_US);
        max_one_way[dir] = MAX (max_one_way[dir], one_way);
      }
    }
    g_test_message ("relay %u (%" G_GINT64_FORMAT " ms): largest one-way "
        "%.2f ms forward, %.2f ms back", r, expected[r].base_us / MS,
        max_one_way[0] / 1e3, max_one_way[1] / 1e3);
    close (client);
    close (target);
  }
  events = shaper_process_stop (p);
  for (guint r = 0; r < 2; r++) {
    Checked c = check_events (events, r, &expected[r]);

    /* 10 stamps each way, read as they came (one chunk each, or fewer if
     * the kernel merged them). */
    g_assert_cmpint (c.bytes_in, ==, 2 * 10 * sizeof (gint64));
    g_assert_cmpint (c.bytes_out, ==, c.bytes_in);
    g_test_message ("relay %u: %u chunks, latest write %.3f ms after due",
        r, c.chunks, c.max_late_us / 1e3);
    close (listener[r]);
    g_free (relay_args[r]);
  }
  g_array_unref (events);
}

/* The spike: sent every 20 ms for 1.4 s, read by a thread. */
#define SPIKE_PERIOD_US (20 * MS)
#define SPIKE_SENDS 70

typedef struct
{
  gint fd;
  gint64 sent_us[SPIKE_SENDS];
  gint64 arrived_us[SPIKE_SENDS];
} SpikeReceiver;

static gpointer
receive_spike (gpointer data)
{
  SpikeReceiver *rx = data;

  for (guint i = 0; i < SPIKE_SENDS; i++) {
    gint64 message[2];

    g_assert_true (read_exact (rx->fd, message, sizeof message, TIMEOUT_MS));
    /* In order: a later message never overtakes an earlier one. */
    g_assert_cmpint (message[0], ==, i);
    rx->sent_us[i] = message[1];
    rx->arrived_us[i] = stamp_now ();
  }
  return NULL;
}

/* A message every SPIKE_PERIOD_US from the shaper's origin through relay 0
 * to the target listening on `listener`, read by a thread into rx; SIGUSR1
 * to the shaper just before the message of signal_at_us (-1: none).  Then
 * stops the shaper: its log's events. */
static GArray *
send_every_period (ShaperProcess * p, gint listener, SpikeReceiver * rx,
    gint64 signal_at_us)
{
  gint client = tcp_connect (p->ports[0]);
  GThread *thread;

  rx->fd = tcp_accept (listener, TIMEOUT_MS);
  thread = g_thread_new ("spike-receiver", receive_spike, rx);
  for (guint i = 0; i < SPIKE_SENDS; i++) {
    gint64 at = p->origin_us + i * SPIKE_PERIOD_US;
    gint64 message[2] = { i, 0 };

    if (at > stamp_now ())
      g_usleep (at - stamp_now ());
    if ((gint64) i * SPIKE_PERIOD_US == signal_at_us)
      g_subprocess_send_signal (p->process, SIGUSR1);
    message[1] = stamp_now ();
    write_all (client, message, sizeof message);
  }
  g_thread_join (thread);
  close (client);
  close (rx->fd);
  close (listener);
  return shaper_process_stop (p);
}

static void
test_spike (void)
{
  /* 20 ms; 220 ms for what is read in [600 ms, 1000 ms). */
  const Expected e = { 20 * MS, 600 * MS, 1000 * MS, 200 * MS };
  SpikeReceiver rx = { 0 };
  gint listener;
  guint before = 0, during = 0, queued = 0, after = 0;
  gint64 max_one_way = 0, last_release = 0;
  ShaperProcess *p;
  GArray *events;
  Checked c;

  p = start_one_relay (&e, &listener);
  events = send_every_period (p, listener, &rx, -1);

  c = check_events (events, 0, &e);
  g_assert_cmpint (c.bytes_in, ==, SPIKE_SENDS * 2 * sizeof (gint64));
  for (guint i = 0; i < events->len; i++) {
    ShaperEvent *ev = &g_array_index (events, ShaperEvent, i);

    if (strcmp (ev->kind, "chunk") != 0)
      continue;
    g_assert_cmpint (ev->release_us, >=, last_release);
    last_release = ev->release_us;
    if (ev->recv_us < e.spike_start_us)
      before++;
    else if (ev->recv_us < e.spike_end_us)
      during++;
    else if (ev->release_us > ev->recv_us + ev->delay_us)
      queued++;                 /* behind the spike's last chunks */
    else
      after++;
  }
  /* The schedule held on each side of both edges (check_events), and each
   * period was seen: before, in the spike, queued behind it once the delay
   * dropped (FIFO), and free again. */
  g_assert_cmpuint (before, >, 0);
  g_assert_cmpuint (during, >, 0);
  g_assert_cmpuint (queued, >, 0);
  g_assert_cmpuint (after, >, 0);

  for (guint i = 0; i < SPIKE_SENDS; i++) {
    gint64 one_way = rx.arrived_us[i] - rx.sent_us[i];
    gint64 sent = rx.sent_us[i] - p->origin_us;

    g_assert_cmpint (one_way, >=, e.base_us);
    max_one_way = MAX (max_one_way, one_way);
    /* Well after the spike and its queue (due by 1220 ms). */
    if (sent >= 1300 * MS)
      g_assert_cmpint (one_way, <=, e.base_us + LATE_US);
  }
  g_assert_cmpint (max_one_way, >=, e.base_us + e.spike_extra_us);
  g_test_message ("chunks: %u before, %u in the spike, %u queued behind it, "
      "%u after; largest one-way %.1f ms; latest write %.3f ms after due",
      before, during, queued, after, max_one_way / 1e3, c.max_late_us / 1e3);
  g_array_unref (events);
}

/* A hold started by SIGUSR1 (--spike-file "0,400,hold"), 300 ms into a
 * message every 20 ms for 1.4 s on a 20-ms relay: every chunk read in the
 * hold is due at its end + 20 ms exactly, none written before; chunks read
 * before or after it take 20 ms; the messages come in order, the first of
 * the hold at least 400 ms late (sent within 20 ms of its start), and those
 * sent 100 ms after its end within the loose bound. */
#define HOLD_AT_US (300 * MS)
#define HOLD_US (400 * MS)

static void
test_hold (void)
{
  const gint64 base_us = 20 * MS;
  SpikeReceiver rx = { 0 };
  gint listener;
  guint16 target_port;
  gchar *relay, *dir, *file;
  gint64 hold_start = -1, hold_end = -1, max_one_way = 0;
  guint before = 0, during = 0, after = 0;
  ShaperProcess *p;
  GArray *events;

  dir = g_dir_make_tmp ("donar-shaper-hold-XXXXXX", NULL);
  g_assert_nonnull (dir);
  file = g_build_filename (dir, "spikes", NULL);
  g_assert_true (g_file_set_contents (file, "# the test's hold\n0,400,hold\n",
          -1, NULL));
  listener = tcp_listen (&target_port);
  relay = g_strdup_printf ("0,%u,20", target_port);
  p = shaper_process_start ((const gchar *[]) {
        "--relay", relay, "--spike-file", file, NULL
      });
  events = send_every_period (p, listener, &rx, HOLD_AT_US);

  for (guint i = 0; i < events->len; i++) {
    ShaperEvent *ev = &g_array_index (events, ShaperEvent, i);

    if (!strcmp (ev->kind, "spike")) {
      g_assert_cmpint (hold_start, ==, -1);
      g_assert_cmpint (ev->relay, ==, 0);
      hold_start = ev->start_us;
      hold_end = ev->end_us;
    }
  }
  /* Started when signalled (the test's clock, loosely), 400 ms long. */
  g_assert_cmpint (hold_start, >=, HOLD_AT_US);
  g_assert_cmpint (hold_start, <=, HOLD_AT_US + LATE_US);
  g_assert_cmpint (hold_end - hold_start, ==, HOLD_US);
  {
    /* The schedule as check_events reads it: a constant extra does not
     * fit a hold, so the chunks are checked here. */
    gint64 last_release = 0;

    for (guint i = 0; i < events->len; i++) {
      ShaperEvent *ev = &g_array_index (events, ShaperEvent, i);

      if (!strcmp (ev->kind, "write")) {
        g_assert_cmpint (ev->written_us, >=, ev->release_us);
        continue;
      }
      if (strcmp (ev->kind, "chunk") != 0)
        continue;
      g_assert_cmpint (ev->release_us, >=, last_release);
      last_release = ev->release_us;
      if (ev->recv_us < hold_start) {
        g_assert_cmpint (ev->delay_us, ==, base_us);
        before++;
      } else if (ev->recv_us < hold_end) {
        g_assert_cmpint (ev->delay_us, ==, hold_end - ev->recv_us + base_us);
        g_assert_cmpint (ev->release_us, ==, hold_end + base_us);
        during++;
      } else {
        g_assert_cmpint (ev->delay_us, ==, base_us);
        g_assert_cmpint (ev->release_us, ==, ev->recv_us + base_us);
        after++;
      }
    }
  }
  /* 400 ms of messages every 20 ms: about 20 read in the hold. */
  g_assert_cmpuint (before, >, 0);
  g_assert_cmpuint (during, >=, 5);
  g_assert_cmpuint (after, >, 0);
  for (guint i = 0; i < SPIKE_SENDS; i++) {
    gint64 one_way = rx.arrived_us[i] - rx.sent_us[i];
    gint64 sent = rx.sent_us[i] - p->origin_us;
    gint64 arrived = rx.arrived_us[i] - p->origin_us;

    g_assert_cmpint (one_way, >=, base_us);
    max_one_way = MAX (max_one_way, one_way);
    /* Nothing sent in the hold comes before its end. */
    if (sent >= hold_start + 1 * MS && sent < hold_end)
      g_assert_cmpint (arrived, >=, hold_end + base_us);
    if (sent >= hold_end + 100 * MS)
      g_assert_cmpint (one_way, <=, base_us + LATE_US);
  }
  g_assert_cmpint (max_one_way, >=, HOLD_US - SPIKE_PERIOD_US);
  g_test_message ("hold at %.1f ms for %.0f ms: chunks %u before, %u in it, "
      "%u after; largest one-way %.1f ms", hold_start / 1e3,
      (hold_end - hold_start) / 1e3, before, during, after,
      max_one_way / 1e3);
  g_array_unref (events);
  g_unlink (file);
  g_rmdir (dir);
  g_free (file);
  g_free (dir);
  g_free (relay);
}

#define MANY 50
#define MANY_BYTES (16 * 1024)

static void
fill (guint8 * buffer, guint id, guint dir)
{
  for (guint i = 0; i < MANY_BYTES; i++)
    buffer[i] = (guint8) (id * 7 + dir * 101 + i);
  memcpy (buffer, &id, sizeof id);
}

/* 50 connections at once, 16 KiB each way on each. */
static void
test_many (void)
{
  const Expected e = {.base_us = 30 * MS };
  gint listener;
  gint clients[MANY], targets[MANY];
  guint8 *sent = g_malloc (MANY_BYTES), *got = g_malloc (MANY_BYTES);
  ShaperProcess *p;
  GArray *events;
  gint64 start;
  Checked c;

  p = start_one_relay (&e, &listener);
  start = stamp_now ();
  for (guint i = 0; i < MANY; i++) {
    clients[i] = tcp_connect (p->ports[0]);
    fill (sent, i, 0);
    write_all (clients[i], sent, MANY_BYTES);
  }
  /* The targets come in any order: the first bytes say which. */
  for (guint i = 0; i < MANY; i++) {
    guint id;

    targets[i] = tcp_accept (listener, TIMEOUT_MS);
    g_assert_cmpint (targets[i], >=, 0);
    g_assert_true (read_exact (targets[i], got, MANY_BYTES, TIMEOUT_MS));
    memcpy (&id, got, sizeof id);
    g_assert_cmpuint (id, <, MANY);
    fill (sent, id, 0);
    g_assert_cmpmem (got, MANY_BYTES, sent, MANY_BYTES);
    fill (sent, id, 1);
    write_all (targets[i], sent, MANY_BYTES);
  }
  for (guint i = 0; i < MANY; i++) {
    g_assert_true (read_exact (clients[i], got, MANY_BYTES, TIMEOUT_MS));
    fill (sent, i, 1);
    g_assert_cmpmem (got, MANY_BYTES, sent, MANY_BYTES);
  }
  g_assert_cmpint (stamp_now () - start, >=, 2 * e.base_us);
  g_test_message ("%u connections, %u KiB each way: %.1f ms", MANY,
      MANY_BYTES / 1024, (stamp_now () - start) / 1e3);
  for (guint i = 0; i < MANY; i++) {
    close (clients[i]);
    close (targets[i]);
  }
  close (listener);
  events = shaper_process_stop (p);
  c = check_events (events, 0, &e);
  g_assert_cmpint (c.bytes_in, ==, (gint64) MANY * 2 * MANY_BYTES);
  g_assert_cmpint (c.bytes_out, ==, c.bytes_in);
  g_test_message ("%u chunks; latest write %.3f ms after due", c.chunks,
      c.max_late_us / 1e3);
  g_array_unref (events);
  g_free (sent);
  g_free (got);
}

#define CLOSE_BYTES (256 * 1024)

/* What `from` sent before it closed all arrives at `to`, then the close,
 * no earlier than the relay's delay after it. */
static void
close_mid_stream (gint from, gint to, gint64 delay_us)
{
  guint8 *data = g_malloc (CLOSE_BYTES), *got = g_malloc (CLOSE_BYTES);
  gint64 closed_at;
  guint8 extra;

  for (guint i = 0; i < CLOSE_BYTES; i++)
    data[i] = (guint8) (i * 13);
  write_all (from, data, CLOSE_BYTES);
  closed_at = stamp_now ();
  close (from);
  g_assert_true (read_exact (to, got, CLOSE_BYTES, TIMEOUT_MS));
  g_assert_cmpmem (got, CLOSE_BYTES, data, CLOSE_BYTES);
  /* An orderly close (EOF), not a reset, and only after the bytes. */
  g_assert_true (read_exact (to, &extra, 0, TIMEOUT_MS));
  g_assert_cmpint (recv (to, &extra, 1, 0), ==, 0);
  g_assert_cmpint (stamp_now () - closed_at, >=, delay_us);
  close (to);
  g_free (data);
  g_free (got);
}

static void
test_close (void)
{
  const Expected e = {.base_us = 100 * MS };
  gint listener;
  ShaperProcess *p;
  GArray *events;
  Checked c;

  p = start_one_relay (&e, &listener);
  for (guint dir = 0; dir < 2; dir++) {
    gint client = tcp_connect (p->ports[0]);
    gint target = tcp_accept (listener, TIMEOUT_MS);

    if (dir == 0)
      close_mid_stream (client, target, e.base_us);
    else
      close_mid_stream (target, client, e.base_us);
  }
  close (listener);
  events = shaper_process_stop (p);
  c = check_events (events, 0, &e);
  g_assert_cmpint (c.bytes_out, ==, 2 * CLOSE_BYTES);
  g_assert_cmpuint (c.ends, >=, 2);
  g_assert_cmpuint (c.closes, ==, 2);
  g_array_unref (events);
}

/* Writes to fd without blocking until it has been full for 200 ms (or 5 s
 * have passed); returns the bytes written. */
static gsize
write_until_full (gint fd)
{
  static guint8 block[64 * 1024];
  gint64 start = stamp_now (), full_since = 0;
  gsize total = 0;

  while (stamp_now () - start < 5000 * MS) {
    gssize n = send (fd, block, sizeof block, MSG_DONTWAIT);

    if (n > 0) {
      total += n;
      full_since = 0;
    } else {
      g_assert_true (errno == EAGAIN || errno == EWOULDBLOCK);
      if (full_since == 0)
        full_since = stamp_now ();
      else if (stamp_now () - full_since >= 200 * MS)
        break;
      g_usleep (5000);
    }
  }
  return total;
}

/* A target that reads nothing: the shaper stops reading the client once
 * --max-pending-kib waits in it, so the client's writes block (TCP's own
 * backpressure) instead of the shaper's memory growing; once the target
 * reads, every byte comes through. */
static void
test_stalled_reader (void)
{
  const Expected e = {.base_us = 10 * MS };
  guint16 target_port;
  gint listener = tcp_listen (&target_port), client, target;
  gchar *relay = g_strdup_printf ("0,%u,10", target_port);
  guint8 *buffer = g_malloc (64 * 1024);
  gsize written, got = 0;
  ShaperProcess *p;
  GArray *events;
  Checked c;

  p = shaper_process_start ((const gchar *[]) {
        "--relay", relay, "--max-pending-kib", "64", NULL
      });
  client = tcp_connect (p->ports[0]);
  target = tcp_accept (listener, TIMEOUT_MS);
  written = write_until_full (client);
  /* Loopback socket buffers (client, shaper both ways, target) hold a few
   * MiB each at most; without the pause the client would write on. */
  g_test_message ("the client wrote %.1f MiB before its writes blocked",
      written / 1048576.0);
  g_assert_cmpuint (written, <, 32 * 1024 * 1024);
  while (got < written) {
    gssize n = recv (target, buffer, 64 * 1024, 0);

    g_assert_cmpint (n, >, 0);
    got += n;
  }
  close (client);
  close (target);
  close (listener);
  events = shaper_process_stop (p);
  c = check_events (events, 0, &e);
  g_assert_cmpint (c.bytes_out, ==, written);
  g_array_unref (events);
  g_free (relay);
  g_free (buffer);
}

/* A target that refuses: the client's connection closes at once (there is
 * nothing to deliver), and the shaper goes on serving. */
static void
test_refused (void)
{
  guint16 closed_port;
  gint listener = tcp_listen (&closed_port), client;
  gchar *relay;
  ShaperProcess *p;
  GArray *events;
  guint refused = 0;

  /* A port that was just free: nothing listens there now. */
  close (listener);
  relay = g_strdup_printf ("0,%u,50", closed_port);
  p = shaper_process_start ((const gchar *[]) {
        "--relay", relay, NULL
      });
  for (guint i = 0; i < 3; i++) {
    client = tcp_connect (p->ports[0]);
    g_assert_true (wait_closed (client, TIMEOUT_MS));
    close (client);
  }
  events = shaper_process_stop (p);
  for (guint i = 0; i < events->len; i++)
    if (!strcmp (g_array_index (events, ShaperEvent, i).kind, "refused"))
      refused++;
  g_assert_cmpuint (refused, ==, 3);
  g_array_unref (events);
  g_free (relay);
}

/* --model: the relay's base delay is lib/netmodel's relay 0 of the seed
 * (spikes turned off with --set, so that the delay is known). */
static void
test_model (void)
{
  DonarNetModelParams params;
  DonarNetRelay *model;
  Expected e = { 0 };
  guint16 target_port;
  gint listener = tcp_listen (&target_port), client, target;
  gchar *relay = g_strdup_printf ("0,%u", target_port);
  ShaperProcess *p;
  GArray *events;
  Checked c;

  donar_net_model_params_init (&params, DONAR_SECURITY_DEFAULT);
  model = donar_net_relay_new (&params, 7, 0, 0);
  e.base_us = donar_net_relay_base_delay (model);
  donar_net_relay_free (model);
  p = shaper_process_start ((const gchar *[]) {
        "--model", "7", "--set", "spike_gap_median_s=0", "--relay", relay,
        NULL
      });
  client = tcp_connect (p->ports[0]);
  target = tcp_accept (listener, TIMEOUT_MS);
  g_assert_cmpint (round_trip_one (client, target), >=, e.base_us);
  g_assert_cmpint (round_trip_one (target, client), >=, e.base_us);
  close (client);
  close (target);
  close (listener);
  events = shaper_process_stop (p);
  c = check_events (events, 0, &e);
  g_assert_cmpuint (c.writes, >=, 2);
  g_test_message ("model relay 0 of seed 7: %.3f ms", e.base_us / 1e3);
  g_array_unref (events);
  g_free (relay);
}

/* --describe: the lines tor-network.sh sets each relay's BandwidthRate
 * from are the model's relays of the seed, the same the shaper runs. */
static void
test_describe (void)
{
  const gchar *argv[] = { g_getenv ("DONAR_SHAPER"), "--model", "7",
    "--describe", "3", NULL
  };
  DonarNetModelParams params;
  gchar *out = NULL;
  gchar **lines;
  gint status;

  g_assert_nonnull (argv[0]);
  g_assert_true (g_spawn_sync (NULL, (gchar **) argv, NULL,
          G_SPAWN_DEFAULT, NULL, NULL, &out, NULL, &status, NULL));
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  lines = g_strsplit (out, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 4);
  donar_net_model_params_init (&params, DONAR_SECURITY_DEFAULT);
  for (guint i = 0; i < 3; i++) {
    DonarNetRelay *model = donar_net_relay_new (&params, 7, i, 0);
    gchar *expected = g_strdup_printf ("relay relay=%u base_us=%"
        G_GINT64_FORMAT " bandwidth_kib=%.1f", i,
        donar_net_relay_base_delay (model),
        donar_net_relay_bandwidth (model) / 1024.0);

    g_assert_cmpstr (lines[i], ==, expected);
    g_free (expected);
    donar_net_relay_free (model);
  }
  g_assert_cmpstr (lines[3], ==, "");
  g_strfreev (lines);
  g_free (out);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/shaper/delay", test_delay);
  g_test_add_func ("/shaper/spike", test_spike);
  g_test_add_func ("/shaper/hold", test_hold);
  g_test_add_func ("/shaper/many", test_many);
  g_test_add_func ("/shaper/close", test_close);
  g_test_add_func ("/shaper/stalled-reader", test_stalled_reader);
  g_test_add_func ("/shaper/refused", test_refused);
  g_test_add_func ("/shaper/model", test_model);
  g_test_add_func ("/shaper/describe", test_describe);
  return g_test_run ();
}
