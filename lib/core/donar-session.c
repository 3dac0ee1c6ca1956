/* One endpoint of a call: frames out over the chosen links, messages in,
 * first copies up, the window timer that ranks the links. */
#include "donar-session-private.h"
#include "donar-versioned.h"

#include <string.h>

/* After a stall of every link, how long the links that drain their
 * backlog at once have to show it, before those still late are given up
 * (issue 26: back within a second). */
#define RECOVERY_US (1 * G_USEC_PER_SEC)
/* While no link delivers in time, a link's lateness counts only beyond
 * this: tor itself gives a stream's BEGIN 10 s on a circuit before it
 * tries another (CircuitStreamTimeout's default), so a stall shorter than
 * that is waited out on the circuits there are, and circuits that hang
 * for good are replaced after it. */
#define STALL_GRACE_US (10 * G_USEC_PER_SEC)
/* ADAPTIVE's bound and its "no link in time" read the peer's
 * acknowledgements, which ride on its frames: a side that stops sending
 * (muted, on hold, a pipeline paused) would look to its peer like a path
 * that stalled, and have its peer withhold frames.  So while the peer's
 * frames come and the application hands over none, the latest frame goes
 * again every 4 frame periods (160 ms, well within a deadline), on the
 * fastest ways back (keepalive_links): a duplicate the peer drops,
 * with fresh acknowledgements; before the first frame, the
 * acknowledgements alone. */
#define KEEPALIVE_PERIODS 4
/* A keepalive's second copy goes on a link sharing a relay with the
 * first only if every other is this much slower: ADAPTIVE's
 * SHARED_RELAY_PENALTY_US, in the milliseconds of the peer's reports. */
#define KEEPALIVE_SHARED_PENALTY_MS 100

static DonarSentFrame *
history_slot (DonarSession * session, guint32 seq)
{
  return &session->history[seq % DONAR_SENT_HISTORY];
}

static const DonarSentFrame *
history_lookup (const DonarSession * session, guint32 seq)
{
  const DonarSentFrame *frame = &session->history[seq % DONAR_SENT_HISTORY];

  return frame->valid && frame->seq == seq ? frame : NULL;
}

DONAR_VERSIONED_DEFINE (callbacks_versions, DonarCallbacks,
    sizeof (DonarCallbacks));
DONAR_VERSIONED_DEFINE (session_stats_versions, DonarSessionStats,
    sizeof (DonarSessionStats));
DONAR_VERSIONED_DEFINE (link_stats_versions, DonarLinkStats,
    sizeof (DonarLinkStats));

DonarSession *
donar_session_new_versioned (gint config_version,
    const DonarConfig * versioned_config, DonarRole role,
    const guint8 * secret, gsize secret_length, gint callbacks_version,
    const DonarCallbacks * versioned_callbacks, gpointer user_data,
    gint64 now, DonarError * error)
{
  DonarSession *session;
  /* Whole structs of the latest version, so that the session never reads
   * past the end of an older program's. */
  DonarConfig config_latest;
  DonarCallbacks callbacks_latest = { 0 };
  const DonarConfig *config = &config_latest;
  const DonarCallbacks *callbacks = &callbacks_latest;
  DonarError invalid = DONAR_ERROR_INVALID_ARGUMENT;

  if (donar_config_from_versioned (config_version, versioned_config,
          &config_latest) && donar_versioned_copy (&callbacks_versions,
          callbacks_version, versioned_callbacks, &callbacks_latest))
    invalid = donar_config_validate (config);
  if (invalid == DONAR_OK && (secret == NULL || secret_length == 0 ||
          callbacks == NULL || callbacks->send == NULL ||
          callbacks->deliver == NULL || role > DONAR_ROLE_CALLEE))
    invalid = DONAR_ERROR_INVALID_ARGUMENT;
  if (error)
    *error = invalid;
  if (invalid != DONAR_OK)
    return NULL;

  session = g_new0 (DonarSession, 1);
  session->config = *config;
  session->config.recent_frames = donar_config_recent_frames (config);
  session->callbacks = *callbacks;
  session->user_data = user_data;
  session->role = role;
  donar_wire_key_derive (secret, secret_length,
      role == DONAR_ROLE_CALLER ? DONAR_WIRE_CALLER_TO_CALLEE :
      DONAR_WIRE_CALLEE_TO_CALLER, &session->send_key);
  donar_wire_key_derive (secret, secret_length,
      role == DONAR_ROLE_CALLER ? DONAR_WIRE_CALLEE_TO_CALLER :
      DONAR_WIRE_CALLER_TO_CALLEE, &session->receive_key);

  session->rand = g_rand_new_with_seed (config->seed);
  session->epoch = g_rand_int (session->rand);
  /* A random first number: wraparound is the normal case, not a test-only
   * one, and the numbers say nothing about how long a call has run. */
  session->next_seq = g_rand_int (session->rand);
  session->max_frame = config->max_record -
      donar_config_record_overhead (config, 1);

  donar_groups_init (&session->groups, config->n_links, config->n_1st,
      config->n_2nd, session->rand);
  donar_scheduler_init (&session->scheduler, config->policy);
  donar_adaptive_init (&session->adaptive, config->budget, config->deadline_us);
  session->adaptive.spread_copies = config->spread_copies;
  donar_delays_init (&session->delays, config->n_links,
      config->frame_period_us, now);
  donar_paths_init (&session->paths, config->n_links);
  donar_receiver_reset (&session->receiver);
  donar_monitor_init (&session->monitor, config->n_links, config->merge,
      2 * config->window_us);
  for (guint i = 0; i < DONAR_MAX_LINKS; i++) {
    donar_framer_reset (&session->framers[i]);
    session->scores[i] = DONAR_SCORE_UNKNOWN;
  }
  session->next_window = now + config->window_us;
  session->last_handed_us = session->last_keepalive_us = now;
  session->last_delivered_us = G_MININT64;
  return session;
}

