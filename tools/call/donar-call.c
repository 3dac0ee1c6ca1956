/* donar-call: one end of a DONAR call from a terminal, with made-up voice
 * frames.  The callee publishes its onion and prints the call address;
 * the caller dials it.  Both send one frame every --frame-ms and report
 * what came back: the tests' call over Tor and over donar-torsim, and a
 * user's check that two machines can call each other.
 *
 * Each frame carries its send time (CLOCK_MONOTONIC) and a counter: on one
 * machine the latency is the one-way delay; across machines only the
 * losses mean something.  A frame is lost when it has not come 2 s after
 * a later one: the peer may still be sending when this end stops
 * listening, and what is then on its way is not counted. */
#include "contact-key.h"
#include "frame-log-writer.h"
#include "send-log.h"
#include "donar-call.h"
#include "donar-call-tor-control.h"
#include "donar-secret.h"
#include "tool-json.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FRAME_HEADER 12
/* --guards not given: the default, and a running tor left alone. */
#define GUARDS_UNSET G_MININT

static volatile sig_atomic_t interrupted;

typedef struct
{
  GMutex lock;
  guint links_up;
  guint max_links_up;
  guint link_downs;
  guint rejected;
  gboolean quiet;
  gint64 engine_started;        /* the last setup step */
  gint64 all_links_up;          /* the first time all were open, or 0 */
  gchar *unreachable;           /* PEER_UNREACHABLE's message, or NULL */
  gchar *tor_lost;              /* the call's on_tor_lost message, or NULL */
} Status;

typedef struct
{
  gboolean direct;
  gchar *tor_control;
  gchar *tor_cookie;
  gchar *tor_password;
  gint tor_socks;
  gchar *tor_socks_path;
  /* Parsed from tor_control and tor_socks_path, for the call options. */
  gchar *control_socket;
  gchar *socks_socket;
  gchar **torrc_lines;
  gchar *security;
  gint guards;                  /* GUARDS_UNSET: not given */
  gint virtual_port;
  gboolean client_auth;
  gchar *key_file;
  gchar *client_auth_dir;
  gchar *address_file;
  gdouble seconds;
  gint wait_links;
  gint frame_ms;
  gint frame_bytes;
  gchar *policy;
  gint links;
  gint n1st;
  gint n2nd;
  gint setup_timeout_s;
  gdouble peer_timeout_s;
  gdouble budget;
  gboolean spread_copies;
  gboolean no_spread_copies;
  gboolean json;
  gboolean quiet;
  gchar *frame_log;
  gchar *send_log;
} Options;

static void
options_clear (Options * o)
{
  g_free (o->tor_control);
  g_free (o->tor_socks_path);
  g_free (o->control_socket);
  g_free (o->socks_socket);
  g_free (o->tor_cookie);
  donar_secret_free (o->tor_password);
  g_strfreev (o->torrc_lines);
  g_free (o->security);
  g_free (o->key_file);
  g_free (o->client_auth_dir);
  g_free (o->address_file);
  g_free (o->policy);
  g_free (o->frame_log);
  g_free (o->send_log);
}

static void
on_signal (int signal_number)
{
  interrupted = 1;
}

static void
on_progress (const gchar * step, gint percent, gpointer user_data)
{
  Status *status = user_data;

  /* The caller's last step is the dial: all_links_up_s counts from it. */
  status->engine_started = g_get_monotonic_time ();
  if (status->quiet)
    return;
  if (percent >= 0)
    g_printerr ("donar-call: %s (%d %%)\n", step, percent);
  else
    g_printerr ("donar-call: %s\n", step);
}

static void
on_event (const DonarLinkEvent * event, gpointer user_data)
{
  Status *status = user_data;

  g_mutex_lock (&status->lock);
  status->links_up = event->links_up;
  status->max_links_up = MAX (status->max_links_up, event->links_up);
  if (event->type == DONAR_LINK_EVENT_LINK_DOWN)
    status->link_downs++;
  if (event->type == DONAR_LINK_EVENT_REJECTED)
    status->rejected++;
  if (event->type == DONAR_LINK_EVENT_ALL_LINKS_UP && !status->all_links_up)
    status->all_links_up = g_get_monotonic_time ();
  if (event->type == DONAR_LINK_EVENT_PEER_UNREACHABLE && !status->unreachable)
    status->unreachable = g_strdup (event->message);
  g_mutex_unlock (&status->lock);
  /* Why no link came is said even with --quiet: the user waits for it. */
  if (!status->quiet || event->type == DONAR_LINK_EVENT_NO_LINK_YET)
    g_printerr ("donar-call: %s: %s\n",
        donar_link_event_type_to_string (event->type), event->message);
}

/* Said even with --quiet: it is an error, the callee's onion is gone. */
static void
on_tor_lost (const GError * error, gpointer user_data)
{
  Status *status = user_data;

  g_mutex_lock (&status->lock);
  if (!status->tor_lost)
    status->tor_lost = g_strdup (error->message);
  g_mutex_unlock (&status->lock);
  g_printerr ("donar-call: tor-lost: %s\n", error->message);
}

