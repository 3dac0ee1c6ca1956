/* donar-sim's call engine: hand-computed calls over traced links, the
 * whole core at work against slow links, determinism. */
#include "sim-frame-log.h"
#include "sim-report.h"
#include "donar-wire.h"

#include <glib/gstdio.h>
#include <string.h>

#define MS 1000

static gchar *
write_traces (const gint * delays_ms, guint n_links)
{
  GError *error = NULL;
  gchar *dir = g_dir_make_tmp ("donar-sim-XXXXXX", &error);

  g_assert_no_error (error);
  for (guint link = 0; link < n_links; link++) {
    gchar *name = g_strdup_printf ("%s/link%u.csv", dir, link);
    gchar *row = g_strdup_printf ("0,%d\n", delays_ms[link]);

    g_file_set_contents (name, row, -1, &error);
    g_assert_no_error (error);
    g_free (name);
    g_free (row);
  }
  return dir;
}

static void
remove_traces (gchar * dir, guint n_links)
{
  for (guint link = 0; link < n_links; link++) {
    gchar *name = g_strdup_printf ("%s/link%u.csv", dir, link);

    g_unlink (name);
    g_free (name);
  }
  g_rmdir (dir);
  g_free (dir);
}

/* 12 links of 100 ms each, no spike. */
static gchar *
write_even_traces (void)
{
  static const gint delays[12] = { 100, 100, 100, 100, 100, 100,
    100, 100, 100, 100, 100, 100
  };

  return write_traces (delays, 12);
}

/* --cut 5,2: every link of both sides stops from 5 s to 7 s. */
static void
set_cut (SimSettings * s)
{
  s->cut_at_us = 5 * G_USEC_PER_SEC;
  s->cut_duration_us = 2 * G_USEC_PER_SEC;
}

static void
settings_init (SimSettings * s, DonarPolicy policy, gdouble seconds)
{
  memset (s, 0, sizeof *s);
  donar_config_init (&s->config);
  s->config.policy = policy;
  if (policy == DONAR_POLICY_SIMPLE) {
    s->config.n_links = 1;
    s->config.n_1st = 1;
    s->config.n_2nd = 0;
  }
  s->security = DONAR_SECURITY_DEFAULT;
  s->frame_bytes = 172;
  s->duration_us = seconds * G_USEC_PER_SEC;
  s->seed = 1;
  s->deadline_us = 360 * MS;
}

/* Every link 100 ms, no spike: each frame of each policy takes exactly
 * 100 ms, and the bytes on the wire are the message sizes of
 * docs/protocol.md: 63 + 2 * 172 (ALTERNATE: 2 + 19 + 12 scores * 2 + 6
 * recent * 2 + 2 * 3), 75 + 2 * 172 twice a frame (DOUBLE-SEND: 12 recent
 * entries), 87 + 2 * 172 (ADAPTIVE at a budget of 1, which never takes the
 * previous frame's link either: 4 bytes a link instead of the scores' 2),
 * 2 + 19 + 2 + 2 + 3 + 172 = 200 (SIMPLE, one link, no copy: it could only
 * go on the link of the first), and each link's opening: the callee's
 * 20-byte CHALLENGE and a 57-byte HELLO each way. */
