/* One call in virtual time: events taken in time order from the frame clock,
 * the records in flight, the sessions' timers and the links' failures. */
#include "sim-call.h"

#include "sim-fifo.h"
#include "sim-heads.h"
#include "donar-backoff.h"
#include "donar-wire.h"

#include <math.h>
#include <string.h>

/* Frames still on their way this long after the last one are lost. */
#define DRAIN_US (10 * G_USEC_PER_SEC)

typedef struct _Call Call;

typedef struct
{
  Call *call;
  guint side;                   /* 0: caller, 1: callee */
} Endpoint;

typedef struct
{
  guint side;                   /* of the sender */
  guint link;
  GBytes *record;
} OpeningRecord;

struct _Call
{
  const SimSettings *settings;
  guint n_links;
  DonarNetModel *net;
  DonarSession *session[2];
  Endpoint endpoint[2];
  SimFifo fifo[2][DONAR_MAX_LINKS];     /* [direction][link] */
  /* The arrival of each FIFO's oldest record, fifo[d][link] at index
   * d * DONAR_MAX_LINKS + link: the event loop would otherwise look at
   * every FIFO at every event, a tenth of the run. */
  SimHeads heads;
  gboolean up[DONAR_MAX_LINKS];
  gint64 ready_at[DONAR_MAX_LINKS];     /* of a link being reopened */
  gint64 now;
  gsize oracle_message_bytes;
  SimCallResult *result;
  gint64 next_kill;             /* G_MAXINT64: no kill to come */
  GRand *fault_rand;
  /* Guard failure and peer restart: G_MAXINT64 once done or never. */
  gint64 guard_failure_at;
  gint64 restart_at;
  gint64 back_at;
  gboolean callee_down;
  guint restarts;
  /* A link broken by the restart waits until ready_at before it dials
   * again (the link engine's backoff); attempt counts its dials since it
   * was last up. */
  gboolean waiting[DONAR_MAX_LINKS];
  guint attempt[DONAR_MAX_LINKS];
  GRand *redial_rand;
  guint8 secret[32];
  /* A link's opening (the CHALLENGE and the HELLOs) crosses at once, as
   * the link comes up: the model's reopening time stands for it, as for
   * tor's circuit and stream.  Its records wait here until set_link has
   * brought both ends up. */
  gboolean opening;
  GQueue opening_records;       /* OpeningRecord */
  guint64 nonces;
  guint64 seed;
  gint64 next_probe;
  guint frames_sent;
  /* Records a cut holds, [direction][link], against the stream window. */
  guint cut_held[2][DONAR_MAX_LINKS];
};

gboolean
sim_cross_traffic_parse (const char *spec, DonarSecurity security,
    SimCrossTraffic * out, GError ** error)
{
  gchar **fields = g_strsplit (spec, ",", -1);
  guint n = g_strv_length (fields);
  gdouble values[6] = { 0, 0, 0, 100, 0, 0 };
  gboolean ok = n >= 3 && n <= 6;

  for (guint i = 0; ok && i < n; i++) {
    gchar *end;

    values[i] = g_ascii_strtod (fields[i], &end);
    ok = *fields[i] != '\0' && *end == '\0' && values[i] >= 0;
  }
  g_strfreev (fields);
  if (!ok || values[1] <= 0 || values[4] > 1 ||
      values[5] >= DONAR_NET_MODEL_GUARDS) {
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "--cross-traffic %s: expected start_s,duration_s,flows[,kib_per_s"
        "[,side 0 or 1[,guard 0 or 1]]] with non-negative numbers", spec);
    return FALSE;
  }
  if (values[4] == 1 && donar_security_path_guards (security) < 2) {
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "--cross-traffic %s: the callee has no guard with --security %s",
        spec, donar_security_to_string (security));
    return FALSE;
  }
  out->start_us = values[0] * G_USEC_PER_SEC;
  out->duration_us = values[1] * G_USEC_PER_SEC;
  out->traffic.n_flows = values[2];
  out->traffic.flow_kib_per_s = values[3];
  out->traffic.side = values[4];
  out->traffic.guard = values[5];
  return TRUE;
}