void
donar_session_free (DonarSession * session)
{
  if (session == NULL)
    return;
  g_rand_free (session->rand);
  /* The buffers held audio and the keys guard the call; a plain memset
   * before free may be optimized away. */
  explicit_bzero (session, sizeof *session);
  g_free (session);
}

gsize
donar_session_get_max_frame (const DonarSession * session)
{
  g_return_val_if_fail (session != NULL, 0);
  return session->max_frame;
}

static gboolean
frame_went_on (const DonarSentFrame * frame, guint link)
{
  for (guint k = 0; k < frame->n_links; k++)
    if (frame->links[k] == link)
      return TRUE;
  return FALSE;
}

/* What the messages of frame `seq` share, whatever their link: our scores,
 * the links of the latest frames.  Worked out once for the frame: nothing
 * they read changes while its copies go out. */
static void
build_message_common (DonarSession * session, guint32 seq, gint64 now,
    DonarWireMessage * message)
{
  const DonarConfig *config = &session->config;

  message->seq = seq;
  message->time_ms = donar_delays_clock_ms (now);
  message->ack = session->receiver.highest;
  message->parts = donar_config_wire_parts (config);

  message->n_scores = config->n_links;
  /* Only the parts that go on the wire are worked out. */
  if (message->parts & DONAR_WIRE_PART_SCORES)
    for (guint i = 0; i < config->n_links; i++) {
      gint32 reported = donar_monitor_reported (&session->monitor, i);

      message->scores[i] = reported == DONAR_SCORE_UNKNOWN ?
          DONAR_WIRE_SCORE_UNKNOWN : MIN (reported,
          DONAR_WIRE_SCORE_UNKNOWN - 1);
    }
  if (message->parts & DONAR_WIRE_PART_ADAPTIVE) {
    donar_delays_report_all (&session->delays, config->n_links,
        session->receiver.highest, now, message->delays, message->acked);
    memcpy (message->paths, session->paths.local_mask, config->n_links);
  }

  message->n_recent = 0;
  for (guint age = 0; age < config->recent_frames; age++) {
    const DonarSentFrame *frame = history_lookup (session, seq - age);

    if (frame == NULL)
      break;
    for (guint k = 0; k < frame->n_links; k++) {
      message->recent[message->n_recent].age = age;
      message->recent[message->n_recent].link = frame->links[k];
      message->n_recent++;
    }
  }
}

/* The message of `current` on `link`, its common part built: the frame, and
 * as many earlier frames as fit that neither went on this link nor are too
 * old to help. */
static void
build_message_frames (DonarSession * session, const DonarSentFrame * current,
    guint link, gint64 now, DonarWireMessage * message)
{
  const DonarConfig *config = &session->config;
  gsize size;

  message->link = link;
  message->n_frames = 1;
  message->frames[0].age = 0;
  message->frames[0].length = current->length;
  message->frames[0].data = current->data;
  size = donar_wire_record_size (message);

  for (guint age = 1; age <= config->redundancy; age++) {
    const DonarSentFrame *frame = history_lookup (session,
        current->seq - age);
    DonarWireFrame *copy = &message->frames[message->n_frames];

    if (frame == NULL || now - frame->time > config->max_piggyback_age_us)
      break;
    if (frame_went_on (frame, link) ||
        size + DONAR_WIRE_FRAME_HEADER + frame->length > config->max_record)
      continue;
    copy->age = age;
    copy->length = frame->length;
    copy->data = frame->data;
    message->n_frames++;
    size += DONAR_WIRE_FRAME_HEADER + frame->length;
  }
}

static guint
pick_links (DonarSession * session, gint64 now, guint * links)
{
  const DonarSentFrame *previous;
  guint prev[DONAR_SCHEDULER_MAX_SENDS], n_prev = 0;

  if (session->config.policy != DONAR_POLICY_ADAPTIVE)
    return donar_scheduler_pick (&session->scheduler, &session->groups, links);
  previous = history_lookup (session, session->next_seq - 1);
  if (previous)
    for (n_prev = 0; n_prev < previous->n_links; n_prev++)
      prev[n_prev] = previous->links[n_prev];
  return donar_adaptive_pick (&session->adaptive, &session->delays,
      &session->groups, &session->paths, prev, n_prev, now, links);
}