static void
test_constant_links (void)
{
  static const gint delays[12] = { 100, 100, 100, 100, 100, 100,
    100, 100, 100, 100, 100, 100
  };
  static const struct
  {
    DonarPolicy policy;
    guint64 bytes_per_frame;
    guint messages_per_frame;
    guint links;
  } cases[] = {
    {DONAR_POLICY_ALTERNATE, 407, 1, 12},
    {DONAR_POLICY_DOUBLE_SEND, 2 * 419, 2, 12},
    {DONAR_POLICY_SIMPLE, 200, 1, 1},
    {DONAR_POLICY_ADAPTIVE, 431, 1, 12},
  };
  gchar *dir = write_traces (delays, 12);

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++) {
    SimSettings s;
    SimCallResult r;
    GError *error = NULL;
    guint64 startup, opening, keepalives;

    settings_init (&s, cases[c].policy, 20);
    s.config.budget = 1.0;
    s.trace_dir = dir;
    g_assert_true (sim_run_call (&s, 0, &r, &error));
    g_assert_no_error (error);
    g_assert_cmpuint (r.n_frames, ==, 500);
    for (guint d = 0; d < 2; d++)
      for (guint f = 0; f < r.n_frames; f++)
        g_assert_cmpint (r.latency_us[d][f], ==, 100 * MS);
    /* The first frame of each side has no predecessor to carry (175 bytes
     * less), and frames 0 to 4 list 1 to 5 recent frames, not 6: 15
     * entries of 2 bytes less for each link a frame takes. */
    startup = cases[c].policy == DONAR_POLICY_SIMPLE ? 0 :
        (175 + 15 * 2 * cases[c].messages_per_frame) *
        cases[c].messages_per_frame;
    /* At a window a link may change groups and take two frames in a row;
     * the second then goes without its predecessor (never on the link of
     * the first copy): at most one such frame a window and direction. */
    opening = (20 + 2 * 57) * cases[c].links;
    /* The caller tells each link's rendezvous point once (the last relay
     * of the path the simulator gives it): 13 bytes. */
    opening += (DONAR_WIRE_PREFIX + DONAR_WIRE_RENDEZVOUS) * cases[c].links;
    /* ADAPTIVE: when the frames stop at 20 s, the peer's last ones still
     * come, and 160 ms later each side sends a keepalive (its latest frame
     * again, no recent list: 2 + 19 + 48 + 3 + 172 = 244 bytes). */
    keepalives = cases[c].policy == DONAR_POLICY_ADAPTIVE ? 2 : 0;
    opening += keepalives * 244;
    g_assert_cmpuint (r.bytes_sent, <=, 2 * (500 * cases[c].bytes_per_frame -
            startup) + opening);
    g_assert_cmpuint (r.bytes_sent, >=, 2 * (500 * cases[c].bytes_per_frame -
            startup - (cases[c].policy == DONAR_POLICY_SIMPLE ? 0 :
                10 * 175)) + opening);
    /* Each link's opening: the CHALLENGE, both HELLOs, the RENDEZVOUS. */
    g_assert_cmpuint (r.messages_sent, ==, 2 * 500 *
        cases[c].messages_per_frame + 4 * cases[c].links + keepalives);
    sim_call_result_clear (&r);
  }
  remove_traces (dir, 12);
}

/* A one-way call (the callee a listener) of 20 s over links of 100 ms,
 * ADAPTIVE at budget 1: every one of the caller's 500 frames takes 100 ms,
 * the callee's direction counts for nothing, and the call is successful.
 * The callee's only messages are its acknowledgements, with no frame: the
 * first 160 ms after its session began (the caller's first frame came at
 * 100 ms), then every 160 ms while the caller's frames come, the last at
 * 20.16 s after the last frame came at 20.06 s: 126 of them.  The caller
 * hears no frame, so it sends no keepalive of its own. */