gboolean
sim_guard_failure_parse (const char *spec, SimSettings * settings,
    GError ** error)
{
  gchar *end = NULL;
  gdouble at = g_ascii_strtod (spec, &end), side = 0;

  if (end != spec && *end == ',') {
    const gchar *field = end + 1;

    side = g_ascii_strtod (field, &end);
    if (end == field)
      side = -1;
  }
  if (end == spec || *end != '\0' || !(at >= 0) || !isfinite (at) ||
      (side != 0 && side != 1)) {
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "--guard-failure %s: expected AT[,SIDE], AT in seconds >= 0, SIDE 0 "
        "(the caller) or 1 (the callee)", spec);
    return FALSE;
  }
  if (side == 1 && donar_security_path_guards (settings->security) < 2) {
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "--guard-failure %s: the callee has no guard with --security %s",
        spec, donar_security_to_string (settings->security));
    return FALSE;
  }
  settings->guard_failure = TRUE;
  settings->guard_failure_at_us = (gint64) (at * G_USEC_PER_SEC);
  settings->guard_failure_side = (guint) side;
  return TRUE;
}

guint64
sim_call_seed (guint64 run_seed, guint index)
{
  /* splitmix64 of the pair: neighbouring seeds and indexes give unrelated
   * calls. */
  guint64 z = run_seed * 0x9e3779b97f4a7c15ull + index + 1;

  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static void
record_latency (Call * call, guint direction, guint32 index, gint64 arrival)
{
  gint64 latency = arrival - (gint64) index *
      call->settings->config.frame_period_us;
  gint32 *slot;

  if (index >= call->result->n_frames)
    return;
  slot = &call->result->latency_us[direction][index];
  if (*slot == SIM_LOST || latency < *slot)
    *slot = MIN (latency, G_MAXINT32 - 1);
}

static void
update_head (Call * call, guint dir, guint link)
{
  const SimRecord *r = sim_fifo_peek (&call->fifo[dir][link]);

  sim_heads_set (&call->heads, dir * DONAR_MAX_LINKS + link,
      r ? r->arrival : G_MAXINT64);
}

static void
push_record (Call * call, guint dir, guint link, gint64 arrival,
    const guint8 * record, gsize length)
{
  SimFifo *fifo = &call->fifo[dir][link];

  sim_fifo_push (fifo, arrival, record, length);
  /* Behind the head, it changes nothing. */
  if (fifo->count == 1)
    update_head (call, dir, link);
}

static void
pop_record (Call * call, guint dir, guint link)
{
  sim_fifo_pop (&call->fifo[dir][link]);
  update_head (call, dir, link);
}

static void
on_send (gpointer user_data, guint link, const guint8 * record, gsize length)
{
  Endpoint *endpoint = user_data;
  Call *call = endpoint->call;
  const SimSettings *s = call->settings;
  gint64 arrival;

  if (call->opening) {
    OpeningRecord *r = g_new (OpeningRecord, 1);

    r->side = endpoint->side;
    r->link = link;
    r->record = g_bytes_new (record, length);
    g_queue_push_tail (&call->opening_records, r);
    call->result->bytes_sent += length;
    call->result->messages_sent++;
    return;
  }
  arrival = donar_net_model_send (call->net, link, endpoint->side, call->now,
      length);

  /* A cut holds back what would arrive during it; the order stays.  Tor
   * reads no more of a stream than its window: beyond it, the record
   * never leaves the sender. */
  if (s->cut_duration_us > 0 && arrival >= s->cut_at_us &&
      arrival < s->cut_at_us + s->cut_duration_us) {
    guint window = s->stream_window_cells ? s->stream_window_cells :
        SIM_STREAM_WINDOW_CELLS;

    if (call->cut_held[endpoint->side][link] >= window) {
      call->result->records_over_window++;
      return;
    }
    call->cut_held[endpoint->side][link]++;
    arrival = s->cut_at_us + s->cut_duration_us;
  }
  call->result->bytes_sent += length;
  call->result->messages_sent++;
  if (call->result->sends)
    g_string_append_printf (call->result->sends, "%u,%" G_GINT64_FORMAT
        ",%u,%d,%d\n", endpoint->side, call->now / s->config.frame_period_us,
        link, donar_net_model_link_guard (call->net, link, 0),
        donar_net_model_link_guard (call->net, link, 1));
  if (arrival >= 0)
    push_record (call, endpoint->side, link, arrival, record, length);
}

static void
on_deliver (gpointer user_data, guint32 seq, const guint8 * frame,
    gsize length, guint link, gboolean piggybacked)
{
  Endpoint *endpoint = user_data;
  guint32 index;

  g_assert (length >= 4);
  index = ((guint32) frame[0] << 24) | (frame[1] << 16) | (frame[2] << 8) |
      frame[3];
  /* The callee (side 1) hears the caller's frames: direction 0. */
  record_latency (endpoint->call, 1 - endpoint->side, index,
      endpoint->call->now);
}

static const DonarCallbacks callbacks =
    { on_send, on_deliver, NULL, NULL, NULL };

/* The session of one side: the callee's is made anew after a restart,
 * with a seed of its own (hence a new epoch) and the same secret. */
static gboolean
session_start (Call * call, guint side, GError ** error)
{
  DonarConfig config = call->settings->config;
  DonarError derror;

  config.seed = (guint32) sim_call_seed (call->seed, side == 0 ? 0 :
      1 + 2 * call->restarts);
  call->session[side] = donar_session_new (&config,
      side == 0 ? DONAR_ROLE_CALLER : DONAR_ROLE_CALLEE, call->secret,
      sizeof call->secret, &callbacks, &call->endpoint[side], call->now,
      &derror);
  if (call->session[side] == NULL) {
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "invalid settings: %s", donar_error_to_string (derror));
    return FALSE;
  }
  return TRUE;
}