DonarError
donar_session_send_frame (DonarSession * session, const guint8 * frame,
    gsize length, gint64 now)
{
  DonarSentFrame *current;
  DonarWireMessage message;
  guint links[DONAR_SCHEDULER_MAX_SENDS];
  guint n_links;

  g_return_val_if_fail (session != NULL, DONAR_ERROR_INVALID_ARGUMENT);
  g_return_val_if_fail (frame != NULL || length == 0,
      DONAR_ERROR_INVALID_ARGUMENT);
  if (length == 0)
    return DONAR_ERROR_EMPTY_FRAME;
  if (length > session->max_frame)
    return DONAR_ERROR_FRAME_TOO_LARGE;
  if (session->ended)
    return DONAR_ERROR_CALL_ENDED;
  session->last_handed_us = now;

  n_links = pick_links (session, now, links);
  current = history_slot (session, session->next_seq++);
  current->valid = TRUE;
  current->seq = session->next_seq - 1;
  current->time = now;
  current->length = length;
  memcpy (current->data, frame, length);
  current->n_links = n_links;
  for (guint i = 0; i < n_links; i++)
    current->links[i] = links[i];

  if (n_links == 0 && session->adaptive.no_link_in_time)
    /* Withheld, not lost: it rides along as the next probe's copy. */
    return DONAR_OK;
  if (n_links == 0) {
    session->stats.frames_unsent++;
    return DONAR_ERROR_NO_LINK;
  }
  session->stats.frames_sent++;

  build_message_common (session, current->seq, now, &message);
  for (guint i = 0; i < n_links; i++) {
    gsize size;

    build_message_frames (session, current, links[i], now, &message);
    size = donar_wire_encode_data (&message, session->record,
        sizeof session->record);
    g_assert (size > 0);
    donar_groups_mark_used (&session->groups, links[i], now);
    donar_delays_on_send (&session->delays, links[i], current->seq, now);
    session->links[links[i]].messages_sent++;
    session->links[links[i]].bytes_sent += size;
    session->stats.messages_sent++;
    session->stats.bytes_sent += size;
    session->callbacks.send (session->user_data, links[i], session->record,
        size);
  }
  return DONAR_OK;
}

/* A new epoch is the peer's new session: its numbers start over.  The
 * epoch before it is refused, so a late link of a dead session is closed. */
static DonarError
check_epoch (DonarSession * session, guint32 epoch)
{
  if (session->peer_epoch_known && epoch == session->peer_epoch)
    return DONAR_OK;
  if (session->peer_previous_epoch_known &&
      epoch == session->peer_previous_epoch)
    return DONAR_ERROR_STALE;
  if (session->peer_epoch_known) {
    session->peer_previous_epoch = session->peer_epoch;
    session->peer_previous_epoch_known = TRUE;
    donar_receiver_reset (&session->receiver);
    donar_monitor_forget_expected (&session->monitor);
    donar_delays_forget_peer (&session->delays);
    session->peer_acknowledges = FALSE;
  }
  session->peer_epoch = epoch;
  session->peer_epoch_known = TRUE;
  return DONAR_OK;
}

/* Caller: the last relay of the link's path, its rendezvous point, to
 * the callee, whose tor tells it its own circuits but not which link came
 * on which: the rendezvous point, where both circuits of a link meet, is
 * what tells them apart.  Once a connection, after our HELLO (before it
 * the callee takes nothing of ours), and again if the path changes. */
static void
tell_rendezvous (DonarSession * session, guint link)
{
  const DonarPaths *paths = &session->paths;
  guint64 relay;
  gsize size;

  if (session->role != DONAR_ROLE_CALLER || !session->hello_sent[link] ||
      session->ended || paths->n_relays[link] == 0)
    return;
  relay = paths->relays[link][paths->n_relays[link] - 1];
  if (relay == session->rendezvous_told[link])
    return;
  size = donar_wire_encode_rendezvous (link, relay, session->record,
      sizeof session->record);
  session->rendezvous_told[link] = relay;
  session->links[link].messages_sent++;
  session->links[link].bytes_sent += size;
  session->stats.bytes_sent += size;
  session->callbacks.send (session->user_data, link, session->record, size);
}

/* Our HELLO answers the peer's nonce; once it is out, the link may carry
 * our frames. */
static void
send_hello (DonarSession * session, guint link, const guint8 * echo)
{
  DonarWireHello hello = { link, session->epoch, {0}, {0} };
  gsize size;

  memcpy (hello.nonce, session->nonce[link], DONAR_WIRE_NONCE);
  memcpy (hello.echo, echo, DONAR_WIRE_NONCE);
  size = donar_wire_encode_hello (&hello, &session->send_key,
      session->record, sizeof session->record);
  session->links[link].messages_sent++;
  session->links[link].bytes_sent += size;
  session->stats.bytes_sent += size;
  session->hello_sent[link] = TRUE;
  donar_groups_link_up (&session->groups, link);
  session->callbacks.send (session->user_data, link, session->record, size);
  tell_rendezvous (session, link);
}