static void
test_one_way (void)
{
  static const gint delays[12] = { 100, 100, 100, 100, 100, 100,
    100, 100, 100, 100, 100, 100
  };
  gchar *dir = write_traces (delays, 12);
  SimSettings s;
  SimCallResult r;
  SimCallSummary summary;
  GError *error = NULL;

  settings_init (&s, DONAR_POLICY_ADAPTIVE, 20);
  s.config.budget = 1.0;
  s.trace_dir = dir;
  s.one_way = TRUE;
  g_assert_true (sim_run_call (&s, 0, &r, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (r.n_frames, ==, 500);
  for (guint f = 0; f < r.n_frames; f++) {
    g_assert_cmpint (r.latency_us[0][f], ==, 100 * MS);
    g_assert_cmpint (r.latency_us[1][f], ==, SIM_LOST);
  }
  /* The frames, each link's opening (CHALLENGE, two HELLOs, RENDEZVOUS),
   * the acknowledgements. */
  g_assert_cmpuint (r.messages_sent, ==, 500 + 4 * 12 + 126);
  sim_summarize_call (&r, s.deadline_us, 1000 * MS, &summary);
  g_assert_true (summary.successful);
  g_assert_false (summary.dropped);
  g_assert_cmpuint (summary.frames, ==, 500);
  g_assert_cmpuint (summary.lost, ==, 0);
  sim_call_summary_clear (&summary);
  sim_call_result_clear (&r);
  remove_traces (dir, 12);
}

/* Links 0 to 8 take a second, 9 to 11 take 100 ms.  The groups start at
 * random, so slow links carry frames at first; the monitor must find them
 * out within a few windows and put the three fast ones in L1ST.  From then
 * on, ALTERNATE delivers every frame in 100 ms (L1ST), or in 140 ms (a frame
 * on a slow L2ND link, whose copy came with the next frame on L1ST);
 * DOUBLE-SEND always has a fast L1ST copy: 100 ms. */
static void
test_slow_links_are_found_out (void)
{
  static const gint delays[12] = { 1000, 1000, 1000, 1000, 1000, 1000,
    1000, 1000, 1000, 100, 100, 100
  };
  gchar *dir = write_traces (delays, 12);

  /* Both ways, then one way: a callee that only listens tells the caller
   * its scores in messages of their own (docs/protocol.md, *Keepalives*),
   * without which the caller's groups stay as they were drawn. */
  for (guint way = 0; way < 4; way++) {
    DonarPolicy policy = way % 2 == 0 ? DONAR_POLICY_ALTERNATE :
        DONAR_POLICY_DOUBLE_SEND;
    gboolean one_way = way >= 2;
    SimSettings s;
    SimCallResult r;
    GError *error = NULL;
    guint rescued = 0, slow_at_start = 0;

    settings_init (&s, policy, 120);
    s.trace_dir = dir;
    s.one_way = one_way;
    g_assert_true (sim_run_call (&s, 0, &r, &error));
    for (guint d = 0; d < (one_way ? 1 : 2); d++)
      for (guint f = 0; f < r.n_frames; f++) {
        gint32 latency = r.latency_us[d][f];

        /* 10 s: five windows. */
        if (f < 250) {
          slow_at_start += latency > 140 * MS;
          continue;
        }
        if (policy == DONAR_POLICY_DOUBLE_SEND) {
          g_assert_cmpint (latency, ==, 100 * MS);
        } else {
          /* The last frame has no successor to carry its copy. */
          if (f < r.n_frames - 1)
            g_assert_true (latency == 100 * MS || latency == 140 * MS);
          rescued += latency == 140 * MS;
        }
      }
    /* The random start did put slow links to use (one way, the caller's
     * draw alone may have had a fast copy for every frame; the frames
     * after 10 s are what fail without the callee's scores). */
    if (!one_way)
      g_assert_cmpuint (slow_at_start, >, 0);
    if (policy == DONAR_POLICY_ALTERNATE)
      g_assert_cmpuint (rescued, >, 0);
    sim_call_result_clear (&r);
  }
  remove_traces (dir, 12);
}

static void
assert_same_call (const SimCallResult * a, const SimCallResult * b,
    gboolean same)
{
  gboolean equal = a->n_frames == b->n_frames &&
      a->bytes_sent == b->bytes_sent &&
      memcmp (a->latency_us[0], b->latency_us[0],
      a->n_frames * sizeof (gint32)) == 0 &&
      memcmp (a->latency_us[1], b->latency_us[1],
      a->n_frames * sizeof (gint32)) == 0;

  g_assert_true (equal == same);
}

static void
test_determinism (void)
{
  SimSettings s;
  SimCallResult a, b, c;
  GError *error = NULL;

  settings_init (&s, DONAR_POLICY_DOUBLE_SEND, 120);
  g_assert_true (sim_run_call (&s, 3, &a, &error));
  g_assert_true (sim_run_call (&s, 3, &b, &error));
  g_assert_true (sim_run_call (&s, 4, &c, &error));
  assert_same_call (&a, &b, TRUE);
  assert_same_call (&a, &c, FALSE);
  sim_call_result_clear (&a);
  sim_call_result_clear (&b);
  sim_call_result_clear (&c);
}

/* A call's verdicts from latencies set by hand. */
static void
test_summary (void)
{
  SimCallResult r = { 0 };
  SimCallSummary s;

  r.n_frames = 1000;
  for (guint d = 0; d < 2; d++) {
    r.latency_us[d] = g_new (gint32, 1000);
    for (guint f = 0; f < 1000; f++)
      r.latency_us[d][f] = 150 * MS;
  }
  /* 10 late frames of 1000 in one direction: 99 % in time, successful. */
  for (guint f = 0; f < 10; f++)
    r.latency_us[0][f * 50] = 400 * MS;
  sim_summarize_call (&r, 360 * MS, 1000 * MS, &s);
  g_assert_true (s.successful);
  g_assert_false (s.dropped);
  g_assert_cmpint (s.p99_us, ==, 150 * MS);
  sim_call_summary_clear (&s);

  /* One more: 98.9 %, not successful. */
  r.latency_us[0][1] = SIM_LOST;
  sim_summarize_call (&r, 360 * MS, 1000 * MS, &s);
  g_assert_false (s.successful);
  g_assert_cmpuint (s.lost, ==, 1);
  sim_call_summary_clear (&s);

  /* 24 missing in a row is a gap, 25 a dropped call. */
  for (guint f = 0; f < 1000; f++)
    r.latency_us[0][f] = 150 * MS;
  for (guint f = 100; f < 124; f++)
    r.latency_us[1][f] = SIM_LOST;
  sim_summarize_call (&r, 360 * MS, 1000 * MS, &s);
  g_assert_false (s.dropped);
  sim_call_summary_clear (&s);
  r.latency_us[1][124] = 2000 * MS;
  sim_summarize_call (&r, 360 * MS, 1000 * MS, &s);
  g_assert_true (s.dropped);
  sim_call_summary_clear (&s);
  sim_call_result_clear (&r);
}

static gdouble
late_share (const SimCallResult * r, guint first, guint last)
{
  guint late = 0;

  for (guint d = 0; d < 2; d++)
    for (guint f = first; f < last; f++)
      late += r->latency_us[d][f] > 360 * MS;
  return late / (2.0 * (last - first));
}

/* Bulk downloads through both of the caller's guards from 30 s to 90 s: every
 * link goes through one of them, so the frames of that period are late in
 * both directions (the guards' token buckets hold them a second and more),
 * and the call recovers once the backlog has drained. */
static void
test_cross_traffic (void)
{
  SimSettings s;
  SimCallResult quiet, congested;
  GError *error = NULL;

  settings_init (&s, DONAR_POLICY_DOUBLE_SEND, 150);
  g_assert_true (sim_run_call (&s, 0, &quiet, &error));
  g_assert_true (sim_cross_traffic_parse ("30,60,8,100,0,0", s.security,
          &s.cross_traffic[0], &error));
  g_assert_true (sim_cross_traffic_parse ("30,60,8", s.security,
          &s.cross_traffic[1], &error));
  g_assert_no_error (error);
  s.cross_traffic[1].traffic.guard = 1;
  s.n_cross_traffic = 2;
  g_assert_true (sim_run_call (&s, 0, &congested, &error));

  /* Frames 1000 to 2000: 40 s to 80 s. */
  g_assert_cmpfloat (late_share (&quiet, 1000, 2000), <, 0.1);
  g_assert_cmpfloat (late_share (&congested, 1000, 2000), >, 0.9);
  /* The last 20 s, long after the downloads stopped. */
  g_assert_cmpfloat (late_share (&congested, 3250, 3750), <, 0.1);
  sim_call_result_clear (&quiet);
  sim_call_result_clear (&congested);

  /* Bad specifications. */
  g_assert_false (sim_cross_traffic_parse ("30,60", s.security,
          &s.cross_traffic[0], &error));
  g_clear_error (&error);
  g_assert_false (sim_cross_traffic_parse ("30,0,4", s.security,
          &s.cross_traffic[0], &error));
  g_clear_error (&error);
  g_assert_false (sim_cross_traffic_parse ("30,60,4,100,0,2", s.security,
          &s.cross_traffic[0], &error));
  g_clear_error (&error);
  g_assert_false (sim_cross_traffic_parse ("30,60,4,100,1", DONAR_SECURITY_1WAY,
          &s.cross_traffic[0], &error));
  g_assert_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE);
  g_clear_error (&error);
}

/* --frame-log: each frame of a 2-s ALTERNATE call over 100-ms links is
 * sent every 40 ms and arrives 100 ms later; a frame that never came has
 * no arrival. */
static void
test_frame_log (void)
{
  gchar *dir = write_even_traces ();
  SimSettings s;
  SimCallResult r;
  GError *error = NULL;
  gchar *text, *path;
  gchar **lines;

  settings_init (&s, DONAR_POLICY_ALTERNATE, 2);
  s.trace_dir = dir;
  g_assert_true (sim_run_call (&s, 0, &r, &error));
  r.latency_us[1][3] = SIM_LOST;
  g_assert_true (sim_write_frame_log (dir, 7, &r,
          s.config.frame_period_us, &error));
  g_assert_no_error (error);

  path = g_build_filename (dir, "call7-dir1.csv", NULL);
  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  lines = g_strsplit (text, "\n", -1);
  g_assert_cmpstr (lines[0], ==, "seq,sent_ms,arrival_ms");
  g_assert_cmpstr (lines[1], ==, "0,0.000,100.000");
  g_assert_cmpstr (lines[3], ==, "2,80.000,180.000");
  g_assert_cmpstr (lines[4], ==, "3,120.000,");
  g_assert_cmpstr (lines[50], ==, "49,1960.000,2060.000");
  g_assert_cmpstr (lines[51], ==, "");
  g_strfreev (lines);
  g_free (text);
  g_unlink (path);
  g_free (path);
  path = g_build_filename (dir, "call7-dir0.csv", NULL);
  g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));
  g_unlink (path);
  g_free (path);
  sim_call_result_clear (&r);
  remove_traces (dir, 12);
}

