/* A program built against version 1 of libdonar's structs
 * (donar-abi-v1.h), run against the library as it is: each struct it
 * hands over or has filled is followed by a guard pattern, which the
 * library must leave as it is, and everything works as before.  When a
 * struct grows to version 2 this test stays as it is and must pass: that
 * is what keeps a program built before the change working after it. */
#include "donar-abi-v1.h"

#include <donar-call-tor-control.h>

#include <string.h>

#define N_LINKS 4
#define GUARD 0xa5
#define GUARD_BYTES 64

/* A version-1 struct, the guard right after it. */
#define GUARDED(Type) struct { Type s; guint8 guard[GUARD_BYTES]; }

static void
assert_guard (const guint8 * guard)
{
  for (guint i = 0; i < GUARD_BYTES; i++)
    g_assert_cmphex (guard[i], ==, GUARD);
}

typedef struct Endpoint Endpoint;
struct Endpoint
{
  DonarSession *session;
  Endpoint *peer;
  /* What the peer sent, link by link, not yet received: a session never
   * receives from within its own send callback. */
  GByteArray *in[N_LINKS];
  guint frames;
  guint sessions;
  guint ended;
};

/* The link's byte stream to the peer: records, as TCP would carry them. */
static void
on_send (gpointer user_data, guint link, const guint8 * record, gsize length)
{
  Endpoint *peer = ((Endpoint *) user_data)->peer;

  g_byte_array_append (peer->in[link], record, length);
}

static void
on_deliver (gpointer user_data, guint32 seq, const guint8 * frame,
    gsize length, guint link, gboolean piggybacked)
{
  ((Endpoint *) user_data)->frames++;
}

static void
on_peer_ended (gpointer user_data, guint link, DonarByeReason reason)
{
  ((Endpoint *) user_data)->ended++;
}

static void
on_peer_session (gpointer user_data, guint link, gboolean restarted)
{
  ((Endpoint *) user_data)->sessions++;
}

/* Until neither end has bytes to read: the streams in one piece each. */
static void
pump (Endpoint * a, Endpoint * b, gint64 now)
{
  gboolean more = TRUE;

  while (more) {
    more = FALSE;
    for (guint link = 0; link < N_LINKS; link++) {
      Endpoint *ends[] = { a, b };

      for (guint i = 0; i < G_N_ELEMENTS (ends); i++) {
        GByteArray *in = ends[i]->in[link];
        GBytes *bytes;

        if (in->len == 0)
          continue;
        bytes = g_byte_array_free_to_bytes (in);
        ends[i]->in[link] = g_byte_array_new ();
        g_assert_cmpint (donar_session_receive (ends[i]->session, link,
                g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes),
                now), ==, DONAR_OK);
        g_bytes_unref (bytes);
        more = TRUE;
      }
    }
  }
}

static DonarSession *
new_session (const DonarConfigV1 * config,
    const DonarCallbacksV1 * callbacks, DonarRole role, Endpoint * e,
    gint64 now)
{
  static const guint8 secret[32] = "abi-v1.c's 32-byte call secret!";
  DonarError error = DONAR_ERROR_UNEXPECTED;
  DonarSession *session = donar_session_new_versioned (1,
      (const DonarConfig *) config, role, secret, sizeof secret, 1,
      (const DonarCallbacks *) callbacks, e, now, &error);

  g_assert_cmpint (error, ==, DONAR_OK);
  g_assert_nonnull (session);
  return session;
}

