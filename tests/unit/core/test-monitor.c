/* The out-of-order metric, missing frames charged to their link, the window
 * mean, and the merge with the peer's aggregate (seed 000, section 4.1). */
#include "donar-monitor.h"

#define W (2 * G_USEC_PER_SEC)

/* A message arrives: the receiver counts the metric before delivering, as
 * the session does. */
static void
arrive (DonarMonitor * m, DonarReceiver * r, guint32 seq, guint link)
{
  guint ooo = donar_receiver_count_newer (r, seq);

  donar_monitor_note_sent (m, seq, link, 0);
  donar_monitor_on_arrival (m, seq, link, ooo);
  donar_receiver_accept (r, seq);
}

/* 12 links, scores merged by their mean, nothing received yet. */
static void
start (DonarMonitor * m, DonarReceiver * r)
{
  donar_monitor_init (m, 12, DONAR_MERGE_MEAN, 2 * W);
  donar_receiver_reset (r);
}

/* The paper's example: frame i arrives on link l after i+1, i+2 and i+3 came
 * on other links: its metric is 3. */
static void
test_paper_example (void)
{
  DonarMonitor m;
  DonarReceiver r;

  start (&m, &r);
  arrive (&m, &r, 100, 0);
  arrive (&m, &r, 102, 1);
  arrive (&m, &r, 103, 2);
  arrive (&m, &r, 104, 3);
  arrive (&m, &r, 101, 4);
  donar_monitor_close_window (&m, &r);
  g_assert_cmpint (donar_monitor_local (&m, 4), ==, 300);
  for (guint link = 0; link < 4; link++)
    g_assert_cmpint (donar_monitor_local (&m, link), ==, 0);
  /* No sample this window: unknown, not good. */
  g_assert_cmpint (donar_monitor_local (&m, 5), ==, DONAR_SCORE_UNKNOWN);
}

/* The mean over the window: samples 3, 0 and 0 on one link give 1 frame,
 * 100 centi-frames. */
static void
test_window_mean (void)
{
  DonarMonitor m;
  DonarReceiver r;

  start (&m, &r);
  arrive (&m, &r, 2, 1);
  arrive (&m, &r, 3, 1);
  arrive (&m, &r, 4, 1);
  arrive (&m, &r, 1, 7);
  arrive (&m, &r, 5, 7);
  arrive (&m, &r, 6, 7);
  donar_monitor_close_window (&m, &r);
  g_assert_cmpint (donar_monitor_local (&m, 7), ==, 100);
  g_assert_cmpint (donar_monitor_local (&m, 1), ==, 0);
  /* A new window starts from nothing. */
  arrive (&m, &r, 7, 1);
  donar_monitor_close_window (&m, &r);
  g_assert_cmpint (donar_monitor_local (&m, 7), ==, DONAR_SCORE_UNKNOWN);
}

/* Frame 10 went on link 2 and never came; 11 (link 4) and 12 (link 6) did,
 * and their recent-links lists said where 10 went.  Link 2 is charged the
 * metric 10 has so far: 2 frames after it were delivered. */
static void
test_missing_frame_charged_to_its_link (void)
{
  DonarMonitor m;
  DonarReceiver r;

  start (&m, &r);
  /* Message 11 on link 4 lists (age 1, link 2). */
  donar_monitor_note_sent (&m, 10, 2, 0);
  arrive (&m, &r, 11, 4);
  /* Message 12 on link 6 lists (age 1, link 4), (age 2, link 2). */
  donar_monitor_note_sent (&m, 11, 4, 0);
  donar_monitor_note_sent (&m, 10, 2, 0);
  arrive (&m, &r, 12, 6);
  donar_monitor_close_window (&m, &r);
  g_assert_cmpint (donar_monitor_local (&m, 2), ==, 200);
  g_assert_cmpint (donar_monitor_local (&m, 4), ==, 0);
  g_assert_cmpint (donar_monitor_local (&m, 6), ==, 0);

  /* Still missing a window later, with 13 in: charged 3 this time. */
  arrive (&m, &r, 13, 4);
  donar_monitor_close_window (&m, &r);
  g_assert_cmpint (donar_monitor_local (&m, 2), ==, 300);

  /* It comes at last: its own metric, 3, and no more charges. */
  arrive (&m, &r, 10, 2);
  donar_monitor_close_window (&m, &r);
  g_assert_cmpint (donar_monitor_local (&m, 2), ==, 300);
  donar_monitor_close_window (&m, &r);
  g_assert_cmpint (donar_monitor_local (&m, 2), ==, DONAR_SCORE_UNKNOWN);
}