/* Caller: the callee's nonce, which our HELLO answers. */
static DonarError
handle_challenge (DonarSession * session, guint link, const guint8 * data,
    gsize length, gint64 now)
{
  guint8 nonce[DONAR_WIRE_NONCE];
  DonarError error;

  if (session->role != DONAR_ROLE_CALLER || session->hello_sent[link])
    return DONAR_ERROR_UNEXPECTED;
  error = donar_wire_decode_challenge (data, length, nonce);
  if (error != DONAR_OK)
    return error;
  send_hello (session, link, nonce);
  donar_delays_on_opening_sent (&session->delays, link, now);
  return DONAR_OK;
}

/* The peer's HELLO must answer our nonce of this connection: the
 * CHALLENGE (callee), or our HELLO (caller).  The callee answers it. */
static DonarError
handle_hello (DonarSession * session, guint link, const guint8 * data,
    gsize length, gint64 now)
{
  DonarWireHello hello;
  DonarError error;
  gboolean known, new_session;

  error = donar_wire_decode_hello (data, length, &session->receive_key, &hello);
  if (error != DONAR_OK)
    return error;
  if (hello.link != link)
    return DONAR_ERROR_BAD_LINK;
  if (session->authenticated[link] || (session->role == DONAR_ROLE_CALLER &&
          !session->hello_sent[link]))
    return DONAR_ERROR_UNEXPECTED;
  if (memcmp (hello.echo, session->nonce[link], DONAR_WIRE_NONCE) != 0)
    return DONAR_ERROR_REPLAY;
  known = session->peer_epoch_known;
  new_session = !known || hello.epoch != session->peer_epoch;
  error = check_epoch (session, hello.epoch);
  if (error != DONAR_OK)
    return error;
  session->authenticated[link] = TRUE;
  session->link_epoch[link] = hello.epoch;
  donar_delays_on_opening_answered (&session->delays, link, now);
  if (session->role == DONAR_ROLE_CALLEE)
    send_hello (session, link, hello.nonce);
  if (new_session && session->callbacks.peer_session)
    session->callbacks.peer_session (session->user_data, link, known);
  return DONAR_OK;
}

/* A link far behind, as seen here or as the peer reports it, leaves L1ST /
 * L2ND now: waiting for the window's end would let a spike cost seconds.
 * One-way delays agree in both directions, so either side's view will do. */
static void
sound_alarms (DonarSession * session, const DonarWireMessage * message)
{
  guint32 overdue = donar_monitor_check_overdue (&session->monitor,
      &session->receiver, session->config.alarm_frames);
  guint threshold = session->config.alarm_frames * 100;

  for (guint i = 0; i < MIN (message->n_scores, session->config.n_links); i++)
    if (message->scores[i] != DONAR_WIRE_SCORE_UNKNOWN &&
        message->scores[i] >= threshold)
      overdue |= 1u << i;
  for (guint link = 0; overdue; link++, overdue >>= 1)
    if ((overdue & 1) && donar_groups_demote (&session->groups, link))
      session->stats.alarms++;
}

static DonarError
handle_data (DonarSession * session, guint link, const guint8 * data,
    gsize length, gint64 now)
{
  DonarWireMessage message;
  DonarError error;
  guint out_of_order;

  if (!session->authenticated[link])
    return DONAR_ERROR_NOT_AUTHENTICATED;
  if (session->link_epoch[link] != session->peer_epoch)
    return DONAR_ERROR_STALE;
  error = donar_wire_decode_data (data, length, &message);
  if (error != DONAR_OK)
    return error;
  if (message.link != link)
    return DONAR_ERROR_BAD_LINK;
  for (guint i = 0; i < message.n_recent; i++)
    if (message.recent[i].link >= session->config.n_links)
      return DONAR_ERROR_BAD_LINK;

  session->links[link].messages_received++;
  session->links[link].bytes_received += DONAR_WIRE_PREFIX + length;
  session->stats.messages_received++;

  out_of_order = donar_receiver_count_newer (&session->receiver, message.seq);
  donar_monitor_note_recent (&session->monitor, message.seq, message.recent,
      message.n_recent, now);
  donar_delays_note_recent (&session->delays, message.seq, message.time_ms,
      message.recent, message.n_recent, now);
  donar_delays_on_arrival (&session->delays, link, message.seq,
      message.time_ms, now);
  if (message.parts & DONAR_WIRE_PART_ADAPTIVE) {
    donar_delays_set_reports (&session->delays, message.delays,
        message.n_scores, now);
    donar_paths_set_peer (&session->paths, message.paths, message.n_scores);
    donar_delays_on_acks (&session->delays, message.ack, message.acked,
        message.n_scores, now);
    session->peer_acknowledges = TRUE;
  } else {
    /* The same as the decoder's stand-ins for the missing part would do,
     * without reading them link by link: no report, no shared relay, and
     * no acknowledgement (on_acks would only rotate the buckets, which
     * on_arrival did at this same time). */
    donar_delays_clear_reports (&session->delays, message.n_scores);
    donar_paths_clear_peer (&session->paths, message.n_scores);
  }
  donar_monitor_on_arrival (&session->monitor, message.seq, link, out_of_order);
  /* Without the part, every score is unknown: nothing to set. */
  if (message.parts & DONAR_WIRE_PART_SCORES)
    donar_monitor_set_remote (&session->monitor, message.scores,
        message.n_scores, now);

  /* Oldest first: a jitter buffer would rather see them in order. */
  for (guint i = message.n_frames; i-- > 0;) {
    const DonarWireFrame *frame = &message.frames[i];
    guint32 seq = message.seq - frame->age;

    if (donar_receiver_accept (&session->receiver, seq) != DONAR_RECEIVED_NEW) {
      session->stats.duplicates++;
      continue;
    }
    session->stats.frames_delivered++;
    session->last_delivered_us = now;
    if (frame->age > 0)
      session->stats.frames_piggyback_delivered++;
    session->links[link].frames_delivered++;
    session->callbacks.deliver (session->user_data, seq, frame->data,
        frame->length, link, frame->age > 0);
  }
  if (session->config.alarm_frames)
    sound_alarms (session, &message);
  return DONAR_OK;
}