/* Said even with --quiet: the call goes on, but not as asked. */
static void
on_warning (const gchar * message, gpointer user_data)
{
  g_printerr ("donar-call: warning: %s\n", message);
}

/* The peer refused for good, or was never there: a caller that never had
 * a link has no call to wait for. */
static gboolean
never_reached (Status * status)
{
  gboolean never;

  g_mutex_lock (&status->lock);
  never = status->unreachable != NULL && status->max_links_up == 0;
  g_mutex_unlock (&status->lock);
  return never;
}

static guint
links_up (Status * status)
{
  guint n;

  g_mutex_lock (&status->lock);
  n = status->links_up;
  g_mutex_unlock (&status->lock);
  return n;
}

/* `caller -`: the address from the first line of standard input, so that
 * it is not on the command line, which any local user can read
 * (/proc/PID/cmdline).  Wipes what it read; the result is the caller's to
 * wipe. */
static gchar *
read_address (GError ** error)
{
  gchar line[1024];
  gchar *address = NULL;

  /* Unbuffered: no copy of the line in stdio's buffer. */
  setvbuf (stdin, NULL, _IONBF, 0);
  if (fgets (line, sizeof line, stdin) != NULL) {
    line[strcspn (line, "\r\n")] = '\0';
    address = g_strdup (line);
  } else {
    g_set_error_literal (error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
        "caller -: no call address on standard input");
  }
  explicit_bzero (line, sizeof line);
  return address;
}

static void
make_frame (guint8 * frame, gsize length, guint32 counter)
{
  gint64 now = g_get_monotonic_time ();

  memset (frame, 0x5a, length);
  for (guint i = 0; i < 8; i++)
    frame[i] = (guint8) ((guint64) now >> (56 - 8 * i));
  for (guint i = 0; i < 4; i++)
    frame[8 + i] = (guint8) (counter >> (24 - 8 * i));
}

/* How long after a later frame a frame counts as lost. */
#define SETTLE_US (2 * G_USEC_PER_SEC)

typedef struct
{
  guint32 counter;
  gint64 sent_us;
  gint64 arrival_us;
  guint link;                   /* the link of its first copy */
} Arrival;

typedef struct
{
  GArray *latencies_ms;         /* gdouble */
  GArray *arrivals;             /* Arrival */
  guint64 malformed;
} Received;

static void
take_frame (Received * received, const DonarLinkFrame * frame)
{
  guint64 sent = 0;
  guint32 counter = 0;
  gdouble latency;
  Arrival arrival;

  if (frame->length < FRAME_HEADER) {
    received->malformed++;
    return;
  }
  for (guint i = 0; i < 8; i++)
    sent = sent << 8 | frame->data[i];
  for (guint i = 0; i < 4; i++)
    counter = counter << 8 | frame->data[8 + i];
  latency = (gdouble) (frame->arrival_us - (gint64) sent) / 1000.0;
  g_array_append_val (received->latencies_ms, latency);
  arrival.counter = counter;
  arrival.sent_us = (gint64) sent;
  arrival.arrival_us = frame->arrival_us;
  arrival.link = frame->link;
  g_array_append_val (received->arrivals, arrival);
}

/* The frames that had time to come before listen_end: from the first one
 * received to the last one that came SETTLE_US before listen_end.  Their
 * count goes to *expected, how many of them came to *got. */
static void
count_settled (const Received * received, gint64 listen_end, guint * got,
    guint * expected)
{
  guint32 first = G_MAXUINT32, last = 0;
  gboolean any = FALSE;

  *got = *expected = 0;
  for (guint i = 0; i < received->arrivals->len; i++) {
    const Arrival *a = &g_array_index (received->arrivals, Arrival, i);

    first = MIN (first, a->counter);
    if (a->arrival_us <= listen_end - SETTLE_US) {
      last = MAX (last, a->counter);
      any = TRUE;
    }
  }
  if (!any)
    return;
  for (guint i = 0; i < received->arrivals->len; i++) {
    const Arrival *a = &g_array_index (received->arrivals, Arrival, i);

    if (a->counter <= last)
      (*got)++;
  }
  *expected = last - first + 1;
}

/* The peer's frames as donar-sim --frame-log writes a call's direction
 * (tools/framelog/frame-log.h), from its frame 0 to the last that had time
 * to come: both ends on one machine read one clock, so an arrival minus
 * its stamp is the one-way latency, and the evaluations over real tor
 * reckon calls as they do donar-sim's.  A lost frame has no stamp: its
 * send time is the frame period's, never before the frame ahead's.  The
 * origin, on CLOCK_MONOTONIC (g_get_monotonic_time), goes to stderr. */