/* DOUBLE-SEND: frame 20 went on links 1 and 8; only link 1's copy came. */
static void
test_missing_copy_of_double_send (void)
{
  DonarMonitor m;
  DonarReceiver r;

  start (&m, &r);
  donar_monitor_note_sent (&m, 20, 8, 0);
  arrive (&m, &r, 20, 1);
  arrive (&m, &r, 21, 3);
  donar_monitor_close_window (&m, &r);
  g_assert_cmpint (donar_monitor_local (&m, 1), ==, 0);
  g_assert_cmpint (donar_monitor_local (&m, 8), ==, 100);
}

static void
test_merge (void)
{
  DonarMonitor m;
  DonarReceiver r;
  guint16 remote[12];

  for (guint i = 0; i < 12; i++)
    remote[i] = 0xffff;
  remote[4] = 100;
  remote[5] = 40;

  start (&m, &r);
  arrive (&m, &r, 1, 3);
  arrive (&m, &r, 2, 3);
  arrive (&m, &r, 4, 3);
  arrive (&m, &r, 3, 4);        /* metric 1 on link 4: local 100 + 0 / 2 */
  arrive (&m, &r, 5, 4);
  donar_monitor_close_window (&m, &r);
  donar_monitor_set_remote (&m, remote, 12, 1000);
  g_assert_cmpint (donar_monitor_local (&m, 4), ==, 50);

  /* Both: the mean; local only; remote only; neither. */
  g_assert_cmpint (donar_monitor_score (&m, 4, 1000), ==, 75);
  g_assert_cmpint (donar_monitor_score (&m, 3, 1000), ==, 0);
  g_assert_cmpint (donar_monitor_score (&m, 5, 1000), ==, 40);
  g_assert_cmpint (donar_monitor_score (&m, 6, 1000), ==, DONAR_SCORE_UNKNOWN);

  /* The peer's word expires when it stops refreshing it. */
  g_assert_cmpint (donar_monitor_score (&m, 5, 1000 + 2 * W + 1), ==,
      DONAR_SCORE_UNKNOWN);
  g_assert_cmpint (donar_monitor_score (&m, 4, 1000 + 2 * W + 1), ==, 50);

  m.merge = DONAR_MERGE_LOCAL;
  g_assert_cmpint (donar_monitor_score (&m, 4, 1000), ==, 50);
  g_assert_cmpint (donar_monitor_score (&m, 5, 1000), ==, DONAR_SCORE_UNKNOWN);
  m.merge = DONAR_MERGE_REMOTE;
  g_assert_cmpint (donar_monitor_score (&m, 4, 1000), ==, 100);
  g_assert_cmpint (donar_monitor_score (&m, 3, 1000), ==, DONAR_SCORE_UNKNOWN);
}

static void
test_forget_link (void)
{
  DonarMonitor m;
  DonarReceiver r;

  start (&m, &r);
  donar_monitor_note_sent (&m, 1, 9, 0);
  arrive (&m, &r, 2, 0);
  /* Link 9 closed: its lost frame is not held against the new circuit. */
  donar_monitor_forget_link (&m, 9);
  donar_monitor_close_window (&m, &r);
  g_assert_cmpint (donar_monitor_local (&m, 9), ==, DONAR_SCORE_UNKNOWN);
}

/* Frame 10 went on link 2 and is missing: with 7 frames after it in, no
 * alarm; with 8, link 2 is overdue and reported 8 frames behind at once,
 * until the window closes. */
static void
test_overdue (void)
{
  DonarMonitor m;
  DonarReceiver r;

  start (&m, &r);
  arrive (&m, &r, 9, 1);
  donar_monitor_note_sent (&m, 10, 2, 0);
  for (guint32 seq = 11; seq <= 17; seq++)
    arrive (&m, &r, seq, 3 + seq % 4);
  g_assert_cmpuint (donar_monitor_check_overdue (&m, &r, 8), ==, 0);
  g_assert_cmpint (donar_monitor_reported (&m, 2), ==, DONAR_SCORE_UNKNOWN);
  arrive (&m, &r, 18, 4);
  g_assert_cmpuint (donar_monitor_check_overdue (&m, &r, 8), ==, 1u << 2);
  g_assert_cmpint (donar_monitor_reported (&m, 2), ==, 800);
  /* Alarms off. */
  g_assert_cmpuint (donar_monitor_check_overdue (&m, &r, 0), ==, 0);
  /* It comes: no alarm any more; the window's mean takes over. */
  arrive (&m, &r, 10, 2);
  g_assert_cmpuint (donar_monitor_check_overdue (&m, &r, 8), ==, 0);
  donar_monitor_close_window (&m, &r);
  g_assert_cmpint (donar_monitor_reported (&m, 2), ==, 800);
  g_assert_cmpint (m.alarm[2], ==, 0);
}

/* Link 3 delivered frame 20.  The peer then sent 22 and 24 on it, which
 * never came, while 21 to 30 came on link 5: link 3 is silent from 22,
 * with 8 frames (23 to 30) delivered since.  Frame 19, sent before what
 * link 3 delivered last, came or was dropped at the sender: not silence. */