static gboolean
call_init (Call * call, const SimSettings * settings, guint index,
    SimCallResult * result, GError ** error)
{
  guint64 seed = sim_call_seed (settings->seed, index);
  guint n_frames = settings->duration_us / settings->config.frame_period_us;

  memset (call, 0, sizeof *call);
  call->settings = settings;
  call->n_links = settings->config.n_links;
  sim_heads_init (&call->heads);
  call->result = result;
  memset (result, 0, sizeof *result);
  result->n_frames = n_frames;
  result->one_way = settings->one_way;
  if (settings->log_sends)
    result->sends = g_string_new ("dir,frame,link,caller_guard,callee_guard\n");
  for (guint d = 0; d < 2; d++) {
    result->latency_us[d] = g_new (gint32, MAX (n_frames, 1));
    for (guint f = 0; f < n_frames; f++)
      result->latency_us[d][f] = SIM_LOST;
  }

  call->net = settings->net_params_set ?
      donar_net_model_new_with_params (&settings->net_params, call->n_links,
      seed, 0) : donar_net_model_new (settings->security, call->n_links, seed);
  if (settings->trace_dir &&
      !donar_net_model_load_traces (call->net, settings->trace_dir, error))
    return FALSE;
  for (guint i = 0; i < settings->n_cross_traffic; i++)
    donar_net_model_add_cross_traffic (call->net,
        settings->cross_traffic[i].start_us,
        settings->cross_traffic[i].duration_us,
        &settings->cross_traffic[i].traffic);

  call->seed = seed;
  for (guint i = 0; i < sizeof call->secret; i++)
    call->secret[i] = (seed >> (8 * (i % 8))) ^ i;
  for (guint side = 0; side < 2; side++) {
    call->endpoint[side].call = call;
    call->endpoint[side].side = side;
    for (guint link = 0; link < call->n_links; link++)
      sim_fifo_init (&call->fifo[side][link]);
    if (!settings->oracle && !session_start (call, side, error))
      return FALSE;
  }
  call->oracle_message_bytes = settings->frame_bytes +
      donar_config_record_overhead (&settings->config, 1);

  for (guint link = 0; link < call->n_links; link++)
    call->ready_at[link] = donar_net_model_ready_time (call->net, link);
  call->next_kill = settings->kill_every_us > 0 ? settings->kill_every_us :
      G_MAXINT64;
  call->fault_rand = g_rand_new_with_seed ((guint32) sim_call_seed (seed, 7));
  call->redial_rand = g_rand_new_with_seed ((guint32) sim_call_seed (seed, 8));
  call->guard_failure_at = settings->guard_failure ?
      settings->guard_failure_at_us : G_MAXINT64;
  call->restart_at = settings->peer_restart ? settings->peer_restart_at_us :
      G_MAXINT64;
  call->back_at = G_MAXINT64;
  call->next_probe = settings->probe_every_us > 0 ?
      settings->probe_every_us : G_MAXINT64;
  return TRUE;
}