static void
test_session (void)
{
  static const guint8 frame[] = "a voice frame";
  GUARDED (DonarConfigV1) config;
  GUARDED (DonarSessionStatsV1) stats;
  GUARDED (DonarLinkStatsV1) link_stats;
  /* The callbacks of version 1, the guard after them: a library that read
   * a later version's callback would find the guard's bytes there. */
  GUARDED (DonarCallbacksV1) callbacks;
  Endpoint caller = { 0 }, callee = { 0 };
  gint64 now = 1000000;

  memset (&config, GUARD, sizeof config);
  donar_config_init_versioned (1, (DonarConfig *) & config.s);
  assert_guard (config.guard);
  g_assert_cmpint (donar_config_validate_versioned (1,
          (DonarConfig *) & config.s), ==, DONAR_OK);
  config.s.n_links = N_LINKS;
  config.s.n_1st = 1;
  config.s.n_2nd = 1;
  g_assert_cmpuint (donar_config_record_overhead_versioned (1,
          (DonarConfig *) & config.s, 1), >, 0);

  memset (&callbacks, GUARD, sizeof callbacks);
  callbacks.s.send = on_send;
  callbacks.s.deliver = on_deliver;
  callbacks.s.peer_ended = on_peer_ended;
  callbacks.s.peer_session = on_peer_session;
  callbacks.s.peer_rendezvous = NULL;
  caller.session = new_session (&config.s, &callbacks.s, DONAR_ROLE_CALLER,
      &caller, now);
  callee.session = new_session (&config.s, &callbacks.s, DONAR_ROLE_CALLEE,
      &callee, now);
  caller.peer = &callee;
  callee.peer = &caller;
  for (guint link = 0; link < N_LINKS; link++) {
    caller.in[link] = g_byte_array_new ();
    callee.in[link] = g_byte_array_new ();
  }
  for (guint link = 0; link < N_LINKS; link++) {
    guint8 nonce[DONAR_WIRE_NONCE];

    memset (nonce, 2 * link, sizeof nonce);
    donar_session_link_up (callee.session, link, nonce, now);
    memset (nonce, 2 * link + 1, sizeof nonce);
    donar_session_link_up (caller.session, link, nonce, now);
  }
  pump (&caller, &callee, now);
  /* The callbacks added in version 1 ran: a session each way. */
  g_assert_cmpuint (caller.sessions, ==, 1);
  g_assert_cmpuint (callee.sessions, ==, 1);

  now += 40000;
  g_assert_cmpint (donar_session_send_frame (caller.session, frame,
          sizeof frame, now), ==, DONAR_OK);
  pump (&caller, &callee, now);
  g_assert_cmpuint (callee.frames, ==, 1);

  memset (&stats, GUARD, sizeof stats);
  donar_session_get_stats_versioned (caller.session, 1,
      (DonarSessionStats *) & stats.s);
  assert_guard (stats.guard);
  g_assert_cmpuint (stats.s.frames_sent, ==, 1);
  memset (&link_stats, GUARD, sizeof link_stats);
  g_assert_true (donar_session_get_link_stats_versioned (callee.session, 0,
          1, (DonarLinkStats *) & link_stats.s));
  assert_guard (link_stats.guard);
  g_assert_true (link_stats.s.up);
  g_assert_true (link_stats.s.authenticated);

  donar_session_end (caller.session, DONAR_BYE_HUNG_UP, now);
  pump (&caller, &callee, now);
  g_assert_cmpuint (callee.ended, ==, 1);
  donar_session_free (caller.session);
  donar_session_free (callee.session);
  for (guint link = 0; link < N_LINKS; link++) {
    g_byte_array_unref (caller.in[link]);
    g_byte_array_unref (callee.in[link]);
  }
}

/* A version from a later libdonar is refused, not read. */
static void
test_unknown_version (void)
{
  DonarConfig config;
  DonarCallbacks none = { on_send, on_deliver, NULL, NULL, NULL };
  DonarLinkEngineSettings settings;
  DonarError error = DONAR_OK;
  GError *gerror = NULL;

  donar_config_init (&config);
  g_test_expect_message (G_LOG_DOMAIN, G_LOG_LEVEL_CRITICAL,
      "*version is one this libdonar knows*");
  g_assert_cmpint (donar_config_validate_versioned (DONAR_CONFIG_VERSION +
          1, &config), ==, DONAR_ERROR_INVALID_ARGUMENT);
  g_test_assert_expected_messages ();

  g_test_expect_message (G_LOG_DOMAIN, G_LOG_LEVEL_CRITICAL,
      "*version is one this libdonar knows*");
  g_assert_null (donar_session_new_versioned (DONAR_CONFIG_VERSION, &config,
          DONAR_ROLE_CALLER, (const guint8 *) "secret", 6,
          DONAR_CALLBACKS_VERSION + 1, &none, NULL, 0, &error));
  g_test_assert_expected_messages ();
  g_assert_cmpint (error, ==, DONAR_ERROR_INVALID_ARGUMENT);

  /* With a GError: said there, no critical. */
  donar_link_engine_settings_init (&settings, DONAR_ROLE_CALLEE);
  g_assert_null (donar_link_engine_new_versioned
      (DONAR_LINK_ENGINE_SETTINGS_VERSION + 1, &settings, NULL, NULL, &gerror));
  g_assert_error (gerror, DONAR_LINK_ENGINE_ERROR,
      DONAR_LINK_ENGINE_ERROR_SETTINGS);
  g_clear_error (&gerror);
  donar_link_engine_settings_clear (&settings);
}

