/* A program of libdonar's users, built against the installed library
 * through `pkg-config --cflags --libs donar-1.0` (check-install.sh): a call
 * address written and read back, then a call between two sessions whose
 * links are queues in memory, a frame each way, and the caller's hang-up.
 * The address is donar-call.h's (donar-call-address.h), as an application
 * of the call has it; check-install.sh compiles every installed header
 * by itself. */
#include <donar.h>
#include <donar-call.h>

#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#define N_LINKS 4

typedef struct Endpoint Endpoint;
struct Endpoint
{
  DonarSession *session;
  Endpoint *peer;
  GByteArray *got;
  guint frames;
};

/* A record on its way: the links are FIFOs, so a session never receives
 * from within its own send callback. */
typedef struct
{
  Endpoint *to;
  guint link;
  GBytes *record;
} Record;

static GQueue wire = G_QUEUE_INIT;

static void
on_send (gpointer user_data, guint link, const guint8 * record, gsize length)
{
  Endpoint *e = user_data;
  Record *r = g_new (Record, 1);

  r->to = e->peer;
  r->link = link;
  r->record = g_bytes_new (record, length);
  g_queue_push_tail (&wire, r);
}

static void
on_deliver (gpointer user_data, guint32 seq, const guint8 * frame,
    gsize length, guint link, gboolean piggybacked)
{
  Endpoint *e = user_data;

  g_byte_array_append (e->got, frame, length);
  e->frames++;
}

static const DonarCallbacks callbacks =
    { on_send, on_deliver, NULL, NULL, NULL };

static int
fail (const char *what)
{
  fprintf (stderr, "not ok: %s\n", what);
  return 1;
}

/* Hands every record in flight to its session; FALSE if one is refused. */
static gboolean
pump (gint64 now)
{
  Record *r;
  gboolean ok = TRUE;

  while ((r = g_queue_pop_head (&wire))) {
    gsize length;
    const guint8 *data = g_bytes_get_data (r->record, &length);

    if (donar_session_receive (r->to->session, r->link, data, length,
            now) != DONAR_OK)
      ok = FALSE;
    g_bytes_unref (r->record);
    g_free (r);
  }
  return ok;
}

static int
check_address (void)
{
  DonarCallAddress address = { 0 }, back = { 0 };
  GError *error = NULL;
  gchar *text;
  gboolean same;

  address.host = g_strdup ("127.0.0.1");
  address.port = 5004;
  memset (address.secret, 0x5a, sizeof address.secret);
  text = donar_call_address_to_string (&address);
  if (!donar_call_address_parse (text, &back, &error))
    return fail (error->message);
  same = back.port == address.port && g_str_equal (back.host, address.host)
      && memcmp (back.secret, address.secret, sizeof back.secret) == 0;
  g_free (text);
  donar_call_address_clear (&address);
  donar_call_address_clear (&back);
  if (!same)
    return fail ("the address read back differs");
  printf ("ok: a donar:// address written and read back\n");
  return 0;
}

static int
check_call (void)
{
  static const guint8 secret[DONAR_CALL_SECRET_LENGTH] =
      "an example's 32-byte call secret";
  static const guint8 hello[] = "a voice frame, caller to callee";
  static const guint8 answer[] = "and one back";
  Endpoint caller = { 0 }, callee = { 0 };
  DonarConfig config;
  DonarError error;
  gboolean by_peer = FALSE;
  gint64 now = 1000000;

  donar_config_init (&config);
  config.n_links = N_LINKS;
  config.n_1st = 1;
  config.n_2nd = 1;
  caller.session = donar_session_new (&config, DONAR_ROLE_CALLER, secret,
      sizeof secret, &callbacks, &caller, now, &error);
  callee.session = donar_session_new (&config, DONAR_ROLE_CALLEE, secret,
      sizeof secret, &callbacks, &callee, now, &error);
  if (caller.session == NULL || callee.session == NULL)
    return fail (donar_error_to_string (error));
  caller.peer = &callee;
  callee.peer = &caller;
  caller.got = g_byte_array_new ();
  callee.got = g_byte_array_new ();

  /* Each end of each link opens with a fresh nonce, as the link engine's
   * do; the callee's CHALLENGE goes first. */
  for (guint link = 0; link < N_LINKS; link++) {
    guint8 nonce[DONAR_WIRE_NONCE];

    if (getrandom (nonce, sizeof nonce, 0) != sizeof nonce)
      return fail ("getrandom");
    donar_session_link_up (callee.session, link, nonce, now);
    if (getrandom (nonce, sizeof nonce, 0) != sizeof nonce)
      return fail ("getrandom");
    donar_session_link_up (caller.session, link, nonce, now);
  }
  if (!pump (now))
    return fail ("the links did not open");

  now += 40000;
  if (donar_session_send_frame (caller.session, hello, sizeof hello,
          now) != DONAR_OK || !pump (now))
    return fail ("the caller's frame");
  if (donar_session_send_frame (callee.session, answer, sizeof answer,
          now) != DONAR_OK || !pump (now))
    return fail ("the callee's frame");
  if (callee.frames != 1 || callee.got->len != sizeof hello
      || memcmp (callee.got->data, hello, sizeof hello) != 0)
    return fail ("the callee did not get the caller's frame");
  if (caller.frames != 1 || caller.got->len != sizeof answer
      || memcmp (caller.got->data, answer, sizeof answer) != 0)
    return fail ("the caller did not get the callee's frame");
  printf ("ok: a frame each way between two sessions\n");

  donar_session_end (caller.session, DONAR_BYE_HUNG_UP, now);
  if (!pump (now) || !donar_session_has_ended (callee.session, &by_peer,
          NULL) || !by_peer)
    return fail ("the callee did not hear the hang-up");
  printf ("ok: the caller hung up, the callee knows\n");

  donar_session_free (caller.session);
  donar_session_free (callee.session);
  g_byte_array_unref (caller.got);
  g_byte_array_unref (callee.got);
  return 0;
}

int
main (void)
{
  return check_address () || check_call ();
}