static void
call_clear (Call * call)
{
  g_clear_pointer (&call->fault_rand, g_rand_free);
  g_clear_pointer (&call->redial_rand, g_rand_free);
  for (guint side = 0; side < 2; side++) {
    donar_session_free (call->session[side]);
    for (guint link = 0; link < call->n_links; link++)
      sim_fifo_clear (&call->fifo[side][link]);
  }
  donar_net_model_free (call->net);
}

static void
make_frame (guint8 * frame, gsize length, guint32 index)
{
  memset (frame, 0, length);
  frame[0] = index >> 24;
  frame[1] = (index >> 16) & 0xff;
  frame[2] = (index >> 8) & 0xff;
  frame[3] = index & 0xff;
}

/* The oracle: each frame on the `sends` links that will deliver it first,
 * known from the model's future; no protocol, no redundancy.  With a lag,
 * on the links that would have delivered it first had it been sent that
 * much earlier: news of a link takes a one-way delay to come.  It still
 * knows every link, and sees the queue behind its own frames at once,
 * which no policy can. */
static void
oracle_send (Call * call, guint side, guint32 index)
{
  gint64 arrival[DONAR_MAX_LINKS];
  guint sends = call->settings->oracle_sends;
  gint64 seen = MAX (call->now - call->settings->oracle_lag_us, 0);

  for (guint link = 0; link < call->n_links; link++) {
    arrival[link] = call->up[link] ? donar_net_model_peek (call->net, link,
        side, seen, call->oracle_message_bytes) : -1;
    if (arrival[link] >= 0)
      arrival[link] -= seen;
  }
  for (guint s = 0; s < sends; s++) {
    gint best = -1;

    for (guint link = 0; link < call->n_links; link++)
      if (arrival[link] >= 0 && (best < 0 || arrival[link] < arrival[best]))
        best = link;
    if (best < 0)
      return;
    arrival[best] = donar_net_model_send (call->net, best, side, call->now,
        call->oracle_message_bytes);
    call->result->bytes_sent += call->oracle_message_bytes;
    call->result->messages_sent++;
    if (arrival[best] >= 0)
      record_latency (call, side, index, arrival[best]);
    arrival[best] = -1;
  }
}

/* What tor tells each side of a circuit: its own half, whose only relay
 * shared with other links is its guard (the model draws the others anew
 * for every circuit). */
static void
tell_path (Call * call, guint side, guint link)
{
  guint64 relay;
  gint guard = donar_net_model_link_guard (call->net, link, side);

  if (call->settings->paths == SIM_PATHS_NONE ||
      (call->settings->paths == SIM_PATHS_CALLER && side == 1) || guard < 0)
    return;
  relay = 1 + 2 * side + guard;
  donar_session_set_link_path (call->session[side], link, &relay, 1);
}

/* The nonces need not be secret here: nothing replays in a simulation. */
static void
next_nonce (Call * call, guint8 * nonce)
{
  guint64 n = ++call->nonces;

  memset (nonce, 0, DONAR_WIRE_NONCE);
  memcpy (nonce, &n, sizeof n);
}

static void
open_link (Call * call, guint link)
{
  OpeningRecord *r;

  call->opening = TRUE;
  for (guint side = 0; side < 2; side++) {
    guint8 nonce[DONAR_WIRE_NONCE];

    if (call->session[side] == NULL)
      continue;
    next_nonce (call, nonce);
    donar_session_link_up (call->session[side], link, nonce, call->now);
    tell_path (call, side, link);
  }
  while ((r = g_queue_pop_head (&call->opening_records))) {
    DonarSession *peer = call->session[1 - r->side];
    gsize length;
    const guint8 *data = g_bytes_get_data (r->record, &length);

    if (peer && donar_session_receive (peer, link, data, length,
            call->now) != DONAR_OK)
      g_warning ("link %u did not open", link);
    g_bytes_unref (r->record);
    g_free (r);
  }
  call->opening = FALSE;
}

