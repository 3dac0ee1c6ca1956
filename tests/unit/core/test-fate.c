/* Shared fate learned from the links' delays (issue 24), by hand: links
 * that jump together share a relay as far as ADAPTIVE is concerned; a link
 * known calm at that moment does not; a new circuit forgets it. */
#include "donar-fate.h"

#define MS 1000
/* Onsets within 100 ms of each other are one (about a one-way delay). */
#define WINDOW (100 * MS)

static void
test_jump_together (void)
{
  DonarFate fate;

  donar_fate_init (&fate, 4);
  for (guint link = 0; link < 4; link++)
    g_assert_cmphex (donar_fate_together (&fate, link), ==, 1u << link);

  /* Links 0 and 2 jump 60 ms apart (their news came by different ways);
   * link 1, known calm 10 ms before link 2's onset, did not jump. */
  g_assert_false (donar_fate_note (&fate, 0, TRUE, 1000 * MS, 0, WINDOW));
  g_assert_true (donar_fate_note (&fate, 2, TRUE, 1060 * MS, 1u << 1, WINDOW));
  g_assert_cmphex (donar_fate_together (&fate, 0), ==, 0x5);
  g_assert_cmphex (donar_fate_together (&fate, 2), ==, 0x5);
  g_assert_cmphex (donar_fate_together (&fate, 1), ==, 0x2);
  g_assert_cmpuint (fate.joint_onsets, ==, 1);
  g_assert_cmpint (fate.joint_onset_us, ==, 1060 * MS);

  /* Still in the spike: no new onset, nothing changes. */
  g_assert_false (donar_fate_note (&fate, 0, TRUE, 1100 * MS, 0, WINDOW));
  g_assert_cmphex (donar_fate_together (&fate, 0), ==, 0x5);

  /* Link 3 jumps 150 ms after link 2: too late to be the same spike; link
   * 0 was known calm again then, so 3 and 0 do not go together. */
  g_assert_false (donar_fate_note (&fate, 0, FALSE, 1190 * MS, 0, WINDOW));
  g_assert_false (donar_fate_note (&fate, 3, TRUE, 1210 * MS, 1u << 0, WINDOW));
  g_assert_cmphex (donar_fate_together (&fate, 3), ==, 0x8);

  /* A later spike of link 0 while link 2, known at that time, stays calm:
   * the evidence is gone. */
  g_assert_false (donar_fate_note (&fate, 2, FALSE, 1300 * MS, 0, WINDOW));
  g_assert_false (donar_fate_note (&fate, 0, TRUE, 5000 * MS, 1u << 2, WINDOW));
  g_assert_cmphex (donar_fate_together (&fate, 0), ==, 0x1);
  g_assert_cmphex (donar_fate_together (&fate, 2), ==, 0x4);
}

static void
test_new_circuit_forgets (void)
{
  DonarFate fate;

  donar_fate_init (&fate, 3);
  donar_fate_note (&fate, 0, TRUE, 1000 * MS, 0, WINDOW);
  donar_fate_note (&fate, 1, TRUE, 1000 * MS, 0, WINDOW);
  donar_fate_note (&fate, 2, TRUE, 1050 * MS, 0, WINDOW);
  g_assert_cmphex (donar_fate_together (&fate, 0), ==, 0x7);
  /* Link 1 dialed again: a new circuit, maybe through other relays. */
  donar_fate_forget_link (&fate, 1);
  g_assert_cmphex (donar_fate_together (&fate, 0), ==, 0x5);
  g_assert_cmphex (donar_fate_together (&fate, 1), ==, 0x2);
  g_assert_cmphex (donar_fate_together (&fate, 2), ==, 0x5);
  g_assert_false (fate.in_spike[1]);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/fate/jump-together", test_jump_together);
  g_test_add_func ("/fate/new-circuit-forgets", test_new_circuit_forgets);
  return g_test_run ();
}