/* Only from a link whose HELLO proved it is the peer's, of its current
 * session: nobody else can end the call. */
static DonarError
handle_bye (DonarSession * session, guint link, const guint8 * data,
    gsize length)
{
  DonarWireBye bye;
  DonarError error;

  if (!session->authenticated[link])
    return DONAR_ERROR_NOT_AUTHENTICATED;
  if (session->link_epoch[link] != session->peer_epoch)
    return DONAR_ERROR_STALE;
  error = donar_wire_decode_bye (data, length, &bye);
  if (error != DONAR_OK)
    return error;
  if (bye.link != link)
    return DONAR_ERROR_BAD_LINK;
  session->links[link].messages_received++;
  session->links[link].bytes_received += DONAR_WIRE_PREFIX + length;
  session->stats.messages_received++;
  if (session->ended)
    return DONAR_OK;
  session->ended = TRUE;
  session->ended_by_peer = TRUE;
  session->end_reason = bye.reason == DONAR_BYE_HUNG_UP ||
      bye.reason == DONAR_BYE_FAILED || bye.reason == DONAR_BYE_REJECTED ?
      bye.reason : DONAR_BYE_UNKNOWN;
  if (session->callbacks.peer_ended)
    session->callbacks.peer_ended (session->user_data, link,
        session->end_reason);
  return DONAR_OK;
}

/* Callee: where the caller's circuit of the link meets ours.  Only from a
 * link whose HELLO was checked, as BYE. */
static DonarError
handle_rendezvous (DonarSession * session, guint link, const guint8 * data,
    gsize length)
{
  guint8 told;
  guint64 relay;
  DonarError error;

  if (session->role != DONAR_ROLE_CALLEE)
    return DONAR_ERROR_UNEXPECTED;
  if (!session->authenticated[link])
    return DONAR_ERROR_NOT_AUTHENTICATED;
  if (session->link_epoch[link] != session->peer_epoch)
    return DONAR_ERROR_STALE;
  error = donar_wire_decode_rendezvous (data, length, &told, &relay);
  if (error != DONAR_OK)
    return error;
  if (told != link)
    return DONAR_ERROR_BAD_LINK;
  session->links[link].messages_received++;
  session->links[link].bytes_received += DONAR_WIRE_PREFIX + length;
  session->stats.messages_received++;
  if (session->callbacks.peer_rendezvous)
    session->callbacks.peer_rendezvous (session->user_data, link, relay);
  return DONAR_OK;
}

static DonarError
handle_message (DonarSession * session, guint link, const guint8 * data,
    gsize length, gint64 now)
{
  guint8 type;
  DonarError error = donar_wire_peek_type (data, length, &type);

  if (error != DONAR_OK)
    return error;
  if (type == DONAR_WIRE_TYPE_HELLO)
    return handle_hello (session, link, data, length, now);
  if (type == DONAR_WIRE_TYPE_BYE)
    return handle_bye (session, link, data, length);
  if (type == DONAR_WIRE_TYPE_CHALLENGE)
    return handle_challenge (session, link, data, length, now);
  if (type == DONAR_WIRE_TYPE_RENDEZVOUS)
    return handle_rendezvous (session, link, data, length);
  return handle_data (session, link, data, length, now);
}

DonarError
donar_session_receive (DonarSession * session, guint link,
    const guint8 * data, gsize length, gint64 now)
{
  g_return_val_if_fail (session != NULL, DONAR_ERROR_INVALID_ARGUMENT);
  g_return_val_if_fail (link < session->config.n_links,
      DONAR_ERROR_INVALID_ARGUMENT);
  g_return_val_if_fail (data != NULL || length == 0,
      DONAR_ERROR_INVALID_ARGUMENT);
  if (!session->open[link])
    return DONAR_ERROR_INVALID_ARGUMENT;

  while (TRUE) {
    const guint8 *message;
    gsize message_length;
    DonarError error = donar_framer_next (&session->framers[link], &data,
        &length, &message, &message_length);

    if (error == DONAR_OK && message == NULL)
      return DONAR_OK;
    if (error == DONAR_OK)
      error = handle_message (session, link, message, message_length, now);
    if (error != DONAR_OK) {
      session->links[link].rejected++;
      session->stats.messages_rejected++;
      return error;
    }
  }
}

