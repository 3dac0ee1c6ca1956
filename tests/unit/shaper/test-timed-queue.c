/* lib/shaper's timed queue without sockets or clock: chunks leave in the
 * order pushed, none before its due time (nor its hold), each direction on
 * its own, with its bytes counted. */
#include "donar-timed-queue.h"

#define MS 1000

/* Pops direction dir at now_us; the chunk's data (a string here), or NULL
 * when nothing is due. */
static const char *
pop (DonarTimedQueue * q, guint dir, gint64 now_us, gint64 * due_us)
{
  gpointer data = NULL;

  if (!donar_timed_queue_pop_due (q, dir, now_us, &data, due_us))
    return NULL;
  g_assert_nonnull (data);
  return data;
}

static void
test_empty (void)
{
  DonarTimedQueue *q = donar_timed_queue_new (NULL, NULL, NULL);
  gpointer data = GINT_TO_POINTER (1);

  for (guint dir = 0; dir < 2; dir++) {
    g_assert_cmpint (donar_timed_queue_next_due (q, dir), ==, G_MAXINT64);
    g_assert_cmpuint (donar_timed_queue_bytes (q, dir), ==, 0);
    g_assert_false (donar_timed_queue_pop_due (q, dir, G_MAXINT64, &data,
            NULL));
  }
  /* A pop that finds nothing leaves *data alone. */
  g_assert_true (data == GINT_TO_POINTER (1));
  donar_timed_queue_clear (q);
  donar_timed_queue_free (q);
  donar_timed_queue_free (NULL);
}

/* Due at 24 ms: not at 23.999 ms, at 24 ms exactly. */
static void
test_not_early (void)
{
  DonarTimedQueue *q = donar_timed_queue_new (NULL, NULL, NULL);
  gint64 due = 0;

  g_assert_true (donar_timed_queue_push (q, 0, 24 * MS, "a", 5));
  g_assert_cmpint (donar_timed_queue_next_due (q, 0), ==, 24 * MS);
  g_assert_null (pop (q, 0, 0, NULL));
  g_assert_null (pop (q, 0, 24 * MS - 1, NULL));
  g_assert_cmpuint (donar_timed_queue_bytes (q, 0), ==, 5);
  g_assert_cmpstr (pop (q, 0, 24 * MS, &due), ==, "a");
  g_assert_cmpint (due, ==, 24 * MS);
  g_assert_cmpuint (donar_timed_queue_bytes (q, 0), ==, 0);
  g_assert_cmpint (donar_timed_queue_next_due (q, 0), ==, G_MAXINT64);
  g_assert_null (pop (q, 0, 1000 * MS, NULL));
  donar_timed_queue_free (q);
}

/* Pushed a (due 10 ms, 3 bytes), b (30 ms, 4), c (20 ms, 5), d (40 ms,
 * 6): only a becomes the head.  c is due before b but waits behind it. */
static void
test_order (void)
{
  DonarTimedQueue *q = donar_timed_queue_new (NULL, NULL, NULL);
  gint64 due = 0;

  g_assert_true (donar_timed_queue_push (q, 1, 10 * MS, "a", 3));
  g_assert_false (donar_timed_queue_push (q, 1, 30 * MS, "b", 4));
  g_assert_false (donar_timed_queue_push (q, 1, 20 * MS, "c", 5));
  g_assert_false (donar_timed_queue_push (q, 1, 40 * MS, "d", 6));
  g_assert_cmpuint (donar_timed_queue_bytes (q, 1), ==, 18);

  /* At 25 ms: a is out, b is not due, so c stays behind it. */
  g_assert_cmpstr (pop (q, 1, 25 * MS, &due), ==, "a");
  g_assert_cmpint (due, ==, 10 * MS);
  g_assert_null (pop (q, 1, 25 * MS, NULL));
  g_assert_cmpint (donar_timed_queue_next_due (q, 1), ==, 30 * MS);
  g_assert_cmpuint (donar_timed_queue_bytes (q, 1), ==, 15);

  /* At 35 ms: b, then c (due long ago), not d. */
  g_assert_cmpstr (pop (q, 1, 35 * MS, &due), ==, "b");
  g_assert_cmpint (due, ==, 30 * MS);
  g_assert_cmpstr (pop (q, 1, 35 * MS, &due), ==, "c");
  g_assert_cmpint (due, ==, 20 * MS);
  g_assert_null (pop (q, 1, 35 * MS, NULL));
  g_assert_cmpint (donar_timed_queue_next_due (q, 1), ==, 40 * MS);
  g_assert_cmpuint (donar_timed_queue_bytes (q, 1), ==, 6);

  g_assert_cmpstr (pop (q, 1, 40 * MS, NULL), ==, "d");
  g_assert_cmpuint (donar_timed_queue_bytes (q, 1), ==, 0);
  /* Empty again: the next push is a head. */
  g_assert_true (donar_timed_queue_push (q, 1, 50 * MS, "e", 1));
  donar_timed_queue_free (q);
}