static gboolean
write_frame_log (const char *path, const Received * received,
    gint64 listen_end, gint frame_ms, GError ** error)
{
  FrameLogWriter *writer = frame_log_writer_new (path);
  const Arrival **by_counter = NULL;
  gint64 origin = 0, previous = G_MININT64, frame_us = frame_ms * 1000;
  guint32 last = 0;
  gboolean any = FALSE;

  for (guint i = 0; i < received->arrivals->len; i++) {
    const Arrival *a = &g_array_index (received->arrivals, Arrival, i);

    if (a->arrival_us <= listen_end - SETTLE_US) {
      last = MAX (last, a->counter);
      any = TRUE;
    }
  }
  if (any) {
    by_counter = g_new0 (const Arrival *, (gsize) last + 1);
    for (guint i = 0; i < received->arrivals->len; i++) {
      const Arrival *a = &g_array_index (received->arrivals, Arrival, i);

      if (a->counter <= last) {
        if (origin == 0 && by_counter[a->counter] == NULL)
          origin = a->sent_us - (gint64) a->counter * frame_us;
        by_counter[a->counter] = a;
      }
    }
    for (guint32 c = 0; c <= last; c++) {
      const Arrival *a = by_counter[c];
      gint64 sent = a ? a->sent_us : MAX (origin + (gint64) c * frame_us,
          previous);

      previous = MAX (previous, sent);
      if (a)
        frame_log_writer_add (writer, c, (sent - origin) / 1000.0,
            (a->arrival_us - origin) / 1000.0);
      else
        frame_log_writer_add_lost (writer, c, (sent - origin) / 1000.0);
    }
    g_free (by_counter);
    /* The log's times count from here: a test that acts on the network
     * at a moment of the monotonic clock finds that moment in the log. */
    g_printerr ("frame-log: origin %" G_GINT64_FORMAT " us\n", origin);
  }
  return frame_log_writer_finish (writer, error);
}

static gint
compare_doubles (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return (x > y) - (x < y);
}

static gdouble
percentile (GArray * sorted, gdouble p)
{
  guint index;

  if (sorted->len == 0)
    return 0;
  index = (guint) (p * (sorted->len - 1) + 0.5);
  return g_array_index (sorted, gdouble, index);
}

/* How the call ended before this end hung up, or NULL. */
static const gchar *
end_text (DonarCall * call)
{
  DonarByeReason reason;

  switch (donar_link_engine_get_end (donar_call_get_engine (call), &reason)) {
    case DONAR_LINK_END_BY_PEER:
      return donar_link_end_peer_reason (reason);
    case DONAR_LINK_END_PEER_LOST:
      return "peer-lost";
    default:
      return NULL;
  }
}

/* Each link's part in the call (--json "links"): what we sent on it, and
 * the peer's frames whose first copy it brought, how many of them later
 * than the deadline: which links a policy used, and where its late frames
 * came from. */
static void
append_links_json (GString * out, const Options * options, DonarCall * call,
    const Received * received)
{
  DonarLinkEngine *engine = donar_call_get_engine (call);
  guint n = (guint) options->links;
  g_autofree guint64 *first = g_new0 (guint64, n);
  g_autofree guint64 *late = g_new0 (guint64, n);
  DonarConfig config;

  donar_config_init (&config);
  for (guint i = 0; i < received->arrivals->len; i++) {
    const Arrival *a = &g_array_index (received->arrivals, Arrival, i);

    if (a->link >= n)
      continue;
    first[a->link]++;
    if (a->arrival_us - a->sent_us > config.deadline_us)
      late[a->link]++;
  }
  g_string_append (out, "\"links\": [");
  for (guint l = 0; l < n; l++) {
    DonarLinkEngineLinkStats stats;

    if (!donar_link_engine_get_link_stats (engine, l, &stats))
      memset (&stats, 0, sizeof stats);
    g_string_append_printf (out, "%s{\"messages_sent\": %" G_GUINT64_FORMAT
        ", \"first_copies\": %" G_GUINT64_FORMAT ", \"first_copies_late\": %"
        G_GUINT64_FORMAT ", \"dials\": %" G_GUINT64_FORMAT
        ", \"records_dropped\": %" G_GUINT64_FORMAT "}", l ? ", " : "",
        stats.session.messages_sent, first[l], late[l], stats.dials,
        stats.records_dropped);
  }
  g_string_append (out, "]");
}

