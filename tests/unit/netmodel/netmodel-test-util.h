/* Helpers shared by the link model's unit tests. */
#ifndef NETMODEL_TEST_UTIL_H
#define NETMODEL_TEST_UTIL_H

#include "donar-netmodel.h"

#define S(x) ((gint64) ((x) * 1000000.0))
#define MS(x) ((gint64) ((x) * 1000.0))

/* A network without chance: no jitter, spike, loss or failure, so that
 * every arrival is send time + the link's base delay, and what a test adds
 * (a spike, a trace, cross traffic) can be computed by hand. */
static inline void
quiet_params (DonarNetModelParams * p, DonarSecurity security)
{
  donar_net_model_params_init (p, security);
  p->jitter_mean_ms_per_relay = 0.0;
  p->spike_gap_median_s = 0.0;
  p->loss_median = 0.0;
  p->guard_failures_per_hour = 0.0;
  p->relay_failure_scale_s = 0.0;
}

#endif
