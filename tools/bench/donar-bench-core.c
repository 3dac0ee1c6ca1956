/* donar-bench-core: the CPU the protocol core takes per frame event, the
 * two endpoints of a call joined in memory (no links, no delay): each frame
 * is one send_frame () on one side and the receive () of its messages on the
 * other.  A benchmark, not a test: its figures go into docs/performance.md. */
#include "donar-session-private.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

typedef struct
{
  DonarSession *peer;
  gint64 now;
  guint64 delivered;
  /* The HELLOs sent before the peer's end of the links was open. */
  GPtrArray *early[DONAR_MAX_LINKS];
} Endpoint;

static void
on_send (gpointer user_data, guint link, const guint8 * record, gsize length)
{
  Endpoint *e = user_data;

  if (e->peer == NULL)
    g_ptr_array_add (e->early[link], g_bytes_new (record, length));
  else
    donar_session_receive (e->peer, link, record, length, e->now);
}

/* Hands the peer what e sent while unconnected; TRUE if there was any.
 * The peer's answers wait in its own list: nothing is received from
 * within a receive. */
static gboolean
flush_early (Endpoint * e, DonarSession * peer)
{
  gboolean any = FALSE;

  /* Links beyond n_links sent nothing: their lists are empty. */
  for (guint link = 0; link < DONAR_MAX_LINKS; link++) {
    GPtrArray *early = e->early[link];

    e->early[link] = g_ptr_array_new_with_free_func ((GDestroyNotify)
        g_bytes_unref);
    for (guint i = 0; i < early->len; i++) {
      gsize length;
      const guint8 *data =
          g_bytes_get_data (g_ptr_array_index (early, i), &length);

      donar_session_receive (peer, link, data, length, 0);
      any = TRUE;
    }
    g_ptr_array_unref (early);
  }
  return any;
}

static void
on_deliver (gpointer user_data, guint32 seq, const guint8 * frame,
    gsize length, guint link, gboolean piggybacked)
{
  ((Endpoint *) user_data)->delivered++;
}

static gdouble
cpu_seconds (void)
{
  struct timespec t;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

int
main (int argc, char **argv)
{
  static const DonarCallbacks callbacks =
      { on_send, on_deliver, NULL, NULL, NULL };
  static const guint8 secret[32] = { 1 };
  gint frames = 25 * 60 * 90;
  gchar *policy_name = NULL;
  GOptionEntry entries[] = {
    {"frames", 0, 0, G_OPTION_ARG_INT, &frames,
        "frames each way (a 90-minute call: 135000)", "N"},
    {"policy", 0, 0, G_OPTION_ARG_STRING, &policy_name,
        "alternate, double-send or adaptive at budget 2 (double-send)", "P"},
    G_OPTION_ENTRY_NULL
  };
  GOptionContext *context = g_option_context_new ("- core CPU per frame");
  GError *error = NULL;
  DonarConfig config;
  Endpoint a = { 0 }, b = { 0 };
  DonarSession *caller, *callee;
  guint8 frame[172] = { 0x80, 0x60 };
  gdouble start, cpu;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error)) {
    fprintf (stderr, "donar-bench-core: %s\n", error->message);
    return 2;
  }
  g_option_context_free (context);
  donar_config_init (&config);
  config.policy = DONAR_POLICY_DOUBLE_SEND;
  if (policy_name && !donar_policy_from_string (policy_name, &config.policy)) {
    fprintf (stderr, "donar-bench-core: --policy: alternate or double-send\n");
    return 2;
  }
  if (frames < 1) {
    fprintf (stderr, "donar-bench-core: --frames must be positive\n");
    return 2;
  }

  caller = donar_session_new (&config, DONAR_ROLE_CALLER, secret,
      sizeof secret, &callbacks, &a, 0, NULL);
  config.seed = 1;
  callee = donar_session_new (&config, DONAR_ROLE_CALLEE, secret,
      sizeof secret, &callbacks, &b, 0, NULL);
  /* Both ends of every link open, then the opening records flow. */
  for (guint link = 0; link < DONAR_MAX_LINKS; link++) {
    a.early[link] = g_ptr_array_new_with_free_func ((GDestroyNotify)
        g_bytes_unref);
    b.early[link] = g_ptr_array_new_with_free_func ((GDestroyNotify)
        g_bytes_unref);
  }
  for (guint link = 0; link < config.n_links; link++) {
    guint8 nonce[DONAR_WIRE_NONCE] = { (guint8) link };

    donar_session_link_up (caller, link, nonce, 0);
    nonce[1] = 1;
    donar_session_link_up (callee, link, nonce, 0);
  }
  /* The CHALLENGEs, then the HELLOs, back and forth. */
  while (flush_early (&b, caller) | flush_early (&a, callee));
  a.peer = callee;
  b.peer = caller;
  for (guint link = 0; link < DONAR_MAX_LINKS; link++) {
    g_ptr_array_unref (a.early[link]);
    g_ptr_array_unref (b.early[link]);
  }

  start = cpu_seconds ();
  for (gint f = 0; f < frames; f++) {
    gint64 now = (gint64) f * config.frame_period_us;

    a.now = b.now = now;
    memcpy (frame + 4, &f, sizeof f);
    if (now >= donar_session_get_expiry (caller))
      donar_session_handle_expiry (caller, now);
    if (now >= donar_session_get_expiry (callee))
      donar_session_handle_expiry (callee, now);
    donar_session_send_frame (caller, frame, sizeof frame, now);
    donar_session_send_frame (callee, frame, sizeof frame, now);
  }
  cpu = cpu_seconds () - start;

  /* One frame event of one endpoint: a frame sent and the peer's frame
   * received, the window timer included. */
  printf ("{\"policy\": \"%s\", \"frames_each_way\": %d, "
      "\"delivered\": %" G_GUINT64_FORMAT ", \"cpu_s\": %.3f, "
      "\"us_per_frame_event\": %.3f, \"session_bytes\": %" G_GSIZE_FORMAT
      "}\n",
      donar_policy_to_string (config.policy), frames,
      a.delivered + b.delivered, cpu, cpu * 1e6 / (2.0 * frames),
      sizeof (DonarSession));
  donar_session_free (caller);
  donar_session_free (callee);
  g_free (policy_name);
  return a.delivered + b.delivered == 2 * (guint64) frames ? 0 : 1;
}