static void
report (const Options * options, DonarCall * call, Status * status,
    Received * received, guint32 frames_sent, gdouble seconds,
    gint64 listen_end)
{
  DonarLinkEngineStats stats;
  guint got, expected;
  gdouble p50, p99, max;
  /* From the last setup step (the caller's: dialing); -1 if the links
   * were never all open. */
  gdouble all_links_up_s = status->all_links_up ?
      (gdouble) (status->all_links_up - status->engine_started) /
      G_USEC_PER_SEC : -1;

  count_settled (received, listen_end, &got, &expected);
  donar_link_engine_get_stats (donar_call_get_engine (call), &stats);
  g_array_sort (received->latencies_ms, compare_doubles);
  p50 = percentile (received->latencies_ms, 0.50);
  p99 = percentile (received->latencies_ms, 0.99);
  max = percentile (received->latencies_ms, 1.0);
  if (options->json) {
    g_autoptr (GString) messages = g_string_new (NULL);

    g_mutex_lock (&status->lock);
    g_string_append (messages, "\"peer_unreachable\": ");
    tool_json_append_string (messages, status->unreachable);
    g_string_append (messages, ", \"tor_lost\": ");
    tool_json_append_string (messages, status->tor_lost);
    g_mutex_unlock (&status->lock);
    g_string_append (messages, ", \"ended\": ");
    tool_json_append_string (messages, end_text (call));
    g_string_append (messages, ", ");
    append_links_json (messages, options, call, received);
    g_print ("{\"seconds\": %.1f, \"policy\": \"%s\", \"budget\": %.2f, "
        "\"messages_per_frame\": %.3f, \"frames_sent\": %u, "
        "\"frames_received\": %u, \"frames_expected\": %u, "
        "\"latency_ms\": {\"p50\": %.1f, \"p99\": %.1f, \"max\": %.1f}, "
        "\"links_up\": %u, \"max_links_up\": %u, \"link_downs\": %u, "
        "\"all_links_up_s\": %.2f, "
        "\"connections_opened\": %" G_GUINT64_FORMAT ", "
        "\"connections_rejected\": %" G_GUINT64_FORMAT ", "
        "\"records_dropped\": %" G_GUINT64_FORMAT ", "
        "\"stalls\": %" G_GUINT64_FORMAT ", "
        "\"hello_timeouts\": %" G_GUINT64_FORMAT ", "
        "\"silences\": %" G_GUINT64_FORMAT ", \"paths_known\": %u, "
        "\"paths_told\": %" G_GUINT64_FORMAT ", "
        "\"frames_unsent\": %" G_GUINT64_FORMAT ", "
        "\"in_time_stalls\": %" G_GUINT64_FORMAT ", "
        "\"frames_withheld\": %" G_GUINT64_FORMAT ", "
        "\"piggybacked\": %" G_GUINT64_FORMAT ", \"malformed\": %"
        G_GUINT64_FORMAT ", %s}\n", seconds,
        options->policy ? options->policy :
        donar_policy_to_string (DONAR_DEFAULT_POLICY), options->budget,
        /* The policy's cost: keepalives (sent while no frame is handed
         * over, after --seconds say) are not a frame's. */
        stats.session.frames_sent ? (gdouble) (stats.session.messages_sent -
            stats.session.keepalives) / stats.session.frames_sent : 0.0,
        frames_sent, got, expected, p50, p99, max, links_up (status),
        status->max_links_up, status->link_downs, all_links_up_s,
        stats.connections_opened, stats.connections_rejected,
        stats.records_dropped, stats.stalls, stats.hello_timeouts,
        stats.silences, stats.paths_known, stats.paths_told,
        stats.session.frames_unsent, stats.session.stalls,
        stats.session.frames_withheld, stats.session.frames_piggyback_delivered,
        received->malformed, messages->str);
  } else {
    g_print ("sent %u frames in %.1f s; received %u of %u (%.2f %% lost); "
        "latency p50 %.1f ms, p99 %.1f ms, max %.1f ms; links up %u "
        "(most %u), %u closed, %" G_GUINT64_FORMAT " strangers rejected\n",
        frames_sent, seconds, got, expected,
        expected ? 100.0 * (expected - MIN (got, expected)) / expected : 0.0,
        p50, p99, max, links_up (status), status->max_links_up,
        status->link_downs, stats.connections_rejected);
  }
}

/* Sends for options->seconds once enough links are up, receiving all the
 * while, then listens 2 s more for the frames still on the way; less if
 * the peer hangs up. */
static void
run_call (const Options * options, DonarCall * call, Status * status)
{
  DonarLinkEngine *engine = donar_call_get_engine (call);
  Received received = { 0 };
  gint64 frame_us = (gint64) options->frame_ms * 1000;
  gint64 start, stop_sending, stop, next, now;
  guint32 counter = 0;
  guint8 frame[DONAR_CELL_PAYLOAD];
  gsize frame_length = MAX (options->frame_bytes, FRAME_HEADER);

  g_autoptr (SendLog) send_log = options->send_log ?
      send_log_new ((guint) options->links) : NULL;

  received.latencies_ms = g_array_new (FALSE, FALSE, sizeof (gdouble));
  received.arrivals = g_array_new (FALSE, FALSE, sizeof (Arrival));

  start = g_get_monotonic_time () +
      (gint64) options->setup_timeout_s * G_USEC_PER_SEC;
  /* Receiving while the links come up: the peer may be sending already,
   * and what is not popped meanwhile overflows the engine's receive queue
   * (a slow set-up lost the first 10 s of the callee's frames). */
  while (!interrupted && links_up (status) < (guint) options->wait_links &&
      g_get_monotonic_time () < start && !never_reached (status)) {
    DonarLinkFrame *in = donar_link_engine_pop_frame (engine,
        g_get_monotonic_time () + 10 * 1000);

    if (in) {
      take_frame (&received, in);
      g_free (in);
    } else if (donar_link_engine_get_end (engine, NULL) != DONAR_LINK_END_NONE)
      /* Ended: pop_frame returns at once. */
      g_usleep (10 * 1000);
  }
  if (never_reached (status))
    return;
  start = g_get_monotonic_time ();
  stop_sending = start + (gint64) (options->seconds * G_USEC_PER_SEC);
  stop = stop_sending + 2 * G_USEC_PER_SEC;
  next = start;
  while (!interrupted && g_get_monotonic_time () < stop) {
    DonarLinkFrame *in;

    if (next < stop_sending && g_get_monotonic_time () >= next) {
      GError *error = NULL;

      make_frame (frame, frame_length, counter++);
      if (!donar_link_engine_send_frame (engine, frame, frame_length, &error)) {
        g_printerr ("donar-call: %s\n", error->message);
        g_clear_error (&error);
        break;
      }
      if (send_log)
        send_log_note (send_log, engine, counter - 1, g_get_monotonic_time ());
      next += frame_us;
    }
    in = donar_link_engine_pop_frame (engine, MIN (next, stop));
    if (in) {
      take_frame (&received, in);
      g_free (in);
    } else {
      DonarLinkEnd end = donar_link_engine_get_end (engine, NULL);

      /* The peer hung up, and every frame it sent came first. */
      if (end == DONAR_LINK_END_BY_PEER)
        break;
      /* Lost: pop_frame returns at once from now on; without a wait this
       * loop would spin a core until --seconds. */
      if (end != DONAR_LINK_END_NONE) {
        gint64 wait = MIN (next, stop) - g_get_monotonic_time ();

        if (wait > 0)
          g_usleep (wait);
      }
    }
  }
  now = g_get_monotonic_time ();
  if (send_log) {
    GError *error = NULL;

    if (!send_log_write (send_log, options->send_log, &error)) {
      g_printerr ("donar-call: --send-log: %s\n", error->message);
      g_clear_error (&error);
    }
  }
  if (options->frame_log != NULL) {
    GError *error = NULL;

    if (!write_frame_log (options->frame_log, &received, now,
            options->frame_ms, &error)) {
      g_printerr ("donar-call: --frame-log: %s\n", error->message);
      g_clear_error (&error);
    }
  }
  report (options, call, status, &received, counter,
      (gdouble) (MIN (now, stop_sending) - start) / G_USEC_PER_SEC, now);
  g_array_unref (received.latencies_ms);
  g_array_unref (received.arrivals);
}

