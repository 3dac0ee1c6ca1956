/* Trace replay: exact arrivals from a small CSV, failures, bad files. */
#include <glib/gstdio.h>
#include <string.h>

#include "netmodel-test-util.h"

typedef struct
{
  char *dir;
  DonarNetModel *m;
} Fixture;

static void
write_file (const char *dir, const char *name, const char *contents)
{
  char *path = g_build_filename (dir, name, NULL);
  GError *error = NULL;

  g_file_set_contents (path, contents, -1, &error);
  g_assert_no_error (error);
  g_free (path);
}

static void
remove_file (const char *dir, const char *name)
{
  char *path = g_build_filename (dir, name, NULL);

  g_remove (path);
  g_free (path);
}

static void
fixture_set_up (Fixture * f, gconstpointer data)
{
  DonarNetModelParams p;
  GError *error = NULL;

  f->dir = g_dir_make_tmp ("donar-netmodel-XXXXXX", &error);
  g_assert_no_error (error);
  quiet_params (&p, DONAR_SECURITY_DEFAULT);
  f->m = donar_net_model_new_with_params (&p, 3, 1, 0);
}

static void
fixture_tear_down (Fixture * f, gconstpointer data)
{
  GDir *dir = g_dir_open (f->dir, 0, NULL);
  const char *name;

  while ((name = g_dir_read_name (dir)) != NULL)
    remove_file (f->dir, name);
  g_dir_close (dir);
  g_rmdir (f->dir);
  g_free (f->dir);
  donar_net_model_free (f->m);
}

static const char *const good_trace =
    "send_ms,delay_ms\n"
    "# a comment\n"
    "1000,100\n" "2000,250.5\n" "\n" "3000,50\r\n" "4000,\n" "5000,10\n";

static void
test_exact_arrivals (Fixture * f, gconstpointer data)
{
  DonarNetModel *m = f->m;
  GError *error = NULL;
  gint64 base2;

  write_file (f->dir, "link0.csv", good_trace);
  /* Link 1: a trace that never fails.  Link 2: no file, the model. */
  write_file (f->dir, "link1.csv", "0,20\n");
  /* Beyond the model's links: ignored. */
  write_file (f->dir, "link7.csv", "not even a trace");

  g_assert_true (donar_net_model_load_traces (m, f->dir, &error));
  g_assert_no_error (error);
  g_assert_true (donar_net_model_link_is_traced (m, 0));
  g_assert_true (donar_net_model_link_is_traced (m, 1));
  g_assert_false (donar_net_model_link_is_traced (m, 2));
  g_assert_cmpint (donar_net_model_failure_time (m, 0), ==, MS (4000));
  g_assert_cmpint (donar_net_model_failure_time (m, 1), ==, G_MAXINT64);

  /* Before the first row: the first row's delay. */
  g_assert_cmpint (donar_net_model_send (m, 0, 0, MS (500), 172), ==, MS (600));
  g_assert_cmpint (donar_net_model_send (m, 0, 0, MS (1000), 172), ==,
      MS (1100));
  /* Between rows: the earlier row's. */
  g_assert_cmpint (donar_net_model_send (m, 0, 0, MS (1500), 172), ==,
      MS (1600));
  g_assert_cmpint (donar_net_model_send (m, 0, 0, MS (2000), 172), ==,
      MS (2250.5));
  g_assert_cmpint (donar_net_model_send (m, 0, 0, MS (2990), 172), ==,
      MS (3240.5));
  /* 3000 + 50 would overtake 2990's packet: it waits (in order). */
  g_assert_cmpint (donar_net_model_send (m, 0, 0, MS (3000), 172), ==,
      MS (3240.5));
  g_assert_cmpint (donar_net_model_send (m, 0, 0, MS (3300), 172), ==,
      MS (3350));
  /* The other direction has its own order. */
  g_assert_cmpint (donar_net_model_send (m, 0, 1, MS (3300), 172), ==,
      MS (3350));
  /* Would arrive after the failure at 4000: lost in flight. */
  g_assert_cmpint (donar_net_model_peek (m, 0, 0, MS (3960), 172), ==, -1);
  g_assert_cmpint (donar_net_model_peek (m, 0, 0, MS (3940), 172), ==,
      MS (3990));
  /* Failed from 4000 on, even where a later row has a delay. */
  g_assert_cmpint (donar_net_model_send (m, 0, 0, MS (4000), 172), ==, -1);
  g_assert_cmpint (donar_net_model_send (m, 0, 0, MS (5500), 172), ==, -1);

  g_assert_cmpint (donar_net_model_send (m, 1, 0, MS (5500), 172), ==,
      MS (5520));
  base2 = donar_net_model_link_base_delay (m, 2);
  g_assert_cmpint (donar_net_model_send (m, 2, 0, MS (5500), 172), ==,
      MS (5500) + base2);

  /* After a reopen, the link follows the model. */
  donar_net_model_reopen (m, 0, MS (6000));
  g_assert_false (donar_net_model_link_is_traced (m, 0));
  g_assert_cmpint (donar_net_model_failure_time (m, 0), ==, G_MAXINT64);
}

