/* The soak (issue 7): one 90-minute call at 25 frames per second, in
 * virtual time, through donar-sim's call engine: both endpoints run the
 * real session of lib/core over the Tor link model of the Default
 * configuration (its spikes, losses and circuit failures, links reopened
 * as they fail).  The heap is sampled every minute; from the 5th minute to
 * the end it must stay flat.
 *
 * What is measured: the bytes in use on the heap (glibc's mallinfo2 (),
 * uordblks + hblkhd, or AddressSanitizer's own count in a sanitizer build)
 * minus the buffers of donar-sim's records in flight.  Those buffers grow
 * to the longest backlog a link has had (a 60-s spike holds 1500 records of
 * 512 bytes) and never shrink: that is the simulator, not the session, and
 * a long spike late in the call would otherwise look like a leak.
 *
 * Everything else is fixed once the call runs: the session allocates
 * nothing after donar_session_new (); the model's circuits are rebuilt as
 * they fail with relays of the same size (a relay's array of spikes is
 * sized once, lib/netmodel/netmodel-relay.c); the frame latencies are
 * allocated for the whole call at its start.  Measured: 0 bytes of
 * difference from minute 5 to every later minute and to the end, with
 * glibc's per-thread cache off (GLIBC_TUNABLES, set by meson.build: the
 * blocks it holds count as in use) and GSlice off (G_SLICE, GLib < 2.76
 * keeps freed blocks in its own magazines).  Without them, about a
 * kilobyte of cached blocks comes and goes.
 *
 * The tolerance, SOAK_TOLERANCE_BYTES = 4 KiB, is that noise with room to
 * spare.  A leak of one small block a frame (glibc takes 32 bytes for
 * malloc (8)) is 32 B x 25 x 60 x 85 min x 2 sides = 8 MB by the end;
 * 4 KiB catches any leak of a block a minute or more often (a block per
 * 2-s window: 80 KB).  A leak once per link failure (tens a call) is about
 * what this test can see, and a block per call (freed at the end) is
 * not. */
#include "sim-call.h"

#include <string.h>

#if defined(__SANITIZE_ADDRESS__)
#define SOAK_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SOAK_ASAN 1
#endif
#endif

#ifdef SOAK_ASAN
/* The runtime's own count of live bytes (sanitizer/allocator_interface.h,
 * which not every toolchain installs). */
size_t __sanitizer_get_current_allocated_bytes (void);
#else
#include <malloc.h>
#endif

#define SOAK_MINUTES 90
#define SOAK_FROM_MINUTE 5
#define SOAK_TOLERANCE_BYTES 4096

typedef struct
{
  guint n;
  gint64 now[SOAK_MINUTES + 2];
  gint64 heap[SOAK_MINUTES + 2];        /* minus the records in flight */
  guint frames[SOAK_MINUTES + 2];
} Samples;

static gint64
heap_in_use (void)
{
#ifdef SOAK_ASAN
  return __sanitizer_get_current_allocated_bytes ();
#else
  struct mallinfo2 info = mallinfo2 ();

  return info.uordblks + info.hblkhd;
#endif
}

static void
on_probe (const SimProbe * probe, gpointer user_data)
{
  Samples *samples = user_data;

  g_assert_cmpuint (samples->n, <, G_N_ELEMENTS (samples->now));
  samples->now[samples->n] = probe->now;
  samples->heap[samples->n] = heap_in_use () - (gint64) probe->fifo_bytes;
  samples->frames[samples->n] = probe->frames;
  samples->n++;
}

static void
test_soak (void)
{
  SimSettings s;
  SimCallResult r;
  Samples samples;
  GError *error = NULL;
  gint64 base, drift = 0;
  guint delivered = 0, from;

  memset (&s, 0, sizeof s);
  memset (&samples, 0, sizeof samples);
  donar_config_init (&s.config);
  s.config.policy = DONAR_POLICY_DOUBLE_SEND;
  g_assert_cmpint (s.config.frame_period_us, ==, 40000);
  s.security = DONAR_SECURITY_DEFAULT;
  s.frame_bytes = 172;
  s.duration_us = (gint64) SOAK_MINUTES *60 * G_USEC_PER_SEC;
  s.seed = 1;
  s.deadline_us = 360000;
  s.probe_every_us = 60 * G_USEC_PER_SEC;
  s.probe = on_probe;
  s.probe_data = &samples;

  g_assert_true (sim_run_call (&s, 0, &r, &error));
  g_assert_no_error (error);

  /* A sample at every minute from the 1st to the 89th (at its first
   * frame), and one at the end, after the last frame and the drain. */
  g_assert_cmpuint (samples.n, ==, SOAK_MINUTES);
  g_assert_cmpuint (samples.frames[samples.n - 1], ==, SOAK_MINUTES * 1500);
  from = SOAK_FROM_MINUTE - 1;
  g_assert_cmpint (samples.now[from], ==,
      (gint64) SOAK_FROM_MINUTE * 60 * G_USEC_PER_SEC);
  /* The call did carry voice all along. */
  for (guint d = 0; d < 2; d++)
    for (guint f = 0; f < r.n_frames; f++)
      delivered += r.latency_us[d][f] != SIM_LOST;
  g_assert_cmpuint (delivered, >, 2 * r.n_frames * 99 / 100);
  sim_call_result_clear (&r);

  base = samples.heap[from];
  for (guint i = 0; i < samples.n; i++) {
    g_test_message ("%6.1f min: %" G_GINT64_FORMAT " bytes (%+"
        G_GINT64_FORMAT " from minute %d)", samples.now[i] / 6e7,
        samples.heap[i], samples.heap[i] - base, SOAK_FROM_MINUTE);
    if (i >= from)
      drift = MAX (drift, ABS (samples.heap[i] - base));
  }
  g_assert_cmpint (drift, <=, SOAK_TOLERANCE_BYTES);
}

int
main (int argc, char **argv)
{
#ifndef SOAK_ASAN
  /* Every block from the arena, so that the buffers in flight are counted
   * at their requested size plus a chunk header, not in whole pages. */
  mallopt (M_MMAP_THRESHOLD, 64 * 1024 * 1024);
#endif
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sim/soak", test_soak);
  return g_test_run ();
}
