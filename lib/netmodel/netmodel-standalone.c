/* One relay of the model on its own, outside a call: what donar-shaper
 * puts in front of a real tor relay (docs/tornet.md).  The same draws as a
 * relay of a call (netmodel-relay.c): base delay, calm and flaky periods,
 * spikes. */
#include "netmodel-private.h"

/* Apart from the identities of a call's objects (donar-netmodel.c), so
 * that a standalone relay is not one of a call's relays by accident. */
#define IDENTITY_STANDALONE (G_GUINT64_CONSTANT (4) << 60)

struct _DonarNetRelay
{
  DonarNetModelParams params;   /* the relay points into it */
  DonarRelay *relay;
};

DonarNetRelay *
donar_net_relay_new (const DonarNetModelParams * params, guint64 seed,
    guint index, gint64 origin_us)
{
  DonarNetRelay *r = g_new0 (DonarNetRelay, 1);

  r->params = *params;
  r->relay = donar_relay_new (&r->params, seed, IDENTITY_STANDALONE | index,
      FALSE, origin_us);
  return r;
}

void
donar_net_relay_free (DonarNetRelay * r)
{
  if (r == NULL)
    return;
  donar_relay_free (r->relay);
  g_free (r);
}

gint64
donar_net_relay_base_delay (DonarNetRelay * r)
{
  return r->relay->base_us;
}

gint64
donar_net_relay_spike_delay (DonarNetRelay * r, gint64 t)
{
  return donar_relay_spike_delay (r->relay, t, TRUE);
}

gdouble
donar_net_relay_bandwidth (DonarNetRelay * r)
{
  return r->relay->bandwidth_bytes_per_s;
}