DonarError
donar_session_identify_link (const DonarSession * session,
    const guint8 * message, gsize length, const guint8 * nonce, guint * link)
{
  DonarWireHello hello;
  DonarError error;

  g_return_val_if_fail (session != NULL, DONAR_ERROR_INVALID_ARGUMENT);
  g_return_val_if_fail (message != NULL || length == 0,
      DONAR_ERROR_INVALID_ARGUMENT);
  g_return_val_if_fail (nonce != NULL, DONAR_ERROR_INVALID_ARGUMENT);
  g_return_val_if_fail (link != NULL, DONAR_ERROR_INVALID_ARGUMENT);
  error = donar_wire_decode_hello (message, length, &session->receive_key,
      &hello);
  if (error != DONAR_OK)
    return error;
  if (hello.link >= session->config.n_links)
    return DONAR_ERROR_BAD_LINK;
  if (memcmp (hello.echo, nonce, DONAR_WIRE_NONCE) != 0)
    return DONAR_ERROR_REPLAY;
  *link = hello.link;
  return DONAR_OK;
}

void
donar_session_end (DonarSession * session, DonarByeReason reason, gint64 now)
{
  g_return_if_fail (session != NULL);
  if (session->ended)
    return;
  session->ended = TRUE;
  session->end_reason = reason;
  for (guint link = 0; link < session->config.n_links; link++) {
    DonarWireBye bye = { link, reason };
    gsize size;

    if (!session->hello_sent[link])
      continue;
    size = donar_wire_encode_bye (&bye, session->record,
        sizeof session->record);
    session->links[link].messages_sent++;
    session->links[link].bytes_sent += size;
    session->stats.messages_sent++;
    session->stats.bytes_sent += size;
    session->callbacks.send (session->user_data, link, session->record, size);
  }
}

gboolean
donar_session_has_ended (const DonarSession * session, gboolean * by_peer,
    DonarByeReason * reason)
{
  g_return_val_if_fail (session != NULL, FALSE);
  if (by_peer)
    *by_peer = session->ended_by_peer;
  if (reason)
    *reason = session->end_reason;
  return session->ended;
}

void
donar_session_link_accepted (DonarSession * session, guint link,
    const guint8 * nonce, gint64 now)
{
  g_return_if_fail (session != NULL);
  g_return_if_fail (link < session->config.n_links);
  g_return_if_fail (nonce != NULL);
  if (session->open[link])
    return;
  donar_framer_reset (&session->framers[link]);
  session->open[link] = TRUE;
  session->hello_sent[link] = FALSE;
  session->authenticated[link] = FALSE;
  session->rendezvous_told[link] = 0;
  memcpy (session->nonce[link], nonce, DONAR_WIRE_NONCE);
  donar_delays_reset_link (&session->delays, link, now);
}

void
donar_session_link_up (DonarSession * session, guint link,
    const guint8 * nonce, gint64 now)
{
  gsize size;

  g_return_if_fail (session != NULL);
  g_return_if_fail (link < session->config.n_links);
  g_return_if_fail (nonce != NULL);
  if (session->open[link])
    return;
  donar_session_link_accepted (session, link, nonce, now);
  if (session->role != DONAR_ROLE_CALLEE)
    return;
  size = donar_wire_encode_challenge (nonce, session->record,
      sizeof session->record);
  session->links[link].messages_sent++;
  session->links[link].bytes_sent += size;
  session->stats.bytes_sent += size;
  donar_delays_on_opening_sent (&session->delays, link, now);
  session->callbacks.send (session->user_data, link, session->record, size);
}

void
donar_session_link_down (DonarSession * session, guint link, gint64 now)
{
  g_return_if_fail (session != NULL);
  g_return_if_fail (link < session->config.n_links);
  if (!session->open[link])
    return;
  session->links[link].failures++;
  session->open[link] = FALSE;
  session->hello_sent[link] = FALSE;
  session->authenticated[link] = FALSE;
  memset (session->nonce[link], 0, DONAR_WIRE_NONCE);
  donar_framer_reset (&session->framers[link]);
  donar_monitor_forget_link (&session->monitor, link);
  donar_delays_reset_link (&session->delays, link, now);
  donar_fate_forget_link (&session->adaptive.fate, link);
  donar_paths_set (&session->paths, link, NULL, 0);
  session->scores[link] = DONAR_SCORE_UNKNOWN;
  if (session->groups.up[link])
    donar_groups_link_down (&session->groups, link);
}

void
donar_session_set_link_path (DonarSession * session, guint link,
    const guint64 * relays, guint n_relays)
{
  g_return_if_fail (session != NULL);
  g_return_if_fail (link < session->config.n_links);
  g_return_if_fail (relays != NULL || n_relays == 0);
  donar_paths_set (&session->paths, link, relays, n_relays);
  tell_rendezvous (session, link);
}

/* Whether some side of the call reads what our keepalives carry: an
 * ADAPTIVE peer our acknowledgements; a peer of the paper's policies our
 * scores of its links, which ride on our frames too, so that a side that
 * has never handed one over (a listener) must send them alone, or its
 * peer's groups stay as chance drew them for the whole call.  A paper's
 * policy that has talked keeps its peer's groups as they were while it is
 * muted, as the paper's DONAR does. */