static gboolean
fill_call_options (Options * o, DonarRole role, const gchar * address,
    DonarCallOptions * call, GError ** error)
{
  DonarTorSecurity security = DONAR_TOR_SECURITY_DEFAULT;

  if (o->security && !donar_tor_security_from_string (o->security, &security)) {
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "--security: default, 2hop or 1way, not \"%s\"", o->security);
    return FALSE;
  }
  donar_call_options_init (call, role);
  call->address = address;
  call->transport = o->direct ? DONAR_CALL_TRANSPORT_DIRECT :
      DONAR_CALL_TRANSPORT_TOR;
  if (!donar_call_parse_tor_control (call, "--tor-control", o->tor_control,
          &o->control_socket, error)
      || !donar_call_parse_tor_socks_path (call, "--tor-socks-path",
          o->tor_socks_path, &o->socks_socket, error)) {
    donar_call_options_clear (call);
    return FALSE;
  }
  call->tor_cookie_file = o->tor_cookie;
  call->tor_password = o->tor_password;
  call->tor_socks_port = (guint16) o->tor_socks;
  call->extra_torrc_lines = (const gchar * const *) o->torrc_lines;
  call->security = security;
  call->guards_explicit = o->guards != GUARDS_UNSET;
  if (call->guards_explicit)
    call->num_entry_guards = (guint) o->guards;
  call->on_warning = on_warning;
  call->virtual_port = (guint16) o->virtual_port;
  call->client_auth = o->client_auth;
  call->key_file = o->key_file;
  call->client_auth_dir = o->client_auth_dir;
  call->setup_timeout_ms = (guint) o->setup_timeout_s * 1000;
  call->engine.config.n_links = (guint) o->links;
  call->engine.config.n_1st = (guint) o->n1st;
  call->engine.config.n_2nd = (guint) o->n2nd;
  call->engine.config.frame_period_us = (gint64) o->frame_ms * 1000;
  call->engine.peer_timeout_us = (gint64) (o->peer_timeout_s * G_USEC_PER_SEC);
  call->on_tor_lost = on_tor_lost;
  call->engine.config.budget = o->budget;
  if (o->no_spread_copies)
    call->engine.config.spread_copies = FALSE;
  if (o->policy && !donar_policy_from_string (o->policy,
          &call->engine.config.policy)) {
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "--policy: simple, torfone, alternate, double-send or adaptive, "
        "not \"%s\"", o->policy);
    donar_call_options_clear (call);
    return FALSE;
  }
  if ((o->spread_copies || o->no_spread_copies) &&
      call->engine.config.policy != DONAR_POLICY_ADAPTIVE) {
    g_set_error_literal (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        o->spread_copies ? "--spread-copies: only with --policy adaptive" :
        "--no-spread-copies: only with --policy adaptive");
    donar_call_options_clear (call);
    return FALSE;
  }
  if (o->spread_copies && o->no_spread_copies) {
    g_set_error_literal (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "--spread-copies and --no-spread-copies: one or the other");
    donar_call_options_clear (call);
    return FALSE;
  }
  /* One frame and its header in a cell: the header depends on the links
   * and on what the policy sends (docs/protocol.md). */
  if ((gsize) o->frame_bytes > DONAR_CELL_PAYLOAD -
      donar_config_record_overhead (&call->engine.config, 1)) {
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "--frame-bytes: at most %" G_GSIZE_FORMAT " with these settings",
        DONAR_CELL_PAYLOAD - donar_config_record_overhead
        (&call->engine.config, 1));
    donar_call_options_clear (call);
    return FALSE;
  }
  return TRUE;
}