static void
test_playout (void)
{
  GUARDED (DonarPlayoutConfigV1) config;
  GUARDED (DonarPlayoutConfigV1) back;
  GUARDED (DonarPlayoutStatsV1) stats;
  GUARDED (DonarBaseCheckV1) check;
  DonarPlayout *playout;

  memset (&config, GUARD, sizeof config);
  donar_playout_config_init_versioned (1, (DonarPlayoutConfig *) & config.s);
  assert_guard (config.guard);
  g_assert_true (donar_playout_config_is_valid_versioned (1,
          (DonarPlayoutConfig *) & config.s));
  playout = donar_playout_new_versioned (1, (DonarPlayoutConfig *) & config.s);
  g_assert_nonnull (playout);
  donar_playout_set_config_versioned (playout, 1,
      (DonarPlayoutConfig *) & config.s);
  for (guint i = 0; i < 2 * DONAR_BASE_CHECK_MIN_FRAMES; i++)
    donar_playout_push (playout, i * 40000, i * 40000 + 100000);

  memset (&back, GUARD, sizeof back);
  donar_playout_get_config_versioned (playout, 1,
      (DonarPlayoutConfig *) & back.s);
  assert_guard (back.guard);
  g_assert_cmpint (back.s.deadline_us, ==, config.s.deadline_us);
  memset (&stats, GUARD, sizeof stats);
  donar_playout_get_stats_versioned (playout, 1,
      (DonarPlayoutStats *) & stats.s);
  assert_guard (stats.guard);
  g_assert_cmpuint (stats.s.frames, ==, 2 * DONAR_BASE_CHECK_MIN_FRAMES);
  memset (&check, GUARD, sizeof check);
  donar_base_check_versioned (playout, 0, 1, (DonarBaseCheck *) & check.s);
  assert_guard (check.guard);
  g_assert_cmpint (check.s.verdict, ==, DONAR_BASE_CHECK_AGREES);
  g_assert_cmpuint (check.s.frames, ==, stats.s.window_frames);
  donar_playout_free (playout);
}

static void
test_quality (void)
{
  GUARDED (DonarQualityConfigV1) config;
  GUARDED (DonarQualityReportV1) report;
  DonarQuality *quality;
  gint64 now = 0;

  memset (&config, GUARD, sizeof config);
  donar_quality_config_init_versioned (1, (DonarQualityConfig *) & config.s);
  assert_guard (config.guard);
  g_assert_true (donar_quality_config_is_valid_versioned (1,
          (DonarQualityConfig *) & config.s));
  quality = donar_quality_new_versioned (1, (DonarQualityConfig *) & config.s);
  g_assert_nonnull (quality);
  for (guint i = 0; i < 10; i++, now += 40000)
    donar_quality_push (quality, now, DONAR_QUALITY_PLAYED, 150000);

  memset (&report, GUARD, sizeof report);
  g_assert_true (donar_quality_handle_expiry_versioned (quality,
          donar_quality_get_expiry (quality), 1,
          (DonarQualityReport *) & report.s));
  assert_guard (report.guard);
  g_assert_cmpuint (report.s.played, ==, 10);
  memset (&report, GUARD, sizeof report);
  g_assert_true (donar_quality_get_last_versioned (quality, 1,
          (DonarQualityReport *) & report.s));
  assert_guard (report.guard);
  g_assert_cmpuint (report.s.played, ==, 10);
  donar_quality_free (quality);
}