/* --cut 5,2 over 100-ms links: what would arrive during the cut arrives
 * at its end, 7 s, in order; the rest is untouched. */
static void
test_cut (void)
{
  gchar *dir = write_even_traces ();
  SimSettings s;
  SimCallResult r;
  GError *error = NULL;

  settings_init (&s, DONAR_POLICY_ALTERNATE, 10);
  s.trace_dir = dir;
  set_cut (&s);
  g_assert_true (sim_run_call (&s, 0, &r, &error));
  for (guint d = 0; d < 2; d++) {
    /* Frame 122, sent at 4.88 s, is in before the cut. */
    g_assert_cmpint (r.latency_us[d][122], ==, 100 * MS);
    /* Frame 123, sent at 4.92 s, would arrive at 5.02 s: at 7 s. */
    g_assert_cmpint (r.latency_us[d][123], ==, 2080 * MS);
    g_assert_cmpint (r.latency_us[d][125], ==, 2000 * MS);
    /* Frame 172, sent at 6.88 s, would arrive at 6.98 s. */
    g_assert_cmpint (r.latency_us[d][172], ==, 120 * MS);
    g_assert_cmpint (r.latency_us[d][173], ==, 100 * MS);
  }
  g_assert_cmpuint (r.link_failures, ==, 0);
  sim_call_result_clear (&r);
  remove_traces (dir, 12);
}