static gboolean
check_ranges (const Options * o, GError ** error)
{
  const gchar *bad = NULL;

  if (o->tor_socks < 0 || o->tor_socks > 65535)
    bad = "--tor-socks: a port, 1 to 65535";
  else if (o->virtual_port < 1 || o->virtual_port > 65535)
    bad = "--virtual-port: a port, 1 to 65535";
  else if (o->seconds <= 0)
    bad = "--seconds must be positive";
  else if (o->frame_ms < 1 || o->frame_ms > 1000)
    bad = "--frame-ms: 1 to 1000";
  else if (o->frame_bytes < FRAME_HEADER || o->frame_bytes > DONAR_CELL_PAYLOAD)
    bad = "--frame-bytes: 12 to 498, and one frame must fit a cell";
  else if (o->links < 1 || o->links > DONAR_MAX_LINKS)
    bad = "--links: 1 to 32";
  else if (o->wait_links < 0 || o->wait_links > o->links)
    bad = "--wait-links: 0 to --links";
  else if (o->setup_timeout_s < 1)
    bad = "--setup-timeout must be positive";
  else if (!(o->peer_timeout_s >= 0.1 && o->peer_timeout_s <= 86400))
    bad = "--peer-timeout: 0.1 to 86400 seconds";
  else if (!(o->budget >= 1.0 && o->budget <= 2.0))
    bad = "--budget: 1.0 to 2.0";
  else if (o->guards != GUARDS_UNSET && o->guards < 0)
    bad = "--guards: 0 (tor's own setting) to 12";
  if (bad) {
    g_set_error_literal (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, bad);
    return FALSE;
  }
  /* Above 12: lib/call says why. */
  return o->guards == GUARDS_UNSET
      || donar_call_check_guards ((guint) o->guards, error);
}

/* The call's settings from the library's defaults (DONAR_DEFAULT_*,
 * DONAR_CALL_DEFAULT_*), as the elements'. */
static void
options_init (Options * o)
{
  Options defaults = {
    .virtual_port = DONAR_CALL_DEFAULT_VIRTUAL_PORT,
    .seconds = 20.0,
    .wait_links = 1,
    .frame_ms = DONAR_DEFAULT_FRAME_PERIOD_US / 1000,
    .frame_bytes = 172,
    .links = DONAR_DEFAULT_LINKS,
    .n1st = DONAR_DEFAULT_N_1ST,
    .n2nd = DONAR_DEFAULT_N_2ND,
    .setup_timeout_s = DONAR_CALL_DEFAULT_SETUP_TIMEOUT_MS / 1000,
    .peer_timeout_s = (gdouble) DONAR_LINK_ENGINE_DEFAULT_PEER_TIMEOUT_US /
        G_USEC_PER_SEC,
    .budget = DONAR_DEFAULT_BUDGET,
    .guards = GUARDS_UNSET,
  };

  *o = defaults;
}

/* How the call reaches Tor, and the callee's onion. */
static void
add_tor_entries (GOptionContext * context, Options * o)
{
  GOptionEntry entries[] = {
    {"direct", 0, 0, G_OPTION_ARG_NONE, &o->direct,
        "No Tor: the callee on 127.0.0.1 (tests, the ceiling)", NULL},
    {"tor-control", 0, 0, G_OPTION_ARG_STRING, &o->tor_control,
          "A running tor's ControlPort on 127.0.0.1, or its ControlSocket "
          "(/run/tor/control or unix:/run/tor/control) (default: launch tor)",
        "PORT|PATH"},
    {"tor-cookie", 0, 0, G_OPTION_ARG_FILENAME, &o->tor_cookie,
        "Its cookie file (default: the one tor names)", "FILE"},
    {"tor-password", 0, 0, G_OPTION_ARG_STRING, &o->tor_password,
        "Its control password", "PASSWORD"},
    {"tor-socks", 0, 0, G_OPTION_ARG_INT, &o->tor_socks,
        "Caller: tor's SocksPort (default: ask the control port)", "PORT"},
    {"tor-socks-path", 0, 0, G_OPTION_ARG_FILENAME, &o->tor_socks_path,
        "Caller: tor's SocksPort on a Unix socket (default: ask the "
          "control port)", "PATH"},
    {"torrc-line", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o->torrc_lines,
        "A line for the torrc of a launched tor (repeatable)", "LINE"},
    {"security", 0, 0, G_OPTION_ARG_STRING, &o->security,
        "default or 1way, for a launched tor (docs/security.md)", "NAME"},
    {"guards", 0, 0, G_OPTION_ARG_INT, &o->guards,
          "Entry guards of the call's tor, 0 (tor's own: one) to "
          G_STRINGIFY (DONAR_CALL_MAX_GUARDS) " ("
          G_STRINGIFY (DONAR_CALL_DEFAULT_GUARDS) "): "
          "more, faster links and more exposure (docs/security.md).  "
          "With --tor-control, set on that tor for the call only if given",
        "N"},
    {"client-auth", 0, 0, G_OPTION_ARG_NONE, &o->client_auth,
        "Callee: onion client authorization (the address carries the "
          "caller's key)", NULL},
    {"key-file", 0, 0, G_OPTION_ARG_FILENAME, &o->key_file,
        "Callee: a lasting address: the onion key and call secret kept in "
          "FILE (mode 0600), made on first use", "FILE"},
    {"client-auth-dir", 0, 0, G_OPTION_ARG_FILENAME, &o->client_auth_dir,
        "Callee: only the contacts whose NAME.auth keys DIR holds reach "
          "the onion (see contact-key)", "DIR"},
    {"virtual-port", 0, 0, G_OPTION_ARG_INT, &o->virtual_port,
        "Callee: the onion's port ("
          G_STRINGIFY (DONAR_CALL_DEFAULT_VIRTUAL_PORT) ")", "PORT"},
    {"address-file", 0, 0, G_OPTION_ARG_FILENAME, &o->address_file,
        "Callee: write the call address there too (mode 0600)", "FILE"},
    G_OPTION_ENTRY_NULL
  };

  g_option_context_add_main_entries (context, entries, NULL);
}