static void
test_silent_link (void)
{
  DonarMonitor m;
  DonarReceiver r;

  start (&m, &r);
  /* Nothing came on link 3 yet: what the peer names of it may have gone
   * on the connection this one replaced. */
  arrive (&m, &r, 18, 5);
  donar_monitor_note_sent (&m, 17, 3, 0);
  g_assert_cmpuint (donar_monitor_silent_frames (&m, &r, 3), ==, 0);

  arrive (&m, &r, 20, 3);
  donar_monitor_note_sent (&m, 19, 3, 0);
  for (guint32 seq = 21; seq <= 30; seq++) {
    if (seq == 22 || seq == 24)
      donar_monitor_note_sent (&m, seq, 3, 0);
    else
      arrive (&m, &r, seq, 5);
  }
  g_assert_cmpuint (donar_monitor_silent_frames (&m, &r, 3), ==, 8);
  g_assert_cmpuint (donar_monitor_silent_frames (&m, &r, 5), ==, 0);
  /* The peer's later lists name 22 again: still silent from 22. */
  donar_monitor_note_sent (&m, 22, 3, 0);
  g_assert_cmpuint (donar_monitor_silent_frames (&m, &r, 3), ==, 8);

  /* 22 comes late: the link is alive. */
  arrive (&m, &r, 22, 3);
  g_assert_cmpuint (donar_monitor_silent_frames (&m, &r, 3), ==, 0);
  donar_monitor_note_sent (&m, 31, 3, 0);
  arrive (&m, &r, 32, 5);
  arrive (&m, &r, 33, 5);
  g_assert_cmpuint (donar_monitor_silent_frames (&m, &r, 3), ==, 2);

  /* Closed: a new connection starts without the old one's silence, and
   * without its history. */
  donar_monitor_forget_link (&m, 3);
  g_assert_cmpuint (donar_monitor_silent_frames (&m, &r, 3), ==, 0);
  donar_monitor_note_sent (&m, 34, 3, 0);
  arrive (&m, &r, 35, 5);
  g_assert_cmpuint (donar_monitor_silent_frames (&m, &r, 3), ==, 0);
}

/* Silence by both clocks, at 40-ms frames.  At 1 s the peer's list says
 * frame 101 went on link 3, which last delivered 100.  A burst of 250
 * frames (102 to 351, 10 s of frames) comes on link 5 by 2 s, as from a
 * peer catching up after a pause: 1 s of silence, not 10; at 9 s, 8 s.
 * Link 7 delivered 352; at 2 s frame 353 went on it, and then the peer
 * stopped sending altogether: nothing newer came anywhere, so however long
 * that lasts, link 7 is not silent. */
static void
test_silence_by_both_clocks (void)
{
  const gint64 frame = 40 * 1000, s = G_USEC_PER_SEC;
  DonarMonitor m;
  DonarReceiver r;

  start (&m, &r);
  arrive (&m, &r, 100, 3);
  donar_monitor_note_sent (&m, 101, 3, 1 * s);
  for (guint32 seq = 102; seq <= 351; seq++)
    arrive (&m, &r, seq, 5);
  g_assert_cmpuint (donar_monitor_silent_frames (&m, &r, 3), ==, 250);
  g_assert_cmpint (donar_monitor_silence_us (&m, &r, 3, 2 * s, frame), ==,
      1 * s);
  g_assert_cmpint (donar_monitor_silence_us (&m, &r, 3, 9 * s, frame), ==,
      8 * s);
  g_assert_cmpint (donar_monitor_silence_us (&m, &r, 3, 20 * s, frame), ==,
      10 * s);
  g_assert_cmpint (donar_monitor_silence_us (&m, &r, 5, 20 * s, frame), ==, 0);

  arrive (&m, &r, 352, 7);
  donar_monitor_note_sent (&m, 353, 7, 2 * s);
  g_assert_cmpint (donar_monitor_silence_us (&m, &r, 7, 60 * s, frame), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/monitor/paper-example", test_paper_example);
  g_test_add_func ("/monitor/window-mean", test_window_mean);
  g_test_add_func ("/monitor/missing-frame-charged-to-its-link",
      test_missing_frame_charged_to_its_link);
  g_test_add_func ("/monitor/missing-copy-of-double-send",
      test_missing_copy_of_double_send);
  g_test_add_func ("/monitor/merge", test_merge);
  g_test_add_func ("/monitor/forget-link", test_forget_link);
  g_test_add_func ("/monitor/overdue", test_overdue);
  g_test_add_func ("/monitor/silent-link", test_silent_link);
  g_test_add_func ("/monitor/silence-by-both-clocks",
      test_silence_by_both_clocks);
  return g_test_run ();
}