/* The same cut under ADAPTIVE: every link stops acknowledging at once, so
 * for most of the 2 s no link is known to deliver in time.  The last
 * acknowledgement comes by 5.0 s; the state begins once none has come for
 * a deadline (5.36 s at the earliest) and a link's oldest frame without one
 * is 260 ms (the deadline less half the 200-ms round trip) past its round
 * trip: the frame of 4.92 s, at 5.38 s.  It ends with the first
 * acknowledgement of a frame that crossed the cut: the peer has it at 7.0 s
 * and acknowledges it in its next frame, here by 7.14 s.  So the frames of
 * 5.40 to 7.08 s at least (43 a side), of 5.36 to 7.16 s at most (46).
 * Without the cut, none. */
static void
test_cut_stalls (void)
{
  gchar *dir = write_even_traces ();
  SimSettings s;
  SimCallResult r;
  GError *error = NULL;

  settings_init (&s, DONAR_POLICY_ADAPTIVE, 10);
  s.trace_dir = dir;
  g_assert_true (sim_run_call (&s, 0, &r, &error));
  g_assert_cmpuint (r.stalled_frames, ==, 0);
  sim_call_result_clear (&r);
  set_cut (&s);
  g_assert_true (sim_run_call (&s, 0, &r, &error));
  g_test_message ("stalled frames: %" G_GUINT64_FORMAT, r.stalled_frames);
  g_assert_cmpuint (r.stalled_frames, >=, 2 * 43);
  g_assert_cmpuint (r.stalled_frames, <=, 2 * 46);
  sim_call_result_clear (&r);
  remove_traces (dir, 12);
}

