/* donar-torsim's SocksPort isolation flags (--socks-flag), as tor's:
 * streams to two ports of one onion, from one or two client addresses,
 * with or without credentials, share a circuit or do not.  Each case
 * starts its own donar-torsim and stops it by PID. */
#include "torsim-test-util.h"

#include <string.h>
#include <unistd.h>

#define MAX_FLAGS 3
#define MAX_STEPS 5
/* donar-torsim's default --links. */
#define N_LINKS 12

/* One stream: who opens it, to where, and the link it must get.  Links
 * are taken lowest free first, so the index tells the circuit. */
typedef struct
{
  const gchar *source;          /* client address; NULL: 127.0.0.1 */
  const gchar *user;            /* NULL: no credentials */
  const gchar *prefix;          /* before the onion id, e.g. "www." */
  gboolean upper;               /* the name in upper case */
  guint16 port;                 /* 80 or 81 */
  guint link;
} Step;

typedef struct
{
  const gchar *flags[MAX_FLAGS];        /* --socks-flag values */
  Step steps[MAX_STEPS];
} Case;

typedef struct
{
  TorsimProcess *p;
  Ctl *ctl;
  gint listener[2];             /* the targets of ports 80 and 81 */
  gchar *onion;
} Setup;

static Setup *
setup_new (const Case * c)
{
  Setup *s = g_new0 (Setup, 1);
  GPtrArray *args = g_ptr_array_new ();
  guint16 target[2];
  g_autofree gchar *ports = NULL;
  DonarTorctlReply *event;

  g_ptr_array_add (args, (gpointer) "--publish-ms");
  g_ptr_array_add (args, (gpointer) "100");
  for (guint i = 0; i < MAX_FLAGS && c->flags[i] != NULL; i++) {
    g_ptr_array_add (args, (gpointer) "--socks-flag");
    g_ptr_array_add (args, (gpointer) c->flags[i]);
  }
  g_ptr_array_add (args, NULL);
  s->p = torsim_process_start ((const gchar * const *) args->pdata);
  g_ptr_array_free (args, TRUE);
  s->ctl = ctl_open (s->p->control_port);
  ctl_authenticate (s->ctl);
  for (guint i = 0; i < 2; i++)
    s->listener[i] = tcp_listen (&target[i]);
  ctl_expect (s->ctl, "SETEVENTS HS_DESC", 250);
  ports = g_strdup_printf ("Port=80,127.0.0.1:%u Port=81,127.0.0.1:%u",
      target[0], target[1]);
  s->onion = ctl_add_onion (s->ctl, ports);
  do {
    event = ctl_wait_event (s->ctl, "HS_DESC", TIMEOUT_MS);
    g_assert_nonnull (event);
    if (strstr (event->lines[0].text, "UPLOADED") != NULL) {
      donar_torctl_reply_free (event);
      break;
    }
    donar_torctl_reply_free (event);
  } while (TRUE);
  return s;
}

static void
setup_free (Setup * s)
{
  ctl_free (s->ctl);
  close (s->listener[0]);
  close (s->listener[1]);
  torsim_process_stop (s->p);
  g_free (s->onion);
  g_free (s);
}

static guint
link_streams (Ctl * ctl, guint link)
{
  g_autofree gchar *streams = ctl_link_stat (ctl, link, "STREAMS");

  return (guint) atoi (streams);
}

/* Opens each step's stream and checks, after each, that it went on its
 * link: that link has one stream more, and no other link has changed. */
static void
run_case (gconstpointer data)
{
  const Case *c = data;
  Setup *s = setup_new (c);
  gint caller[MAX_STEPS], callee[MAX_STEPS];
  guint expected[N_LINKS] = { 0 };
  guint n = 0;

  for (; n < MAX_STEPS && c->steps[n].port != 0; n++) {
    const Step *step = &c->steps[n];
    g_autofree gchar *id = step->upper ? g_ascii_strup (s->onion, -1) :
        g_strdup (s->onion);
    g_autofree gchar *host = g_strdup_printf ("%s%s.onion",
        step->prefix != NULL ? step->prefix : "", id);
    guint8 code = 0xEE;

    caller[n] = socks_open_from (step->source, s->p->socks_port, step->user,
        host, step->port, &code, NULL);
    g_assert_cmpuint (code, ==, 0);
    g_assert_cmpint (caller[n], >=, 0);
    /* The onion maps each port to its own target. */
    callee[n] = tcp_accept (s->listener[step->port - 80], TIMEOUT_MS);
    g_assert_cmpint (callee[n], >=, 0);
    expected[step->link]++;
    for (guint link = 0; link < N_LINKS; link++)
      g_assert_cmpuint (link_streams (s->ctl, link), ==, expected[link]);
  }
  /* The streams of one circuit still carry their own bytes. */
  for (guint i = 0; i < n; i++) {
    guint8 byte = 'a' + i, got = 0;

    write_all (caller[i], &byte, 1);
    g_assert_true (read_exact (callee[i], &got, 1, TIMEOUT_MS));
    g_assert_cmpuint (got, ==, byte);
  }
  for (guint i = 0; i < n; i++) {
    close (caller[i]);
    close (callee[i]);
  }
  setup_free (s);
}