static void
set_link (Call * call, guint link, gboolean up)
{
  call->up[link] = up;
  if (up) {
    open_link (call, link);
    return;
  }
  for (guint side = 0; side < 2; side++)
    if (call->session[side])
      donar_session_link_down (call->session[side], link, call->now);
}

static void
clear_fifos (Call * call, guint link)
{
  for (guint d = 0; d < 2; d++) {
    sim_fifo_clear (&call->fifo[d][link]);
    sim_fifo_init (&call->fifo[d][link]);
    update_head (call, d, link);
  }
}

/* A link that is up, at random, killed: what it carries is lost, a new
 * circuit is built. */
static void
kill_a_link (Call * call)
{
  guint candidates[DONAR_MAX_LINKS], n = 0, link;

  for (link = 0; link < call->n_links; link++)
    if (call->up[link])
      candidates[n++] = link;
  if (n == 0)
    return;
  link = candidates[g_rand_int_range (call->fault_rand, 0, (gint32) n)];
  call->result->links_killed++;
  set_link (call, link, FALSE);
  clear_fifos (call, link);
  call->ready_at[link] = donar_net_model_reopen (call->net, link, call->now);
}

/* The caller dials `link` again after the link engine's backoff. */
static void
wait_to_dial (Call * call, guint link)
{
  call->waiting[link] = TRUE;
  call->ready_at[link] = call->now + donar_backoff_delay (call->attempt[link]++,
      500 * G_TIME_SPAN_MILLISECOND, 30 * G_TIME_SPAN_SECOND,
      g_rand_double (call->redial_rand));
}

/* Guard 0 of the caller or of the callee fails for good.  The links
 * through it that are up fail now (their failure time is now: the next
 * link events), and what they carried is lost; a circuit still being built
 * through it fails too, and tor builds another at once. */
static void
fail_guard (Call * call)
{
  donar_net_model_fail_guard (call->net, call->settings->guard_failure_side,
      0, call->now);
  for (guint link = 0; link < call->n_links; link++) {
    if (donar_net_model_failure_time (call->net, link) != call->now)
      continue;
    if (call->up[link])
      clear_fifos (call, link);
    else if (!call->waiting[link])
      call->ready_at[link] = donar_net_model_reopen (call->net, link,
          call->now);
  }
}

/* The callee's process dies: its session is gone, every link breaks with
 * what it carried, and the caller starts dialing again. */
static void
callee_dies (Call * call)
{
  for (guint link = 0; link < call->n_links; link++) {
    if (call->up[link])
      set_link (call, link, FALSE);
    clear_fifos (call, link);
    /* A link being built or waiting goes on; its dial fails if the
     * callee is still down when its circuit is ready. */
    if (!call->waiting[link] && call->ready_at[link] <= call->now) {
      call->attempt[link] = 0;
      wait_to_dial (call, link);
    }
  }
  g_clear_pointer (&call->session[1], donar_session_free);
  call->callee_down = TRUE;
}

static gboolean
callee_returns (Call * call, GError ** error)
{
  call->callee_down = FALSE;
  call->restarts++;
  return call->settings->oracle || session_start (call, 1, error);
}

static void
probe (Call * call)
{
  SimProbe probe = { call->now, 0, call->frames_sent };

  for (guint d = 0; d < 2; d++)
    for (guint link = 0; link < call->n_links; link++)
      probe.fifo_bytes += call->fifo[d][link].capacity * sizeof (SimRecord);
  call->settings->probe (&probe, call->settings->probe_data);
}

/* The next failure of a link that is up or the next ready time of one
 * being reopened. */
