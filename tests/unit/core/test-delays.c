/* One-way delays without synchronized clocks, overdue frames and
 * acknowledgements, with every value worked out by hand.
 *
 * The peer's clock runs 3 s behind ours: a message it stamps T ms that
 * takes d ms arrives at our T + 3000 + d ms. */
#include "donar-delays.h"
#include "donar-wire.h"

#define MS 1000
#define PERIOD (40 * MS)

static void
arrive (DonarDelays * d, guint link, guint32 seq, guint32 peer_ms,
    gint64 delay_ms)
{
  donar_delays_on_arrival (d, link, seq, peer_ms,
      ((gint64) peer_ms + 3000 + delay_ms) * MS);
}

static void
test_relative_delays (void)
{
  DonarDelays d;
  gint64 fresh;

  donar_delays_init (&d, 4, PERIOD, 0);
  /* Links 0 and 1 take 100 and 150 ms: the offset learnt is 3100 ms, and
   * link 1 is 50 ms behind link 0, whatever the clocks say. */
  arrive (&d, 0, 10, 1000, 100);
  arrive (&d, 1, 11, 1040, 150);
  g_assert_cmpuint (donar_delays_report (&d, 0, 4200 * MS), ==, 0);
  g_assert_cmpuint (donar_delays_report (&d, 1, 4200 * MS), ==, 50);
  g_assert_cmpint (donar_delays_predict (&d, 1, 4200 * MS, &fresh), ==,
      50 * MS);
  g_assert_cmpint (fresh, ==, 4190 * MS);
  g_assert_cmpint (donar_delays_floor (&d, 1), ==, 50 * MS);
  /* Nothing heard on link 2: nothing to say of it. */
  g_assert_cmpuint (donar_delays_report (&d, 2, 4200 * MS), ==,
      DONAR_WIRE_DELAY_UNKNOWN);
  g_assert_cmpint (donar_delays_predict (&d, 2, 4200 * MS, NULL), ==,
      DONAR_DELAY_UNKNOWN);
  /* A measurement over a second old is not reported as the state now. */
  g_assert_cmpuint (donar_delays_report (&d, 1, 5191 * MS), ==,
      DONAR_WIRE_DELAY_UNKNOWN);
}

static void
test_overdue_frame_grows (void)
{
  DonarDelays d;

  donar_delays_init (&d, 4, PERIOD, 0);
  arrive (&d, 0, 10, 1000, 100);
  arrive (&d, 1, 10, 1000, 150);
  /* Message 12 on link 0 (sent at 1080) says frame 11 went on link 1: it
   * left about one period before, at 1040, and is not in. */
  arrive (&d, 0, 12, 1080, 100);
  donar_delays_note_sent (&d, 1, 12, 1, 1080, 4180 * MS);
  /* At our 4400 it has been on its way 4400 - 1040 - 3100 = 260 ms. */
  g_assert_cmpuint (donar_delays_report (&d, 1, 4400 * MS), ==,
      DONAR_WIRE_DELAY_GROWING | 260);
  g_assert_cmpuint (donar_delays_report (&d, 1, 4500 * MS), ==,
      DONAR_WIRE_DELAY_GROWING | 360);
  /* It comes at 4450, 310 ms above the fastest: no longer overdue. */
  arrive (&d, 1, 11, 1040, 410);
  g_assert_cmpuint (donar_delays_report (&d, 1, 4460 * MS), ==, 310);
  /* A frame the peer names that came already changes nothing. */
  donar_delays_note_sent (&d, 1, 12, 2, 1080, 4470 * MS);
  g_assert_cmpuint (donar_delays_report (&d, 1, 4480 * MS), ==, 310);
}

static void
test_reports_from_the_peer (void)
{
  DonarDelays d;
  guint16 reports[3] = { 20, DONAR_WIRE_DELAY_GROWING | 300,
    DONAR_WIRE_DELAY_UNKNOWN
  };
  gint64 fresh;

  donar_delays_init (&d, 3, PERIOD, 0);
  donar_delays_set_reports (&d, reports, 3, 10000 * MS);
  g_assert_cmpint (donar_delays_predict (&d, 0, 10100 * MS, &fresh), ==,
      20 * MS);
  g_assert_cmpint (fresh, ==, 10000 * MS);
  /* Growing: 100 ms later it is 100 ms worse. */
  g_assert_cmpint (donar_delays_predict (&d, 1, 10100 * MS, NULL), ==,
      400 * MS);
  g_assert_cmpint (donar_delays_predict (&d, 2, 10100 * MS, NULL), ==,
      DONAR_DELAY_UNKNOWN);
  /* A steady report older than a second is no longer the link's state. */
  g_assert_cmpint (donar_delays_predict (&d, 0, 11001 * MS, NULL), ==,
      DONAR_DELAY_UNKNOWN);
}