/* A cut fills tor's stream window (here 10 cells, a record each): SIMPLE
 * over one 100-ms link, --cut 5,2.  Frames 123 to 132 (sent from 4.92 s,
 * arriving from 5.02 s) are held until 7 s; frames 133 (5.32 s) to 172
 * (6.88 s, due at 6.98 s) find the window full and are lost, 40 a
 * direction; frame 173 (6.92 s, due at 7.02 s) is past the cut.  The
 * summary's max is frame 123's 2080 ms. */
static void
test_cut_window (void)
{
  static const gint delays[1] = { 100 };
  gchar *dir = write_traces (delays, 1);
  SimSettings s;
  SimCallResult r;
  SimCallSummary summary;
  GError *error = NULL;

  settings_init (&s, DONAR_POLICY_SIMPLE, 10);
  s.trace_dir = dir;
  set_cut (&s);
  s.stream_window_cells = 10;
  g_assert_true (sim_run_call (&s, 0, &r, &error));
  for (guint d = 0; d < 2; d++) {
    g_assert_cmpint (r.latency_us[d][122], ==, 100 * MS);
    g_assert_cmpint (r.latency_us[d][123], ==, 2080 * MS);
    g_assert_cmpint (r.latency_us[d][132], ==, 1720 * MS);
    for (guint f = 133; f <= 172; f++)
      g_assert_cmpint (r.latency_us[d][f], ==, SIM_LOST);
    g_assert_cmpint (r.latency_us[d][173], ==, 100 * MS);
  }
  g_assert_cmpuint (r.records_over_window, ==, 80);
  sim_summarize_call (&r, 360 * MS, 1000 * MS, &summary);
  g_assert_cmpint (summary.max_us, ==, 2080 * MS);
  g_assert_cmpuint (summary.lost, ==, 80);
  g_assert_cmpuint (summary.records_over_window, ==, 80);
  sim_call_summary_clear (&summary);
  sim_call_result_clear (&r);
  remove_traces (dir, 1);
}

/* --kill-link-every 0.5 on a quiet model (no spike, loss or failure of
 * its own): 40 links killed in a 20-s call, and no frame lost: a frame
 * whose link dies under it comes as the copy in the next frame's message,
 * on another link.  (The last frames have no next one to carry them.) */
