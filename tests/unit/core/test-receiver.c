/* Deduplication with wraparound in bounded memory. */
#include "donar-receiver.h"

static void
test_first_copy_only (void)
{
  DonarReceiver r;

  donar_receiver_reset (&r);
  g_assert_cmpint (donar_receiver_accept (&r, 10), ==, DONAR_RECEIVED_NEW);
  g_assert_cmpint (donar_receiver_accept (&r, 12), ==, DONAR_RECEIVED_NEW);
  g_assert_cmpint (donar_receiver_accept (&r, 11), ==, DONAR_RECEIVED_NEW);
  g_assert_cmpint (donar_receiver_accept (&r, 12), ==,
      DONAR_RECEIVED_DUPLICATE);
  g_assert_cmpint (donar_receiver_accept (&r, 10), ==,
      DONAR_RECEIVED_DUPLICATE);
  g_assert_true (donar_receiver_has (&r, 11));
  g_assert_false (donar_receiver_has (&r, 13));
  /* Below the first number seen, still within the window: new. */
  g_assert_cmpint (donar_receiver_accept (&r, 9), ==, DONAR_RECEIVED_NEW);
}

static void
test_wraparound (void)
{
  DonarReceiver r;

  donar_receiver_reset (&r);
  g_assert_cmpint (donar_receiver_accept (&r, 0xfffffffe), ==,
      DONAR_RECEIVED_NEW);
  g_assert_cmpint (donar_receiver_accept (&r, 1), ==, DONAR_RECEIVED_NEW);
  g_assert_cmpuint (r.highest, ==, 1);
  g_assert_cmpint (donar_receiver_accept (&r, 0xffffffff), ==,
      DONAR_RECEIVED_NEW);
  g_assert_cmpint (donar_receiver_accept (&r, 0), ==, DONAR_RECEIVED_NEW);
  g_assert_cmpint (donar_receiver_accept (&r, 0xfffffffe), ==,
      DONAR_RECEIVED_DUPLICATE);
  g_assert_cmpint (donar_receiver_accept (&r, 0), ==, DONAR_RECEIVED_DUPLICATE);
  /* 0xfffffffe, 0xffffffff, 0 and 1 are in; 3 of them after 0xfffffffe. */
  g_assert_cmpuint (donar_receiver_count_newer (&r, 0xfffffffe), ==, 3);
}

static void
test_bounded_window (void)
{
  DonarReceiver r;

  donar_receiver_reset (&r);
  donar_receiver_accept (&r, 5);
  /* A jump clears what the slots held: 5 + 1024 shares 5's slot. */
  g_assert_cmpint (donar_receiver_accept (&r, 5 + DONAR_RECEIVER_WINDOW), ==,
      DONAR_RECEIVED_NEW);
  g_assert_cmpint (donar_receiver_accept (&r, 5), ==, DONAR_RECEIVED_TOO_OLD);
  g_assert_cmpint (donar_receiver_accept (&r, 6), ==, DONAR_RECEIVED_NEW);
  g_assert_cmpint (donar_receiver_accept (&r, 6), ==, DONAR_RECEIVED_DUPLICATE);

  /* A long run through many windows: each number new exactly once. */
  donar_receiver_reset (&r);
  for (guint32 s = 0; s < 100000; s++) {
    g_assert_cmpint (donar_receiver_accept (&r, s + 7), ==, DONAR_RECEIVED_NEW);
    g_assert_cmpint (donar_receiver_accept (&r, s + 7), ==,
        DONAR_RECEIVED_DUPLICATE);
  }
  g_assert_cmpuint (sizeof r, <=, DONAR_RECEIVER_WINDOW / 8 + 16);
}

/* A number exactly half the space away (found by fuzz-session): its
 * distance is G_MININT32, which must not be negated. */
static void
test_half_the_space_away (void)
{
  DonarReceiver r;

  donar_receiver_reset (&r);
  donar_receiver_accept (&r, 5);
  g_assert_cmpint (donar_receiver_accept (&r, 5 + 0x80000000u), ==,
      DONAR_RECEIVED_TOO_OLD);
  g_assert_cmpuint (donar_receiver_count_newer (&r, 5 + 0x80000000u), ==, 0);
  g_assert_false (donar_receiver_has (&r, 5 + 0x80000000u));
  g_assert_cmpuint (r.highest, ==, 5);
}

static void
test_count_newer (void)
{
  DonarReceiver r;

  donar_receiver_reset (&r);
  g_assert_cmpuint (donar_receiver_count_newer (&r, 3), ==, 0);
  /* Delivered: 1, 2, 4, 5, 7.  After 3: 4, 5, 7. */
  donar_receiver_accept (&r, 1);
  donar_receiver_accept (&r, 2);
  donar_receiver_accept (&r, 4);
  donar_receiver_accept (&r, 5);
  donar_receiver_accept (&r, 7);
  g_assert_cmpuint (donar_receiver_count_newer (&r, 3), ==, 3);
  g_assert_cmpuint (donar_receiver_count_newer (&r, 6), ==, 1);
  g_assert_cmpuint (donar_receiver_count_newer (&r, 7), ==, 0);
  g_assert_cmpuint (donar_receiver_count_newer (&r, 0), ==, 5);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/receiver/first-copy-only", test_first_copy_only);
  g_test_add_func ("/receiver/wraparound", test_wraparound);
  g_test_add_func ("/receiver/bounded-window", test_bounded_window);
  g_test_add_func ("/receiver/count-newer", test_count_newer);
  g_test_add_func ("/receiver/half-the-space-away", test_half_the_space_away);
  return g_test_run ();
}