static gboolean
keepalives_read (const DonarSession * session)
{
  if (session->config.policy == DONAR_POLICY_ADAPTIVE)
    return session->peer_acknowledges;
  return session->config.policy != DONAR_POLICY_SIMPLE &&
      history_lookup (session, session->next_seq - 1) == NULL;
}

/* When the next keepalive is due, or G_MAXINT64: none while the
 * application sends, or no new frame of the peer's came since the last
 * (two muted sides do not keep each other busy). */
static gint64
keepalive_due (const DonarSession * session)
{
  gint64 period = KEEPALIVE_PERIODS * session->config.frame_period_us;
  gint64 since = MAX (session->last_handed_us, session->last_keepalive_us);

  if (session->ended || !keepalives_read (session) ||
      session->last_delivered_us <= since)
    return G_MAXINT64;
  return since + period;
}

/* How soon a link's way back is expected to deliver: what its way here
 * measures now (donar_delays_report), the same relays carrying both
 * directions of a circuit; G_MAXINT64 for a link whose latest word is
 * over a second old or that holds an overdue frame, in a spike or
 * closing. */
static gint64
way_back (const DonarSession * session, guint link, gint64 now)
{
  guint16 report = donar_delays_report (&session->delays, link, now);

  if (report == DONAR_WIRE_DELAY_UNKNOWN || (report & DONAR_WIRE_DELAY_GROWING))
    return G_MAXINT64;
  return report;
}

/* Whether a keepalive may go on the link: the peer's end of it is
 * known. */
static gboolean
keepalive_can_use (const DonarSession * session, guint link)
{
  return session->hello_sent[link] && session->authenticated[link] &&
      session->delays.links[link].heard;
}

/* The usable link, other than those in avoid_mask, whose way here was the
 * fastest at its latest word; of equal ones, the last heard.  A penalty
 * of a spike's worth on those sharing a relay with share_mask's, as
 * ADAPTIVE's copies have.  -1 if none. */
static gint
keepalive_best (const DonarSession * session, guint32 avoid_mask,
    guint32 share_mask, gint64 now)
{
  gint best = -1;
  gint64 best_cost = G_MAXINT64;

  for (guint i = 0; i < session->config.n_links; i++) {
    gint64 cost;

    if ((avoid_mask & (1u << i)) || !keepalive_can_use (session, i))
      continue;
    cost = way_back (session, i, now);
    if (cost != G_MAXINT64 && (share_mask & (1u << i)))
      cost += KEEPALIVE_SHARED_PENALTY_MS;
    if (best < 0 || cost < best_cost || (cost == best_cost &&
            session->delays.links[i].last_heard_us >
            session->delays.links[best].last_heard_us)) {
      best = i;
      best_cost = cost;
    }
  }
  return best;
}

/* The links a keepalive goes on: the way back of the fastest way here,
 * and with ADAPTIVE's budget above one a second copy on the next, off
 * the first's relays if it can be.  A listener's acknowledgements are
 * all its peer knows of its links: on one circuit, one spike of it
 * (a second or more, seed 000 Fig. 5) leaves the peer believing that
 * every link it sends on has stalled.  The link last heard, which the
 * keepalive used to take, is as often the one whose late frames have just
 * come out of a spike. */
static guint
keepalive_links (const DonarSession * session, gint64 now, guint * links)
{
  gint first = keepalive_best (session, 0, 0, now), second;

  if (first < 0)
    return 0;
  links[0] = first;
  if (session->config.policy != DONAR_POLICY_ADAPTIVE ||
      session->config.budget <= 1.0)
    return 1;
  second = keepalive_best (session, 1u << first,
      donar_paths_sharing (&session->paths, first), now);
  if (second < 0)
    return 1;
  links[1] = second;
  return 2;
}

static void
send_keepalive (DonarSession * session, gint64 now)
{
  const DonarSentFrame *latest = history_lookup (session,
      session->next_seq - 1);
  DonarWireMessage message;
  guint links[2];
  guint n_links;

  session->last_keepalive_us = now;
  n_links = keepalive_links (session, now, links);
  if (n_links == 0)
    return;
  /* One keepalive, whatever its copies. */
  session->stats.keepalives++;
  /* A side that has handed over no frame yet (a listener, a callee not
   * yet talking) acknowledges all the same, with no frame: the number of
   * its frame before the first, which names none.  Without it its peer
   * knows no delay and no round trip for the whole call, and picks its
   * links blind. */
  build_message_common (session, latest ? latest->seq : session->next_seq - 1,
      now, &message);
  /* The recent list would date the frames it names from now. */
  message.n_recent = 0;
  for (guint i = 0; i < n_links; i++) {
    guint link = links[i];
    gsize size;

    if (latest) {
      build_message_frames (session, latest, link, now, &message);
      message.n_frames = 1;
    } else {
      message.link = link;
      message.n_frames = 0;
    }
    size = donar_wire_encode_data (&message, session->record,
        sizeof session->record);
    g_assert (size > 0);
    session->links[link].messages_sent++;
    session->links[link].bytes_sent += size;
    session->stats.messages_sent++;
    session->stats.bytes_sent += size;
    session->callbacks.send (session->user_data, link, session->record, size);
  }
}