/* Direction 0 holds a late chunk; direction 1's early one is not held
 * back by it, and each counts its own bytes and heads. */
static void
test_directions (void)
{
  DonarTimedQueue *q = donar_timed_queue_new (NULL, NULL, NULL);

  g_assert_true (donar_timed_queue_push (q, 0, 500 * MS, "late", 100));
  g_assert_true (donar_timed_queue_push (q, 1, 50 * MS, "early", 7));
  g_assert_false (donar_timed_queue_push (q, 0, 600 * MS, "later", 1));
  g_assert_cmpint (donar_timed_queue_next_due (q, 0), ==, 500 * MS);
  g_assert_cmpint (donar_timed_queue_next_due (q, 1), ==, 50 * MS);
  g_assert_cmpuint (donar_timed_queue_bytes (q, 0), ==, 101);
  g_assert_cmpuint (donar_timed_queue_bytes (q, 1), ==, 7);

  g_assert_null (pop (q, 0, 100 * MS, NULL));
  g_assert_cmpstr (pop (q, 1, 100 * MS, NULL), ==, "early");
  g_assert_cmpuint (donar_timed_queue_bytes (q, 0), ==, 101);
  g_assert_cmpuint (donar_timed_queue_bytes (q, 1), ==, 0);
  g_assert_cmpint (donar_timed_queue_next_due (q, 1), ==, G_MAXINT64);
  g_assert_cmpint (donar_timed_queue_next_due (q, 0), ==, 500 * MS);
  g_assert_cmpstr (pop (q, 0, 500 * MS, NULL), ==, "late");
  donar_timed_queue_free (q);
}

/* A chunk without data (a close) takes its place like any other. */
static void
test_null_data (void)
{
  DonarTimedQueue *q = donar_timed_queue_new (g_free, NULL, NULL);
  gpointer data = GINT_TO_POINTER (1);
  gint64 due = 0;

  donar_timed_queue_push (q, 0, 10 * MS, g_strdup ("bytes"), 5);
  donar_timed_queue_push (q, 0, 12 * MS, NULL, 0);
  g_assert_cmpuint (donar_timed_queue_bytes (q, 0), ==, 5);
  g_assert_true (donar_timed_queue_pop_due (q, 0, 20 * MS, &data, NULL));
  g_assert_cmpstr (data, ==, "bytes");
  g_free (data);
  g_assert_cmpint (donar_timed_queue_next_due (q, 0), ==, 12 * MS);
  g_assert_true (donar_timed_queue_pop_due (q, 0, 20 * MS, &data, &due));
  g_assert_null (data);
  g_assert_cmpint (due, ==, 12 * MS);
  g_assert_cmpint (donar_timed_queue_next_due (q, 0), ==, G_MAXINT64);
  donar_timed_queue_free (q);
}

static guint freed;

static void
count_free (gpointer data)
{
  freed++;
  g_free (data);
}

/* Clearing or freeing with chunks inside frees their data (not the NULL
 * ones) and their bytes. */
static void
test_free_with_chunks (void)
{
  DonarTimedQueue *q = donar_timed_queue_new (count_free, NULL, NULL);

  freed = 0;
  donar_timed_queue_push (q, 0, 10 * MS, g_strdup ("x"), 1);
  donar_timed_queue_push (q, 0, 20 * MS, NULL, 0);
  donar_timed_queue_push (q, 1, 10 * MS, g_strdup ("y"), 2);
  donar_timed_queue_clear (q);
  g_assert_cmpuint (freed, ==, 2);
  for (guint dir = 0; dir < 2; dir++) {
    g_assert_cmpuint (donar_timed_queue_bytes (q, dir), ==, 0);
    g_assert_cmpint (donar_timed_queue_next_due (q, dir), ==, G_MAXINT64);
  }
  /* Cleared, it is empty: the next push is a head again. */
  g_assert_true (donar_timed_queue_push (q, 0, 30 * MS, g_strdup ("z"), 3));
  g_assert_true (donar_timed_queue_push (q, 1, 30 * MS, g_strdup ("w"), 4));
  donar_timed_queue_free (q);
  g_assert_cmpuint (freed, ==, 4);
}