static gint64
next_link_event (const Call * call, guint * event_link)
{
  gint64 next = G_MAXINT64;

  for (guint link = 0; link < call->n_links; link++) {
    gint64 t = call->up[link] ?
        donar_net_model_failure_time (call->net, link) : call->ready_at[link];

    if (t < next) {
      next = t;
      *event_link = link;
    }
  }
  return next;
}

typedef enum
{
  EVENT_ARRIVAL,
  EVENT_KILL,
  EVENT_FAULT,
  EVENT_LINK,
  EVENT_TIMER,
  EVENT_FRAME
} EventKind;

/* Which event comes next and when (`at`): the earliest of a record's
 * arrival (from FIFO `fifo`), a kill, a fault, a link's event (at t_link),
 * a session's timer (of side timer_side) and the next frame (at t_frame). */
static EventKind
next_event (Call * call, gint64 t_frame, gint64 t_link, guint * fifo,
    gint * timer_side, gint64 * at)
{
  gint64 t_arrival = sim_heads_earliest (&call->heads, fifo);
  gint64 t_kill = call->next_kill, t_timer = G_MAXINT64;
  gint64 t_fault = MIN (call->guard_failure_at, MIN (call->restart_at,
          call->back_at));

  for (guint side = 0; side < 2; side++)
    if (call->session[side] &&
        donar_session_get_expiry (call->session[side]) < t_timer) {
      t_timer = donar_session_get_expiry (call->session[side]);
      *timer_side = side;
    }

  /* At equal times: what arrives, then what is killed, the faults,
   * what breaks or comes up, then the timers, then the new frames. */
  if (t_arrival <= t_link && t_arrival <= t_kill && t_arrival <= t_fault &&
      t_arrival <= t_timer && t_arrival <= t_frame) {
    *at = t_arrival;
    return EVENT_ARRIVAL;
  }
  if (t_kill <= t_fault && t_kill <= t_link && t_kill <= t_timer &&
      t_kill <= t_frame) {
    *at = t_kill;
    return EVENT_KILL;
  }
  if (t_fault <= t_link && t_fault <= t_timer && t_fault <= t_frame) {
    *at = t_fault;
    return EVENT_FAULT;
  }
  if (t_link <= t_timer && t_link <= t_frame) {
    *at = t_link;
    return EVENT_LINK;
  }
  if (t_timer <= t_frame) {
    *at = t_timer;
    return EVENT_TIMER;
  }
  *at = t_frame;
  return EVENT_FRAME;
}

/* The oldest record of FIFO `fifo` reaches the other side's session. */
static void
receive_record (Call * call, gint64 at, guint fifo)
{
  guint dir = fifo / DONAR_MAX_LINKS, link = fifo % DONAR_MAX_LINKS;
  const SimRecord *r = sim_fifo_peek (&call->fifo[dir][link]);
  DonarError derror;

  call->now = at;
  derror = donar_session_receive (call->session[1 - dir], link, r->data,
      r->length, call->now);
  if (derror != DONAR_OK)
    g_error ("simulated link %d rejected a record: %s", link,
        donar_error_to_string (derror));
  pop_record (call, dir, link);
}

/* The guard failure, the callee's death or its return, whichever is due. */
static gboolean
handle_fault (Call * call, gint64 at, GError ** error)
{
  call->now = MAX (call->now, at);
  if (at == call->guard_failure_at) {
    call->guard_failure_at = G_MAXINT64;
    fail_guard (call);
  } else if (at == call->restart_at) {
    call->restart_at = G_MAXINT64;
    call->back_at = call->now + call->settings->peer_down_us;
    callee_dies (call);
  } else {
    call->back_at = G_MAXINT64;
    return callee_returns (call, error);
  }
  return TRUE;
}

/* A link that is up fails; one being reopened is ready, or waits, or
 * finds nobody at the other end. */
static void
handle_link_event (Call * call, gint64 at, guint link)
{
  call->now = MAX (call->now, at);
  if (call->up[link]) {
    call->result->link_failures++;
    set_link (call, link, FALSE);
    call->ready_at[link] = donar_net_model_reopen (call->net, link, call->now);
  } else if (call->waiting[link]) {
    call->waiting[link] = FALSE;
    call->ready_at[link] = donar_net_model_reopen (call->net, link, call->now);
  } else if (call->callee_down) {
    /* Nobody at the other end of the new circuit. */
    call->result->dials_failed++;
    wait_to_dial (call, link);
  } else {
    call->attempt[link] = 0;
    set_link (call, link, TRUE);
  }
}