/* Tor's default, IsolateSOCKSAuth and IsolateClientAddr: the ports of
 * one onion share a circuit; another client address or other
 * credentials do not. */
static const Case default_flags = {
  {NULL}, {
        {NULL, NULL, NULL, FALSE, 80, 0},
        {NULL, NULL, NULL, FALSE, 81, 0},
        {"127.0.0.2", NULL, NULL, FALSE, 81, 1},
        {NULL, "alice", NULL, FALSE, 80, 2},
        {NULL, "alice", NULL, FALSE, 81, 2},
      }
};

/* One circuit per destination port, as in the authors' scripts. */
static const Case dest_port = {
  {"IsolateDestPort", NULL}, {
        {NULL, NULL, NULL, FALSE, 80, 0},
        {NULL, NULL, NULL, FALSE, 81, 1},
        {NULL, NULL, NULL, FALSE, 80, 0},
        {NULL, "alice", NULL, FALSE, 80, 2},
      }
};

/* The name as the client gave it, ignoring case: the ports of one name
 * share, a subdomain is another destination (tor's
 * original_dest_address). */
static const Case dest_addr = {
  {"IsolateDestAddr", NULL}, {
        {NULL, NULL, NULL, FALSE, 80, 0},
        {NULL, NULL, NULL, FALSE, 81, 0},
        {NULL, NULL, NULL, TRUE, 81, 0},
        {NULL, NULL, "www.", FALSE, 80, 1},
      }
};

/* Asked for explicitly, as the default gives it. */
static const Case client_addr = {
  {"IsolateClientAddr", NULL}, {
        {NULL, NULL, NULL, FALSE, 80, 0},
        {"127.0.0.2", NULL, NULL, FALSE, 81, 1},
        {"127.0.0.2", NULL, NULL, FALSE, 80, 1},
        {"127.0.0.3", NULL, NULL, FALSE, 80, 2},
      }
};

static const Case no_client_addr = {
  {"NoIsolateClientAddr", NULL}, {
        {NULL, NULL, NULL, FALSE, 80, 0},
        {"127.0.0.2", NULL, NULL, FALSE, 81, 0},
        {"127.0.0.3", "alice", NULL, FALSE, 81, 1},
      }
};

/* Credentials no longer isolate; the client address still does. */
static const Case no_socks_auth = {
  {"NoIsolateSOCKSAuth", NULL}, {
        {NULL, "alice", NULL, FALSE, 80, 0},
        {NULL, "bob", NULL, FALSE, 81, 0},
        {NULL, NULL, NULL, FALSE, 80, 0},
        {"127.0.0.2", "alice", NULL, FALSE, 80, 1},
      }
};

/* Every flag off: one circuit for all, as tor's port with all flags
 * cleared (flag names in any case). */
static const Case none = {
  {"noisolatesocksauth", "NOISOLATECLIENTADDR", NULL}, {
        {NULL, "alice", NULL, FALSE, 80, 0},
        {"127.0.0.2", "bob", "www.", FALSE, 81, 0},
      }
};

/* Both destination flags and IsolateClientProtocol, which changes
 * nothing: torsim speaks SOCKS5 only. */
static const Case dest_both = {
  {"IsolateDestPort", "IsolateDestAddr", "IsolateClientProtocol"}, {
        {NULL, NULL, NULL, FALSE, 80, 0},
        {NULL, NULL, "www.", FALSE, 80, 1},
        {NULL, NULL, NULL, FALSE, 81, 2},
        {NULL, NULL, NULL, TRUE, 80, 0},
      }
};

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_data_func ("/torsim/isolation/default", &default_flags, run_case);
  g_test_add_data_func ("/torsim/isolation/dest-port", &dest_port, run_case);
  g_test_add_data_func ("/torsim/isolation/dest-addr", &dest_addr, run_case);
  g_test_add_data_func ("/torsim/isolation/client-addr", &client_addr,
      run_case);
  g_test_add_data_func ("/torsim/isolation/no-client-addr", &no_client_addr,
      run_case);
  g_test_add_data_func ("/torsim/isolation/no-socks-auth", &no_socks_auth,
      run_case);
  g_test_add_data_func ("/torsim/isolation/none", &none, run_case);
  g_test_add_data_func ("/torsim/isolation/dest-both", &dest_both, run_case);
  return g_test_run ();
}