static void
test_link_engine (void)
{
  GUARDED (DonarLinkEngineSettingsV1) settings;
  GUARDED (DonarLinkEngineStatsV1) stats;
  GUARDED (DonarLinkEngineLinkStatsV1) link_stats;
  DonarLinkEngine *engine;
  GError *error = NULL;

  memset (&settings, GUARD, sizeof settings);
  donar_link_engine_settings_init_versioned (1,
      (DonarLinkEngineSettings *) & settings.s, DONAR_ROLE_CALLEE);
  assert_guard (settings.guard);
  memset (settings.s.secret, 7, 32);
  settings.s.secret_length = 32;
  engine = donar_link_engine_new_versioned (1,
      (DonarLinkEngineSettings *) & settings.s, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (donar_link_engine_start (engine, &error));
  g_assert_no_error (error);

  memset (&stats, GUARD, sizeof stats);
  donar_link_engine_get_stats_versioned (engine, 1,
      (DonarLinkEngineStats *) & stats.s);
  assert_guard (stats.guard);
  g_assert_cmpuint (stats.s.links_up, ==, 0);
  memset (&link_stats, GUARD, sizeof link_stats);
  g_assert_true (donar_link_engine_get_link_stats_versioned (engine, 0, 1,
          (DonarLinkEngineLinkStats *) & link_stats.s));
  assert_guard (link_stats.guard);
  g_assert_false (link_stats.s.open);
  g_assert_false (donar_link_engine_get_link_stats_versioned (engine,
          settings.s.config.n_links, 1,
          (DonarLinkEngineLinkStats *) & link_stats.s));
  assert_guard (link_stats.guard);
  donar_link_engine_stop (engine);
  donar_link_engine_free (engine);

  donar_link_engine_settings_clear_versioned (1,
      (DonarLinkEngineSettings *) & settings.s);
  assert_guard (settings.guard);
  g_assert_null (settings.s.socks_host);
}

static void
test_call_options (void)
{
  GUARDED (DonarCallOptionsV1) options;
  GError *error = NULL;
  gchar *control = NULL, *socks = NULL;

  memset (&options, GUARD, sizeof options);
  donar_call_options_init_versioned (1, (DonarCallOptions *) & options.s,
      DONAR_ROLE_CALLER);
  assert_guard (options.guard);
  g_assert_true (donar_call_parse_tor_control_versioned (1,
          (DonarCallOptions *) & options.s, "tor-control", "direct",
          &control, &error));
  g_assert_no_error (error);
  assert_guard (options.guard);
  g_assert_cmpint (options.s.transport, ==, DONAR_CALL_TRANSPORT_DIRECT);
  g_assert_true (donar_call_parse_tor_socks_path_versioned (1,
          (DonarCallOptions *) & options.s, "tor-socks", "/run/tor/socks",
          &socks, &error));
  g_assert_no_error (error);
  assert_guard (options.guard);
  g_assert_true (options.s.tor_socks_path == socks);
  /* A caller without an address is refused, before any I/O. */
  g_assert_false (donar_call_options_check_versioned (1,
          (DonarCallOptions *) & options.s, &error));
  g_assert_error (error, DONAR_CALL_ERROR, DONAR_CALL_ERROR_OPTIONS);
  g_clear_error (&error);
  g_assert_null (donar_call_start_versioned (1,
          (DonarCallOptions *) & options.s, NULL, NULL, NULL, NULL, &error));
  g_assert_error (error, DONAR_CALL_ERROR, DONAR_CALL_ERROR_OPTIONS);
  g_clear_error (&error);
  donar_call_options_clear_versioned (1, (DonarCallOptions *) & options.s);
  assert_guard (options.guard);
  g_free (control);
  g_free (socks);
}

static void
test_address (void)
{
  GUARDED (DonarCallAddressV1) address;
  GUARDED (DonarCallUriV1) uri;
  GError *error = NULL;
  gchar *text, *back;

  memset (&address, GUARD, sizeof address);
  memset (address.s.secret, 0x5a, sizeof address.s.secret);
  address.s.host = g_strdup ("127.0.0.1");
  address.s.port = 5004;
  address.s.client_auth_key = NULL;
  text = donar_call_address_to_string_versioned (1,
      (DonarCallAddress *) & address.s);
  g_assert_nonnull (text);
  donar_call_address_clear_versioned (1, (DonarCallAddress *) & address.s);
  assert_guard (address.guard);
  g_assert_null (address.s.host);
  g_assert_true (donar_call_address_parse_versioned (text, 1,
          (DonarCallAddress *) & address.s, &error));
  g_assert_no_error (error);
  assert_guard (address.guard);
  g_assert_cmpuint (address.s.port, ==, 5004);
  g_assert_cmphex (address.s.secret[0], ==, 0x5a);
  donar_call_address_clear_versioned (1, (DonarCallAddress *) & address.s);

  memset (&uri, GUARD, sizeof uri);
  g_assert_true (donar_call_uri_parse_versioned ("donar://callee?guards=3", 1,
          (DonarCallUri *) & uri.s, &error));
  g_assert_no_error (error);
  assert_guard (uri.guard);
  g_assert_true (uri.s.callee);
  g_assert_cmpstr (uri.s.names[0], ==, "guards");
  back = donar_call_uri_to_string_versioned (1, (DonarCallUri *) & uri.s);
  g_assert_cmpstr (back, ==, "donar://callee?guards=3");
  donar_call_uri_clear_versioned (1, (DonarCallUri *) & uri.s);
  assert_guard (uri.guard);
  g_free (back);
  g_free (text);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/abi-v1/session", test_session);
  g_test_add_func ("/abi-v1/unknown-version", test_unknown_version);
  g_test_add_func ("/abi-v1/playout", test_playout);
  g_test_add_func ("/abi-v1/quality", test_quality);
  g_test_add_func ("/abi-v1/link-engine", test_link_engine);
  g_test_add_func ("/abi-v1/call-options", test_call_options);
  g_test_add_func ("/abi-v1/address", test_address);
  return g_test_run ();
}