/* Frame `index` of each side that speaks, handed to its session (or sent
 * by the oracle). */
static void
send_frames (Call * call, gint64 at, guint32 index)
{
  const SimSettings *settings = call->settings;
  guint8 frame[DONAR_CELL_PAYLOAD];

  call->now = at;
  if (call->now >= call->next_probe) {
    probe (call);
    call->next_probe += settings->probe_every_us;
  }
  for (guint side = 0; side < 2; side++) {
    /* A dead callee sends nothing, nor does a listener. */
    if (side == 1 && (call->callee_down || settings->one_way))
      continue;
    if (settings->oracle) {
      oracle_send (call, side, index);
      continue;
    }
    make_frame (frame, settings->frame_bytes, index);
    /* No link up: the frame waits in the history for a copy. */
    donar_session_send_frame (call->session[side], frame,
        settings->frame_bytes, call->now);
  }
  call->frames_sent = index + 1;
}

/* The last probe, and what the sessions counted. */
static void
finish_call (Call * call, gboolean ok)
{
  if (ok && call->settings->probe_every_us > 0) {
    call->now = MAX (call->now, call->settings->duration_us);
    probe (call);
  }
  for (guint side = 0; side < 2; side++)
    if (call->session[side]) {
      DonarSessionStats stats;

      donar_session_get_stats (call->session[side], &stats);
      call->result->stalled_frames += stats.stalled_frames;
    }
}

gboolean
sim_run_call (const SimSettings * settings, guint index,
    SimCallResult * result, GError ** error)
{
  Call call;
  guint32 next_frame = 0;
  gint64 end, t_link;
  guint event_link = 0;
  gboolean ok = TRUE;

  g_return_val_if_fail (settings->frame_bytes >= 4 &&
      settings->frame_bytes <= DONAR_CELL_PAYLOAD, FALSE);
  if (!call_init (&call, settings, index, result, error)) {
    call_clear (&call);
    sim_call_result_clear (result);
    return FALSE;
  }
  end = settings->duration_us + DRAIN_US;
  /* Failure and ready times change only at a link event. */
  t_link = next_link_event (&call, &event_link);

  while (ok) {
    gint64 t_frame = next_frame < result->n_frames ?
        (gint64) next_frame * settings->config.frame_period_us : G_MAXINT64;
    guint fifo = 0;
    gint timer_side = -1;
    gint64 at;
    EventKind kind = next_event (&call, t_frame, t_link, &fifo, &timer_side,
        &at);

    if (at > end)
      break;
    switch (kind) {
      case EVENT_ARRIVAL:
        receive_record (&call, at, fifo);
        break;
      case EVENT_KILL:
        call.now = MAX (call.now, at);
        kill_a_link (&call);
        call.next_kill += settings->kill_every_us;
        t_link = next_link_event (&call, &event_link);
        break;
      case EVENT_FAULT:
        ok = handle_fault (&call, at, error);
        if (ok)
          t_link = next_link_event (&call, &event_link);
        break;
      case EVENT_LINK:
        handle_link_event (&call, at, event_link);
        t_link = next_link_event (&call, &event_link);
        break;
      case EVENT_TIMER:
        call.now = at;
        donar_session_handle_expiry (call.session[timer_side], call.now);
        break;
      case EVENT_FRAME:
        send_frames (&call, at, next_frame);
        next_frame++;
        break;
    }
  }
  finish_call (&call, ok);
  call_clear (&call);
  if (!ok)
    sim_call_result_clear (result);
  return ok;
}


void
sim_call_result_clear (SimCallResult * result)
{
  g_free (result->latency_us[0]);
  g_free (result->latency_us[1]);
  result->latency_us[0] = result->latency_us[1] = NULL;
  if (result->sends)
    g_string_free (result->sends, TRUE);
  result->sends = NULL;
}