/* The hold: everything until 100 ms (a cut), and a chunk tagged "stalled"
 * until 300 ms, which holds back what is behind it too. */
typedef struct
{
  gint64 cut_until_us;
  gint64 stall_until_us;
} Hold;

static gint64
hold_until (gpointer data, gpointer user_data)
{
  Hold *hold = user_data;
  gint64 until = hold->cut_until_us;

  if (g_strcmp0 (data, "stalled") == 0)
    until = MAX (until, hold->stall_until_us);
  return until;
}

static void
test_hold (void)
{
  Hold hold = { 100 * MS, 300 * MS };
  DonarTimedQueue *q = donar_timed_queue_new (NULL, hold_until, &hold);
  gint64 due = 0;

  donar_timed_queue_push (q, 0, 20 * MS, "a", 1);
  donar_timed_queue_push (q, 0, 150 * MS, "stalled", 1);
  donar_timed_queue_push (q, 0, 160 * MS, "b", 1);
  /* a is due at 20 ms, held to 100 ms. */
  g_assert_cmpint (donar_timed_queue_next_due (q, 0), ==, 100 * MS);
  g_assert_null (pop (q, 0, 100 * MS - 1, NULL));
  g_assert_cmpstr (pop (q, 0, 100 * MS, &due), ==, "a");
  /* The due time given back is the one it was pushed with. */
  g_assert_cmpint (due, ==, 20 * MS);
  /* The stalled chunk is held to 300 ms, and b behind it. */
  g_assert_cmpint (donar_timed_queue_next_due (q, 0), ==, 300 * MS);
  g_assert_null (pop (q, 0, 200 * MS, NULL));
  /* The hold is asked again each time: the stall ends earlier. */
  hold.stall_until_us = 170 * MS;
  g_assert_cmpint (donar_timed_queue_next_due (q, 0), ==, 170 * MS);
  g_assert_cmpstr (pop (q, 0, 200 * MS, NULL), ==, "stalled");
  g_assert_cmpstr (pop (q, 0, 200 * MS, NULL), ==, "b");
  /* A new cut holds a chunk already due. */
  hold.cut_until_us = 500 * MS;
  donar_timed_queue_push (q, 1, 210 * MS, "c", 1);
  g_assert_cmpint (donar_timed_queue_next_due (q, 1), ==, 500 * MS);
  g_assert_null (pop (q, 1, 499 * MS, NULL));
  g_assert_cmpstr (pop (q, 1, 500 * MS, NULL), ==, "c");
  donar_timed_queue_free (q);
}

static void
append_data (gpointer data, gpointer user_data)
{
  GString *seen = user_data;

  g_string_append (seen, data);
}

/* foreach visits one direction, head first. */
static void
test_foreach (void)
{
  DonarTimedQueue *q = donar_timed_queue_new (NULL, NULL, NULL);
  GString *seen = g_string_new (NULL);

  donar_timed_queue_push (q, 0, 30 * MS, "a", 1);
  donar_timed_queue_push (q, 1, 10 * MS, "x", 1);
  donar_timed_queue_push (q, 0, 20 * MS, "b", 1);
  donar_timed_queue_push (q, 0, 40 * MS, "c", 1);
  donar_timed_queue_foreach (q, 0, append_data, seen);
  g_assert_cmpstr (seen->str, ==, "abc");
  g_string_truncate (seen, 0);
  donar_timed_queue_foreach (q, 1, append_data, seen);
  g_assert_cmpstr (seen->str, ==, "x");
  g_string_free (seen, TRUE);
  donar_timed_queue_free (q);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/shaper/timed-queue/empty", test_empty);
  g_test_add_func ("/shaper/timed-queue/not-early", test_not_early);
  g_test_add_func ("/shaper/timed-queue/order", test_order);
  g_test_add_func ("/shaper/timed-queue/directions", test_directions);
  g_test_add_func ("/shaper/timed-queue/null-data", test_null_data);
  g_test_add_func ("/shaper/timed-queue/free-with-chunks",
      test_free_with_chunks);
  g_test_add_func ("/shaper/timed-queue/hold", test_hold);
  g_test_add_func ("/shaper/timed-queue/foreach", test_foreach);
  return g_test_run ();
}