static void
test_acknowledgements (void)
{
  DonarDelays d;
  guint8 ages[3] = { DONAR_WIRE_ACK_NONE, DONAR_WIRE_ACK_NONE, 0 };

  donar_delays_init (&d, 3, PERIOD, 0);
  arrive (&d, 0, 500, 1900, 100);
  donar_delays_on_send (&d, 2, 100, 5000 * MS);
  donar_delays_on_send (&d, 2, 101, 5040 * MS);
  /* Nothing acknowledged yet: no round trip known, no excess. */
  g_assert_cmpint (donar_delays_in_flight_excess (&d, 2, 5100 * MS), ==, 0);
  g_assert_cmpint (donar_delays_least_round_trip (&d), ==, DONAR_DELAY_UNKNOWN);
  /* The peer's message of 2200 (here at 5300, the fastest way) has frame
   * 100 from link 2: a round trip of 300 ms. */
  arrive (&d, 0, 501, 2200, 100);
  donar_delays_on_acks (&d, 100, ages, 3, 5300 * MS);
  g_assert_cmpint (donar_delays_least_round_trip (&d), ==, 300 * MS);
  g_assert_cmpint (donar_delays_in_flight_excess (&d, 2, 5300 * MS), ==, 0);
  /* Its message of 2400 still lacks frame 101, sent at 5040: by 2400 +
   * 3100 = 5500 the link is 5500 - 5040 - 300 = 160 ms late, even if that
   * message took longer to come (a slow way back is not held against
   * link 2). */
  ages[2] = DONAR_WIRE_ACK_NONE;
  arrive (&d, 1, 502, 2400, 130);
  donar_delays_on_acks (&d, 501, ages, 3, 5530 * MS);
  g_assert_cmpint (donar_delays_in_flight_excess (&d, 2, 5540 * MS), ==,
      160 * MS);
  /* Then silence for more than three periods: from now on, every link we
   * sent on without word counts as late, 5700 - 5040 - 300. */
  g_assert_cmpint (donar_delays_in_flight_excess (&d, 2, 5700 * MS), ==,
      360 * MS);
  /* Frame 101 acknowledged: nothing in flight. */
  ages[2] = 1;
  arrive (&d, 0, 503, 2640, 100);
  donar_delays_on_acks (&d, 102, ages, 3, 5740 * MS);
  g_assert_cmpint (donar_delays_in_flight_excess (&d, 2, 5750 * MS), ==, 0);
  /* Frame 101 took 700 ms: the least stays 300. */
  g_assert_cmpint (donar_delays_least_round_trip (&d), ==, 300 * MS);
  /* What we say of our own: the newest frame of each link behind ack. */
  g_assert_cmpuint (donar_delays_ack_age (&d, 0, 505), ==, 2);
  g_assert_cmpuint (donar_delays_ack_age (&d, 1, 505), ==, 3);
  g_assert_cmpuint (donar_delays_ack_age (&d, 2, 505), ==, DONAR_WIRE_ACK_NONE);
}

static void
test_peer_clock_wraps (void)
{
  DonarDelays d;

  donar_delays_init (&d, 2, PERIOD, 0);
  /* The peer's millisecond clock wraps between two messages 40 ms apart;
   * both took 100 ms: the same delay, not 49 days apart. */
  donar_delays_on_arrival (&d, 0, 1, G_MAXUINT32 - 19, 10000 * MS);
  donar_delays_on_arrival (&d, 1, 2, 20, 10040 * MS);
  g_assert_cmpuint (donar_delays_report (&d, 1, 10050 * MS), ==, 0);
}

/* A peer that jumps its clock 24 days on at every message: the unwrapped
 * clock would pass 2^63 µs after about 4.3 million messages.  It starts
 * over instead, and a sane message afterwards is measured sanely. */
static void
test_peer_clock_runs_away (void)
{
  DonarDelays d;
  guint32 peer_ms = 0;

  donar_delays_init (&d, 2, PERIOD, 0);
  for (guint i = 0; i < 5000000; i++) {
    peer_ms += G_MAXINT32;
    donar_delays_on_arrival (&d, 0, i, peer_ms, 10000 * MS);
  }
  /* 40 ms after the last one, and as fast. */
  donar_delays_on_arrival (&d, 1, 1, peer_ms + 40, 10040 * MS);
  g_assert_cmpuint (donar_delays_report (&d, 1, 10050 * MS), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/delays/relative", test_relative_delays);
  g_test_add_func ("/delays/overdue-frame-grows", test_overdue_frame_grows);
  g_test_add_func ("/delays/reports-from-the-peer", test_reports_from_the_peer);
  g_test_add_func ("/delays/acknowledgements", test_acknowledgements);
  g_test_add_func ("/delays/peer-clock-wraps", test_peer_clock_wraps);
  g_test_add_func ("/delays/peer-clock-runs-away", test_peer_clock_runs_away);
  return g_test_run ();
}