/* The frames, the policy and its links, and what is reported. */
static void
add_call_entries (GOptionContext * context, Options * o)
{
  GOptionEntry entries[] = {
    {"seconds", 0, 0, G_OPTION_ARG_DOUBLE, &o->seconds,
        "How long to send frames (20)", "S"},
    {"wait-links", 0, 0, G_OPTION_ARG_INT, &o->wait_links,
          "Start sending once this many links are open, or after --setup-timeout (1)",
        "N"},
    {"frame-ms", 0, 0, G_OPTION_ARG_INT, &o->frame_ms,
        "One frame every this many ms (40)", "MS"},
    {"frame-bytes", 0, 0, G_OPTION_ARG_INT, &o->frame_bytes,
        "Bytes per frame (172: Opus at 32 kbit/s, 40 ms)", "N"},
    {"policy", 0, 0, G_OPTION_ARG_STRING, &o->policy,
          "simple, torfone, alternate, double-send or adaptive (default)",
        "NAME"},
    {"budget", 0, 0, G_OPTION_ARG_DOUBLE, &o->budget,
        "adaptive: Tor cells a frame on average, 1.0 (alternate's) to 2.0 "
          "(double-send's) (" G_STRINGIFY (DONAR_DEFAULT_BUDGET) ")", "B"},
    {"spread-copies", 0, 0, G_OPTION_ARG_NONE, &o->spread_copies,
        "adaptive: a frame's second copy avoids the previous frame's links "
          "too, 4 links a frame and its piggybacked copy (default)", NULL},
    {"no-spread-copies", 0, 0, G_OPTION_ARG_NONE, &o->no_spread_copies,
        "adaptive: a frame's second copy on the best link apart from its "
          "first copy's, which may be the previous frame's", NULL},
    {"links", 0, 0, G_OPTION_ARG_INT, &o->links,
        "Links (" G_STRINGIFY (DONAR_DEFAULT_LINKS) ")", "N"},
    {"n1st", 0, 0, G_OPTION_ARG_INT, &o->n1st,
        "Links in L1ST (" G_STRINGIFY (DONAR_DEFAULT_N_1ST) ")", "N"},
    {"n2nd", 0, 0, G_OPTION_ARG_INT, &o->n2nd,
        "Links in L2ND (" G_STRINGIFY (DONAR_DEFAULT_N_2ND) ")", "N"},
    {"setup-timeout", 0, 0, G_OPTION_ARG_INT, &o->setup_timeout_s,
        "Seconds for each setup step: bootstrap, publishing (120)", "S"},
    {"peer-timeout", 0, 0, G_OPTION_ARG_DOUBLE, &o->peer_timeout_s,
        "End the call, the peer unreachable, after this long with no link "
          "open (60)", "S"},
    {"json", 0, 0, G_OPTION_ARG_NONE, &o->json,
        "The report as one JSON object", NULL},
    {"quiet", 0, 0, G_OPTION_ARG_NONE, &o->quiet,
        "No progress and events on stderr", NULL},
    {"frame-log", 0, 0, G_OPTION_ARG_FILENAME, &o->frame_log,
          "Write the fate of each of the peer's frames to FILE (CSV rows "
          "seq,sent_ms,arrival_ms as donar-sim's; no arrival: lost)",
        "FILE"},
    {"send-log", 0, 0, G_OPTION_ARG_FILENAME, &o->send_log,
        "Write the links each of our frames went on to FILE (CSV rows "
          "seq,sent_ms,links,no_link_in_time)", "FILE"},
    G_OPTION_ENTRY_NULL
  };

  g_option_context_add_main_entries (context, entries, NULL);
}