void
donar_session_handle_expiry (DonarSession * session, gint64 now)
{
  g_return_if_fail (session != NULL);
  if (now >= keepalive_due (session))
    send_keepalive (session, now);
  if (now < session->next_window)
    return;

  donar_monitor_close_window (&session->monitor, &session->receiver);
  for (guint i = 0; i < session->config.n_links; i++)
    session->scores[i] = donar_monitor_score (&session->monitor, i, now);
  donar_groups_update (&session->groups, session->scores);
  session->stats.windows++;

  session->next_window += session->config.window_us;
  /* After a long stall, skip the missed windows rather than run them all. */
  if (session->next_window <= now)
    session->next_window = now + session->config.window_us;
}

gint64
donar_session_get_expiry (const DonarSession * session)
{
  g_return_val_if_fail (session != NULL, G_MAXINT64);
  return MIN (session->next_window, keepalive_due (session));
}

static void
session_get_stats (const DonarSession * session, DonarSessionStats * stats)
{
  *stats = session->stats;
  stats->no_link_in_time = session->adaptive.no_link_in_time;
  stats->stalls = session->adaptive.stalls;
  stats->stalled_frames = session->adaptive.stalled_frames;
  stats->frames_withheld = session->adaptive.frames_withheld;
}

void
donar_session_get_stats_versioned (const DonarSession * session,
    gint stats_version, DonarSessionStats * stats)
{
  DonarSessionStats latest;

  g_return_if_fail (session != NULL);
  session_get_stats (session, &latest);
  donar_versioned_copy (&session_stats_versions, stats_version, &latest, stats);
}

gboolean
donar_session_peer_acknowledges (const DonarSession * session)
{
  g_return_val_if_fail (session != NULL, FALSE);
  return session->peer_acknowledges;
}

gint64
donar_session_get_least_round_trip (const DonarSession * session)
{
  gint64 round_trip;

  g_return_val_if_fail (session != NULL, -1);
  round_trip = donar_delays_least_round_trip (&session->delays);
  return round_trip == DONAR_DELAY_UNKNOWN ? -1 : round_trip;
}

static gboolean
session_get_link_stats (const DonarSession * session, guint link,
    DonarLinkStats * stats)
{
  const DonarLinkCounters *counters;

  if (link >= session->config.n_links)
    return FALSE;
  counters = &session->links[link];
  stats->up = session->groups.up[link];
  stats->authenticated = session->authenticated[link];
  stats->group = session->groups.group[link];
  stats->local_score = session->monitor.local[link];
  stats->remote_score = session->monitor.remote[link];
  stats->score = session->scores[link];
  stats->last_used_us = session->groups.last_used[link];
  stats->messages_sent = counters->messages_sent;
  stats->messages_received = counters->messages_received;
  stats->bytes_sent = counters->bytes_sent;
  stats->bytes_received = counters->bytes_received;
  stats->frames_delivered = counters->frames_delivered;
  stats->failures = counters->failures;
  stats->rejected = counters->rejected;
  stats->silent_frames = donar_monitor_silent_frames (&session->monitor,
      &session->receiver, link);
  return TRUE;
}

gboolean
donar_session_get_link_stats_versioned (const DonarSession * session,
    guint link, gint stats_version, DonarLinkStats * stats)
{
  DonarLinkStats latest = { 0 };

  g_return_val_if_fail (session != NULL, FALSE);
  return session_get_link_stats (session, link, &latest) &&
      donar_versioned_copy (&link_stats_versions, stats_version, &latest,
      stats);
}

gint64
donar_session_get_link_lateness (const DonarSession * session, guint link,
    gint64 now)
{
  const DonarAdaptive *adaptive;
  guint32 others_in_time = 0;

  g_return_val_if_fail (session != NULL, 0);
  g_return_val_if_fail (link < session->config.n_links, 0);
  adaptive = &session->adaptive;
  if (session->config.policy != DONAR_POLICY_ADAPTIVE)
    return 0;
  if (adaptive->no_link_in_time)
    return MAX (donar_delays_in_flight_excess (&session->delays, link,
            now) - STALL_GRACE_US, 0);
  if ((adaptive->in_time & (1u << link)) ||
      (adaptive->in_time_since != G_MININT64 &&
          now - adaptive->in_time_since < RECOVERY_US))
    return 0;
  for (guint other = 0; other < session->config.n_links; other++)
    if (session->groups.up[other] && (adaptive->in_time & (1u << other)))
      others_in_time++;
  if (others_in_time == 0)
    return 0;
  return donar_delays_in_flight_excess (&session->delays, link, now);
}

gint64
donar_session_get_link_silence (const DonarSession * session, guint link,
    gint64 now)
{
  g_return_val_if_fail (session != NULL, 0);
  g_return_val_if_fail (link < session->config.n_links, 0);
  return donar_monitor_silence_us (&session->monitor, &session->receiver,
      link, now, session->config.frame_period_us);
}