static void
expect_bad_file (Fixture * f, const char *contents, const char *message)
{
  GError *error = NULL;

  write_file (f->dir, "link1.csv", contents);
  g_assert_false (donar_net_model_load_traces (f->m, f->dir, &error));
  g_assert_error (error, DONAR_NET_MODEL_ERROR, DONAR_NET_MODEL_ERROR_BAD_ROW);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "link1.csv:"));
  g_assert_nonnull (strstr (error->message, message));
  g_clear_error (&error);
  /* All or nothing: the good link0.csv was not taken either. */
  g_assert_false (donar_net_model_link_is_traced (f->m, 0));
  g_assert_false (donar_net_model_link_is_traced (f->m, 1));
}

static void
test_bad_rows (Fixture * f, gconstpointer data)
{
  write_file (f->dir, "link0.csv", good_trace);
  expect_bad_file (f, "0,10\n40,abc\n", "link1.csv:2: delay_ms is not a "
      "number: 'abc'");
  expect_bad_file (f, "0,10\n40\n", "link1.csv:2: expected send_ms,delay_ms");
  expect_bad_file (f, "0,10\n\n40,1,2\n", "link1.csv:3: more than 2 fields");
  expect_bad_file (f, "0,10\n40,-1\n", "link1.csv:2: delay_ms is negative");
  expect_bad_file (f, "0,10\n40,5\n40,5\n", "link1.csv:3: send_ms does not "
      "increase");
  expect_bad_file (f, "0,10\n40,5\n30,\n", "link1.csv:3: send_ms does not "
      "increase");
  expect_bad_file (f, "x,10\n", "link1.csv:1: send_ms is not a number");
  expect_bad_file (f, "send_ms,delay_ms\n0,\n", "link1.csv:2: the first row "
      "needs a delay");
  expect_bad_file (f, "# nothing\n", "no rows");
  expect_bad_file (f, "0,10\n40,nan\n", "link1.csv:2: delay_ms is not a "
      "number");
}

static void
test_no_trace (Fixture * f, gconstpointer data)
{
  GError *error = NULL;

  write_file (f->dir, "other.csv", good_trace);
  g_assert_false (donar_net_model_load_traces (f->m, f->dir, &error));
  g_assert_error (error, DONAR_NET_MODEL_ERROR, DONAR_NET_MODEL_ERROR_NO_TRACE);
  g_clear_error (&error);
}

/* Trace times count from the model's origin. */
static void
test_origin (void)
{
  DonarNetModelParams p;
  DonarNetModel *m;
  GError *error = NULL;
  char *dir = g_dir_make_tmp ("donar-netmodel-XXXXXX", &error);
  gint64 origin = S (1e6);

  g_assert_no_error (error);
  write_file (dir, "link0.csv", "0,100\n1000,200\n2000,\n");
  quiet_params (&p, DONAR_SECURITY_1WAY);
  m = donar_net_model_new_with_params (&p, 1, 1, origin);
  g_assert_true (donar_net_model_load_traces (m, dir, &error));
  g_assert_cmpint (donar_net_model_send (m, 0, 0, origin + MS (1000), 172),
      ==, origin + MS (1200));
  g_assert_cmpint (donar_net_model_failure_time (m, 0), ==, origin + MS (2000));
  donar_net_model_free (m);
  remove_file (dir, "link0.csv");
  g_rmdir (dir);
  g_free (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/netmodel/trace/exact-arrivals", Fixture, NULL,
      fixture_set_up, test_exact_arrivals, fixture_tear_down);
  g_test_add ("/netmodel/trace/bad-rows", Fixture, NULL, fixture_set_up,
      test_bad_rows, fixture_tear_down);
  g_test_add ("/netmodel/trace/no-trace", Fixture, NULL, fixture_set_up,
      test_no_trace, fixture_tear_down);
  g_test_add_func ("/netmodel/trace/origin", test_origin);
  return g_test_run ();
}