static void
test_kill_link_every (void)
{
  SimSettings s;
  SimCallResult r;
  GError *error = NULL;

  settings_init (&s, DONAR_POLICY_ALTERNATE, 20);
  s.net_params_set = TRUE;
  donar_net_model_params_init (&s.net_params, DONAR_SECURITY_DEFAULT);
  s.net_params.spike_gap_median_s = 0;
  s.net_params.loss_median = 0;
  s.net_params.guard_failures_per_hour = 0;
  s.net_params.relay_failure_scale_s = 1e12;
  s.kill_every_us = G_USEC_PER_SEC / 2;
  g_assert_true (sim_run_call (&s, 0, &r, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (r.links_killed, >=, 40);
  g_assert_cmpuint (r.link_failures, ==, 0);
  for (guint d = 0; d < 2; d++)
    for (guint f = 0; f + 10 < r.n_frames; f++)
      g_assert_cmpint (r.latency_us[d][f], !=, SIM_LOST);
  sim_call_result_clear (&r);
}

static void
quiet_network (SimSettings * s)
{
  s->net_params_set = TRUE;
  donar_net_model_params_init (&s->net_params, DONAR_SECURITY_DEFAULT);
  s->net_params.spike_gap_median_s = 0;
  s->net_params.loss_median = 0;
  s->net_params.guard_failures_per_hour = 0;
  s->net_params.relay_failure_scale_s = 1e12;
}

/* --guard-failure 20 (or 20,1) on a quiet model (no failure of its own):
 * the links through guard 0 of the caller (or of the callee), as the
 * call's model draws them, fail at 20 s, and only they; their new circuits
 * go through the side's guard 1 and do not fail (lib/netmodel's test
 * checks the guards circuit by circuit).  The session hears of the
 * failures at once, so every frame from 20 s on is delivered; of those in
 * flight on the dead links, a few at most are lost (their copy rode the
 * next frame on another link, unless that one died too). */
static void
check_guard_failure (DonarPolicy policy, const char *spec, guint side)
{
  SimSettings s;
  SimCallResult r;
  GError *error = NULL;
  DonarNetModel *m;
  guint through_0 = 0, lost = 0;

  settings_init (&s, policy, 60);
  quiet_network (&s);
  m = donar_net_model_new_with_params (&s.net_params, s.config.n_links,
      sim_call_seed (s.seed, 0), 0);
  for (guint link = 0; link < s.config.n_links; link++)
    through_0 += donar_net_model_link_guard (m, link, side) == 0;
  donar_net_model_free (m);
  g_assert_cmpuint (through_0, >, 0);
  g_assert_cmpuint (through_0, <, s.config.n_links);

  g_assert_true (sim_guard_failure_parse (spec, &s, &error));
  g_assert_true (s.guard_failure);
  g_assert_cmpint (s.guard_failure_at_us, ==, 20 * G_USEC_PER_SEC);
  g_assert_cmpuint (s.guard_failure_side, ==, side);
  g_assert_true (sim_run_call (&s, 0, &r, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (r.link_failures, ==, through_0);
  for (guint d = 0; d < 2; d++)
    for (guint f = 0; f + 1 < r.n_frames; f++) {
      if (r.latency_us[d][f] == SIM_LOST) {
        /* Sent within a second before the failure. */
        g_assert_cmpuint (f, >=, 475);
        g_assert_cmpuint (f, <, 500);
        lost++;
      } else {
        g_assert_cmpint (r.latency_us[d][f], <, 360 * MS);
      }
    }
  g_test_message ("%s, --guard-failure %s: %u links through guard 0, %u "
      "frames lost", donar_policy_to_string (policy), spec, through_0, lost);
  g_assert_cmpuint (lost, <=, 10);
  sim_call_result_clear (&r);
}

static void
test_guard_failure (void)
{
  for (DonarPolicy policy = DONAR_POLICY_ALTERNATE;
      policy <= DONAR_POLICY_DOUBLE_SEND; policy++) {
    check_guard_failure (policy, "20", 0);
    check_guard_failure (policy, "20,1", 1);
  }
}

/* --peer-restart 10,5 on a quiet model whose circuits take exactly 3 s to
 * build: at 10 s every link breaks; each dials again after backoff (0),
 * 0.25 to 0.5 s, its circuit is ready 3 s later, at 13.25 to 13.5 s, but
 * the callee is down until 15 s: all 12 dials fail.  The next ones come
 * after backoff (1), 0.5 to 1 s, and are ready at 16.75 to 17.5 s: the
 * call is back.  So every frame sent from 10 s to 16.7 s is lost in both
 * directions (the first frame after a link came up carries the one before
 * it, sent 40 ms earlier), every frame sent from 17.5 s on arrives, and so
 * does every frame sent before 9.5 s (within 360 ms, as the links'
 * delays are). */
static void
test_peer_restart (void)
{
  for (DonarPolicy policy = DONAR_POLICY_ALTERNATE;
      policy <= DONAR_POLICY_DOUBLE_SEND; policy++) {
    SimSettings s;
    SimCallResult r;
    GError *error = NULL;

    settings_init (&s, policy, 40);
    quiet_network (&s);
    s.net_params.setup_sigma = 0;
    s.peer_restart = TRUE;
    s.peer_restart_at_us = 10 * G_USEC_PER_SEC;
    s.peer_down_us = 5 * G_USEC_PER_SEC;
    g_assert_true (sim_run_call (&s, 0, &r, &error));
    g_assert_no_error (error);
    g_assert_cmpuint (r.dials_failed, ==, 12);
    g_assert_cmpuint (r.link_failures, ==, 0);
    for (guint d = 0; d < 2; d++) {
      guint f = 250;

      while (r.latency_us[d][f] == SIM_LOST)
        f++;
      g_test_message ("%s, direction %u: first frame back sent at %.2f s",
          donar_policy_to_string (policy), d, f * 0.04);
    }
    for (guint d = 0; d < 2; d++)
      for (guint f = 0; f + 1 < r.n_frames; f++) {
        gint64 sent = (gint64) f * s.config.frame_period_us;

        if (sent < 9500 * MS || sent >= 17500 * MS)
          g_assert_cmpint (r.latency_us[d][f], <, 360 * MS);
        else if (sent >= 10000 * MS && sent < 16700 * MS)
          g_assert_cmpint (r.latency_us[d][f], ==, SIM_LOST);
      }
    sim_call_result_clear (&r);
  }
}

/* Link 0 takes 100 ms but a second from 2 s to 3 s; the others take
 * 200 ms.  The oracle knows it at once: the 25 frames sent in that second
 * go on another link (200 ms), every other frame in 100 ms.  Told it
 * 100 ms late, it sends the frame of 2.00 s into the second of delay; the
 * next two go elsewhere only because it sees that frame's queue (a policy
 * would not), and so do those of 2.12 to 3.08 s, the last three while
 * link 0 is fast again: 27 frames in 200 ms. */
static void
test_oracle_lag (void)
{
  static const gint64 lags_ms[] = { 0, 100 };
  GError *error = NULL;
  gchar *dir = write_traces ((const gint[12]) {
        100, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200
      }, 12);
  gchar *link0 = g_build_filename (dir, "link0.csv", NULL);

  g_file_set_contents (link0, "0,100\n2000,1000\n3000,100\n", -1, &error);
  g_assert_no_error (error);
  for (guint c = 0; c < G_N_ELEMENTS (lags_ms); c++) {
    SimSettings s;
    SimCallResult r;

    settings_init (&s, DONAR_POLICY_ALTERNATE, 5);
    s.oracle = TRUE;
    s.oracle_sends = 1;
    s.oracle_lag_us = lags_ms[c] * MS;
    s.trace_dir = dir;
    g_assert_true (sim_run_call (&s, 0, &r, &error));
    g_assert_no_error (error);
    for (guint d = 0; d < 2; d++)
      for (guint f = 0; f < r.n_frames; f++) {
        gint64 sent_ms = f * 40, expected = 100;

        if (lags_ms[c] == 0 && sent_ms >= 2000 && sent_ms < 3000)
          expected = 200;
        if (lags_ms[c] == 100 && sent_ms == 2000)
          expected = 1000;
        if (lags_ms[c] == 100 && sent_ms > 2000 && sent_ms < 3120)
          expected = 200;
        g_assert_cmpint (r.latency_us[d][f], ==, expected * MS);
      }
    sim_call_result_clear (&r);
  }
  g_free (link0);
  remove_traces (dir, 12);
}

/* --guard-failure AT[,SIDE]: the callee's side needs guards (not 1way). */
static void
test_guard_failure_parse (void)
{
  static const char *const bad[] = { "", "-1", "x", "20,", "20,2",
    "20,1,0", "20,0.5", "20x"
  };
  SimSettings s;
  GError *error = NULL;

  settings_init (&s, DONAR_POLICY_ALTERNATE, 60);
  g_assert_true (sim_guard_failure_parse ("1.5", &s, &error));
  g_assert_no_error (error);
  g_assert_cmpint (s.guard_failure_at_us, ==, 1500 * MS);
  g_assert_cmpuint (s.guard_failure_side, ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    g_assert_false (sim_guard_failure_parse (bad[i], &s, &error));
    g_assert_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE);
    g_clear_error (&error);
  }
  s.security = DONAR_SECURITY_1WAY;
  g_assert_true (sim_guard_failure_parse ("20,0", &s, &error));
  g_assert_false (sim_guard_failure_parse ("20,1", &s, &error));
  g_assert_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE);
  g_clear_error (&error);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sim/constant-links", test_constant_links);
  g_test_add_func ("/sim/one-way", test_one_way);
  g_test_add_func ("/sim/frame-log", test_frame_log);
  g_test_add_func ("/sim/cut", test_cut);
  g_test_add_func ("/sim/cut-stalls", test_cut_stalls);
  g_test_add_func ("/sim/cut-window", test_cut_window);
  g_test_add_func ("/sim/oracle-lag", test_oracle_lag);
  g_test_add_func ("/sim/kill-link-every", test_kill_link_every);
  g_test_add_func ("/sim/guard-failure", test_guard_failure);
  g_test_add_func ("/sim/guard-failure-parse", test_guard_failure_parse);
  g_test_add_func ("/sim/peer-restart", test_peer_restart);
  g_test_add_func ("/sim/slow-links-are-found-out",
      test_slow_links_are_found_out);
  g_test_add_func ("/sim/determinism", test_determinism);
  g_test_add_func ("/sim/summary", test_summary);
  g_test_add_func ("/sim/cross-traffic", test_cross_traffic);
  return g_test_run ();
}