/* The options into *o, checked; the arguments left in argc, argv. */
static gboolean
parse_options (Options * o, int *argc, char ***argv, GError ** error)
{
  g_autoptr (GOptionContext) context =
      g_option_context_new ("callee | caller ADDRESS | caller - | "
      "contact-key NAME DIR");

  add_tor_entries (context, o);
  add_call_entries (context, o);
  g_option_context_set_summary (context,
      "One end of a DONAR call with made-up voice frames; prints what came "
      "back.  \"caller -\" reads the call address from standard input: "
      "on the command line, other local users can read it.  \"contact-key "
      "NAME DIR\" writes a contact's public key to DIR/NAME.auth (for "
      "--client-auth-dir) and prints its secret key, which the contact "
      "adds to the address as &auth=KEY.");
  return g_option_context_parse (context, argc, argv, error) &&
      check_ranges (o, error);
}

/* callee, or caller and the call address; "caller -" reads it from
 * standard input into *stdin_address (the caller's to wipe). */
static gboolean
parse_role (int argc, char **argv, DonarRole * role, gchar ** stdin_address,
    GError ** error)
{
  if (argc == 2 && strcmp (argv[1], "callee") == 0)
    *role = DONAR_ROLE_CALLEE;
  else if (argc == 3 && strcmp (argv[1], "caller") == 0)
    *role = DONAR_ROLE_CALLER;
  else {
    g_set_error_literal (error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
        "say callee, or caller and the call address");
    return FALSE;
  }
  if (*role == DONAR_ROLE_CALLER && strcmp (argv[2], "-") == 0) {
    *stdin_address = read_address (error);
    if (*stdin_address == NULL)
      return FALSE;
  }
  return TRUE;
}

static void
handle_signals (void)
{
  struct sigaction action = { 0 };

  action.sa_handler = on_signal;
  sigaction (SIGINT, &action, NULL);
  sigaction (SIGTERM, &action, NULL);
  /* A caller that read the address from our stdout and ended first
   * closes the pipe: the report then goes nowhere, and must not kill us. */
  signal (SIGPIPE, SIG_IGN);
}

/* The callee's address: on stdout, alone on its line, for `callee |
 * caller -` (the messages stay on stderr); with --json, stdout is the
 * report alone, and --address-file gives the address to a program. */
static gboolean
publish_address (const Options * o, DonarCall * call, GError ** error)
{
  if (!o->json) {
    g_print ("%s\n", donar_call_get_address (call));
    fflush (stdout);
  } else if (!o->quiet) {
    g_printerr ("donar-call: call address: %s\n",
        donar_call_get_address (call));
  }
  return o->address_file == NULL ||
      donar_call_write_address_file (o->address_file,
      donar_call_get_address (call), error);
}

/* 1, and why on stderr, if the call never reached the peer or the
 * callee's onion is gone; else 0. */
static int
exit_status_of (Status * status, DonarRole role)
{
  if (never_reached (status)) {
    g_printerr ("donar-call: %s\n", status->unreachable);
    return 1;
  }
  if (role == DONAR_ROLE_CALLEE && status->tor_lost) {
    /* The call went on over the links already open, but nobody can dial
     * this callee any more: not a success. */
    g_printerr ("donar-call: %s\n", status->tor_lost);
    return 1;
  }
  return 0;
}

int
main (int argc, char **argv)
{
  Options o;
  gchar *stdin_address = NULL;
  GError *error = NULL;
  DonarCallOptions call_options;
  DonarCall *call;
  DonarRole role;
  Status status = { 0 };
  int exit_status;

  options_init (&o);
  if (!parse_options (&o, &argc, &argv, &error))
    goto usage;
  if (argc == 4 && strcmp (argv[1], "contact-key") == 0) {
    options_clear (&o);
    return contact_key_main (argv[2], argv[3]);
  }
  if (!parse_role (argc, argv, &role, &stdin_address, &error))
    goto usage;
  /* call_options.address points to it until donar_call_start. */
  if (!fill_call_options (&o, role, role == DONAR_ROLE_CALLER ?
          (stdin_address ? stdin_address : argv[2]) : NULL, &call_options,
          &error))
    goto usage;

  handle_signals ();
  g_mutex_init (&status.lock);
  status.quiet = o.quiet;
  call = donar_call_start (&call_options, on_progress, on_event, &status,
      NULL, &error);
  donar_call_options_clear (&call_options);
  donar_secret_free (stdin_address);
  if (call == NULL) {
    g_printerr ("donar-call: %s\n", error->message);
    g_error_free (error);
    options_clear (&o);
    return 1;
  }
  if (role == DONAR_ROLE_CALLEE && !publish_address (&o, call, &error)) {
    g_printerr ("donar-call: %s\n", error->message);
    g_error_free (error);
    donar_call_free (call);
    options_clear (&o);
    return 1;
  }
  run_call (&o, call, &status);
  /* The peer is told, not left to its peer timeout. */
  donar_link_engine_end (donar_call_get_engine (call), DONAR_BYE_HUNG_UP,
      G_USEC_PER_SEC);
  donar_call_free (call);
  exit_status = exit_status_of (&status, role);
  g_free (status.unreachable);
  g_free (status.tor_lost);
  options_clear (&o);
  return exit_status;

usage:
  donar_secret_free (stdin_address);
  g_printerr ("donar-call: %s\n", error->message);
  g_error_free (error);
  options_clear (&o);
  return 2;
}
