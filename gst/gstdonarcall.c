/* What donarsink and donarsrc share: the call properties, the setup
 * thread, the messages, the stats, and the registry that lets a donarsink
 * and a donarsrc with the same #GstDonarSink:call name in one pipeline use
 * one call. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstdonarcall.h"
#include "gstdonarcallposts.h"
#include "gstdonarprogress.h"
#include "gstdonaruri.h"
#include "donar-call-tor-control.h"

#include "donar-secret.h"

#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_donar_call_debug);
#define GST_CAT_DEFAULT gst_donar_call_debug

/* The library's defaults (DONAR_DEFAULT_*), in the properties' units. */
#define DEFAULT_WINDOW (DONAR_DEFAULT_WINDOW_US / 1000)
#define DEFAULT_PEER_TIMEOUT \
    (DONAR_LINK_ENGINE_DEFAULT_PEER_TIMEOUT_US / G_USEC_PER_SEC)
#define DEFAULT_SETUP_TIMEOUT (DONAR_CALL_DEFAULT_SETUP_TIMEOUT_MS / 1000)
#define MAX_SETUP_TIMEOUT 3600
/* How long a hang-up waits for the BYE to leave: at once on a link that
 * takes writes; a stalled one is not worth more. */
#define HANG_UP_FLUSH_US G_USEC_PER_SEC

struct _GstDonarCall
{
  gint refcount;                /* under registry_lock */
  gchar *name;                  /* the registry key; NULL: of one element */

  /* Taken by the setup thread, the engine's thread (on_event), the
   * elements' state changes, their stats and their action signals; never
   * held while the application is called: the messages are queued in
   * posts under it and posted once it is released
   * (gst_donar_call_posts_unlock ()).  The elements' callbacks
   * (GstDonarCallClient's on_event, on_ready) run under it: they only set
   * an atomic.  After registry_lock and the element's object lock when
   * taken with them (gst_donar_call_client_start ()). */
  GMutex lock;
  /* Under lock. */
  GstDonarCallPosts posts;
  GList *clients;
  DonarCall *call;
  gboolean done;
  GError *error;
  /* A refusal that no retry changes (a wrong client key, a bad onion),
   * from the engine.  Before the setup ends it is the setup's failure, so
   * that nothing says "set up" after its error; after, it fails what
   * would go on: PLAYING, an element that joins. */
  GError *refusal;

  DonarCallOptions options;
  gchar *address;
  /* What options->key_file and client_auth_dir point to. */
  gchar *key_file;
  gchar *client_auth_dir;
  /* Tor's Unix sockets, for options. */
  gchar *tor_control_path;
  /* What options->tor_password (a secret) and tor_cookie_file point to. */
  gchar *tor_password;
  gchar *tor_cookie_file;
  gchar *tor_socks_path;
  guint n_links;
  /* Under lock, from the engine's events; also read atomically by the
   * streaming threads. */
  gint links_up;
  /* donar-ready, donar-call-ended were posted (under lock). */
  gboolean ready;
  gboolean ended;
  /* Callee: whether the call came in (under lock) and is answered, so
   * that frames go either way (also read atomically by the streaming
   * threads); a caller's, and an auto-answering callee's, is answered
   * from the start. */
  gboolean incoming;
  gint answered;
  /* How far the setup is, for the progress messages (under lock). */
  gint percent;
  GCancellable *cancellable;
  GThread *thread;
};

static GMutex registry_lock;
static GHashTable *registry;    /* registry_key () -> GstDonarCall */

/* The element's GstDonarCallClient, for the URI handler that both share. */
static GQuark client_quark;

GstDonarCallClient *
gst_donar_call_client_get (GstElement * element)
{
  return g_object_get_qdata (G_OBJECT (element), client_quark);
}

GType
gst_donar_policy_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {DONAR_POLICY_SIMPLE, "Every frame on one fixed link", "simple"},
    {DONAR_POLICY_TORFONE, "Every frame on two fixed links (Torfone)",
        "torfone"},
    {DONAR_POLICY_ALTERNATE, "Frames alternate between L1ST and L2ND, "
          "round robin in each (the paper's default)", "alternate"},
    {DONAR_POLICY_DOUBLE_SEND, "Every frame on a link of L1ST and one of "
          "L2ND", "double-send"},
    {DONAR_POLICY_ADAPTIVE, "Every frame on the link predicted to deliver "
          "it first, a second copy where that is unsure, within the budget",
        "adaptive"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstDonarPolicy", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

GType
gst_donar_security_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {DONAR_TOR_SECURITY_DEFAULT, "Stock tor, 3 relays on each side",
        "default"},
    {DONAR_TOR_SECURITY_TWO_HOP, "2 relays on the client side (needs a "
          "patched tor: refused)", "2hop"},
    {DONAR_TOR_SECURITY_ONE_WAY, "Single onion: the callee is not "
          "anonymous", "1way"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstDonarSecurity", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

void
gst_donar_call_install_properties (GObjectClass * klass, guint first)
{
  GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_READY;

  if (gst_donar_call_debug == NULL)
    GST_DEBUG_CATEGORY_INIT (gst_donar_call_debug, "donarcall", 0,
        "DONAR call shared by donarsink and donarsrc");

  g_object_class_install_property (klass, first + GST_DONAR_CALL_PROP_ADDRESS,
      g_param_spec_string ("address", "Call address",
          "The donar:// address to dial (the caller); empty: be the callee "
          "and post the address", NULL, flags));
  g_object_class_install_property (klass, first + GST_DONAR_CALL_PROP_CALLEE,
      g_param_spec_boolean ("callee", "Callee",
          "Be the callee: publish the onion and post its address in a "
          "donar-call-address message (also when address is empty)",
          FALSE, flags));
  g_object_class_install_property (klass, first + GST_DONAR_CALL_PROP_CALL,
      g_param_spec_string ("call", "Call name",
          "A name shared by a donarsink and a donarsrc of one pipeline that "
          "carry the two directions of one call; empty: a call of its own",
          NULL, flags));
  g_object_class_install_property (klass,
      first + GST_DONAR_CALL_PROP_TOR_CONTROL,
      g_param_spec_string ("tor-control", "Tor control",
          "A running tor: its ControlPort on 127.0.0.1 (a port number), or "
          "its ControlSocket (an absolute path or unix:/path; Debian's tor "
          "service: /run/tor/control, for the group debian-tor); empty: "
          "launch a tor of our own; \"direct\": no Tor, the callee on "
          "127.0.0.1 (tests)", NULL, flags));
  g_object_class_install_property (klass,
      first + GST_DONAR_CALL_PROP_TOR_SOCKS,
      g_param_spec_uint ("tor-socks", "Tor SocksPort",
          "The caller's tor SocksPort; 0: ask the control port", 0, 65535, 0,
          flags));
  g_object_class_install_property (klass,
      first + GST_DONAR_CALL_PROP_TOR_SOCKS_PATH,
      g_param_spec_string ("tor-socks-path", "Tor SocksPort socket",
          "The caller's tor SocksPort on a Unix socket (an absolute path or "
          "unix:/path, e.g. /run/tor/socks), in place of tor-socks; empty: "
          "ask the control port", NULL, flags));
  g_object_class_install_property (klass, first + GST_DONAR_CALL_PROP_LINKS,
      g_param_spec_uint ("links", "Links",
          "Onion links of the call (nLINKS)", 1, DONAR_MAX_LINKS,
          DONAR_DEFAULT_LINKS, flags));
  g_object_class_install_property (klass, first + GST_DONAR_CALL_PROP_N1ST,
      g_param_spec_uint ("n1st", "Links in L1ST",
          "Links of the first group (n1ST)", 1, DONAR_MAX_LINKS,
          DONAR_DEFAULT_N_1ST, flags));
  g_object_class_install_property (klass, first + GST_DONAR_CALL_PROP_N2ND,
      g_param_spec_uint ("n2nd", "Links in L2ND",
          "Links of the second group (n2ND)", 0, DONAR_MAX_LINKS,
          DONAR_DEFAULT_N_2ND, flags));
  g_object_class_install_property (klass, first + GST_DONAR_CALL_PROP_WINDOW,
      g_param_spec_uint ("window", "Window",
          "Milliseconds between two rankings of the links (w)", 100, 600000,
          DEFAULT_WINDOW, flags));
  g_object_class_install_property (klass, first + GST_DONAR_CALL_PROP_POLICY,
      g_param_spec_enum ("policy", "Policy",
          "How frames are scheduled on the links", GST_TYPE_DONAR_POLICY,
          DONAR_DEFAULT_POLICY, flags));
  g_object_class_install_property (klass, first + GST_DONAR_CALL_PROP_BUDGET,
      g_param_spec_double ("budget", "Budget",
          "adaptive: Tor cells a frame on average, from 1.0 (the cells of "
          "alternate: 25 Tor cells, 12.9 KB/s each way with 40 ms frames) to "
          "2.0 (those of double-send: 50 cells, 25.7 KB/s)", 1.0, 2.0,
          DONAR_DEFAULT_BUDGET, flags));
  g_object_class_install_property (klass,
      first + GST_DONAR_CALL_PROP_REDUNDANCY,
      g_param_spec_uint ("redundancy", "Redundancy",
          "Previous frames piggybacked on each frame", 0, 8,
          DONAR_DEFAULT_REDUNDANCY, flags));
  g_object_class_install_property (klass,
      first + GST_DONAR_CALL_PROP_SPREAD_COPIES,
      g_param_spec_boolean ("spread-copies", "Spread copies",
          "adaptive: a frame's second copy avoids the previous frame's links "
          "too, so that a frame and its piggybacked copy cross 4 links",
          DONAR_DEFAULT_SPREAD_COPIES, flags));
  g_object_class_install_property (klass,
      first + GST_DONAR_CALL_PROP_SECURITY,
      g_param_spec_enum ("security", "Security",
          "The configuration of a tor we launch (docs/security.md)",
          GST_TYPE_DONAR_SECURITY, DONAR_TOR_SECURITY_DEFAULT, flags));
  g_object_class_install_property (klass,
      first + GST_DONAR_CALL_PROP_CLIENT_AUTH,
      g_param_spec_boolean ("client-auth", "Client authorization",
          "Callee: let only the holder of the call address reach the onion "
          "(an x25519 key pair; the address carries the caller's key). "
          "A caller needs nothing: the address says", FALSE, flags));
  g_object_class_install_property (klass, first + GST_DONAR_CALL_PROP_STATS,
      g_param_spec_boxed ("stats", "Statistics",
          "An application/x-donar-stats structure: ready, links-up, the "
          "call's totals (frames-sent, frames-unsent, frames-delivered, "
          "duplicates, bytes-sent, connections-opened, connections-failed, "
          "frames-dropped, ...), the element's counters, every one 0 until "
          "it counts, and links: a GValueArray of one structure per link "
          "(index, state, group, score, bytes-sent, bytes-received, "
          "frames-delivered, failures, ...); docs/elements.md, Stats",
          GST_TYPE_STRUCTURE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (klass,
      first + GST_DONAR_CALL_PROP_STATS_INTERVAL,
      g_param_spec_uint ("stats-interval", "Stats interval",
          "Post the stats in a donar-stats element message this often (ms); "
          "0: never", 0, G_MAXUINT, 0, flags));
  g_object_class_install_property (klass,
      first + GST_DONAR_CALL_PROP_ADDRESS_FILE,
      g_param_spec_string ("address-file", "Address file",
          "Callee: also write the call address and a newline to this file "
          "(mode 0600, replaced atomically); ignored by a caller; empty: "
          "none", NULL, flags));
  g_object_class_install_property (klass,
      first + GST_DONAR_CALL_PROP_PEER_TIMEOUT,
      g_param_spec_uint ("peer-timeout", "Peer timeout",
          "Seconds with no link to the other end after which the call ends "
          "with an error (a caller counts from the start, a callee from its "
          "last link's close)", 1, 86400, DEFAULT_PEER_TIMEOUT, flags));
  g_object_class_install_property (klass,
      first + GST_DONAR_CALL_PROP_KEY_FILE,
      g_param_spec_string ("key-file", "Key file",
          "Callee: a lasting address.  The onion's private key and the call "
          "secret are kept in this file (mode 0600, made on first use), so "
          "that every call has the same address; a file other users may "
          "read is refused; ignored by a caller; empty: a new address each "
          "call", NULL, flags));
  g_object_class_install_property (klass,
      first + GST_DONAR_CALL_PROP_CLIENT_AUTH_DIR,
      g_param_spec_string ("client-auth-dir", "Contacts directory",
          "Callee: only the contacts whose x25519 public keys this "
          "directory holds (NAME.auth: descriptor:x25519:<base32>, as tor's "
          "authorized_clients) reach the onion; each dials with its secret "
          "key in the address (&auth=); empty: anyone with the address",
          NULL, flags));
  g_object_class_install_property (klass, first + GST_DONAR_CALL_PROP_GUARDS,
      g_param_spec_uint ("guards", "Entry guards",
          "The entry guards the call's tor spreads its circuits over "
          "(NumEntryGuards; seed 000's Default: 2; more: faster links, a "
          "larger chance that one is hostile, docs/security.md); 0: tor's "
          "own setting (one guard).  A tor we launch gets it in its torrc; "
          "a running tor (tor-control) is changed only if this is set, for "
          "the call, with a warning if it refuses; left unset, a warning if "
          "it has fewer", 0, DONAR_CALL_MAX_GUARDS, DONAR_CALL_DEFAULT_GUARDS,
          flags));
  g_object_class_install_property (klass,
      first + GST_DONAR_CALL_PROP_SETUP_TIMEOUT,
      g_param_spec_uint ("setup-timeout", "Setup timeout",
          "Seconds each step of the setup may take (tor's bootstrap, the "
          "control connection, the descriptor upload) before the call fails", 1,
          MAX_SETUP_TIMEOUT, DEFAULT_SETUP_TIMEOUT, flags));
  /* Write-only, as srtsink's passphrase: whoever reads the properties
   * (gst-launch-1.0 -v, an inspector) is not given the running tor. */
  g_object_class_install_property (klass,
      first + GST_DONAR_CALL_PROP_TOR_PASSWORD,
      g_param_spec_string ("tor-password", "Tor control password",
          "The password of the running tor's control port (tor-control), "
          "for a tor with HashedControlPassword; write-only", NULL,
          G_PARAM_WRITABLE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (klass,
      first + GST_DONAR_CALL_PROP_TOR_COOKIE_FILE,
      g_param_spec_string ("tor-cookie-file", "Tor cookie file",
          "The running tor's control cookie (tor-control), for COOKIE or "
          "SAFECOOKIE authentication, where the file tor names cannot be "
          "read as it is named (another mount, a container); empty: the one "
          "tor names", NULL, flags));
  g_object_class_install_property (klass,
      first + GST_DONAR_CALL_PROP_AUTO_ANSWER,
      g_param_spec_boolean ("auto-answer", "Auto-answer",
          "Callee: take an incoming call at once; FALSE: post "
          "donar-incoming-call and carry no frame either way until the "
          "application emits \"accept\" (or \"reject\", which ends the "
          "call); ignored by a caller", TRUE, flags));
  /* Notified when set as a property, as the address is; set_uri () does
   * not notify it (gstdonaruri.c). */
  g_object_class_install_property (klass, first + GST_DONAR_CALL_PROP_URI,
      g_param_spec_string ("uri", "URI",
          "The donar:// URI: the call address to dial (a caller) or "
          "donar://callee, either with call settings as parameters "
          "(?tor-control=9051&links=6...; docs/elements.md, \"The donar:// "
          "URI\"); reads back the address, or donar://callee, and the last "
          "URI's parameters with the values their properties have",
          NULL, flags));
}

/* The call settings, one entry each: set, get and a new element's values
 * go by the property's type, and those values are its GParamSpec's
 * defaults, so that a setting is its property and this line.  Not stats
 * nor uri, which are not settings. */
enum
{
  SETTING_SECRET = 1 << 0,      /* freed with donar_secret_free () */
  SETTING_WRITE_ONLY = 1 << 1,
};

typedef struct
{
  guint prop_id;
  gsize offset;
  guint flags;
} CallSetting;

#define SETTING(id, field, flags) { GST_DONAR_CALL_PROP_ ## id, \
    G_STRUCT_OFFSET (GstDonarCallSettings, field), flags }

/* An enum property is kept in an enum field, read and written as a gint. */
G_STATIC_ASSERT (sizeof (DonarPolicy) == sizeof (gint));
G_STATIC_ASSERT (sizeof (DonarTorSecurity) == sizeof (gint));

static const CallSetting call_settings[] = {
  SETTING (ADDRESS, address, SETTING_SECRET),
  SETTING (CALLEE, callee, 0),
  SETTING (CALL, call, 0),
  SETTING (TOR_CONTROL, tor_control, 0),
  SETTING (TOR_SOCKS, tor_socks, 0),
  SETTING (LINKS, links, 0),
  SETTING (N1ST, n1st, 0),
  SETTING (N2ND, n2nd, 0),
  SETTING (WINDOW, window, 0),
  SETTING (POLICY, policy, 0),
  SETTING (BUDGET, budget, 0),
  SETTING (REDUNDANCY, redundancy, 0),
  SETTING (SPREAD_COPIES, spread_copies, 0),
  SETTING (SECURITY, security, 0),
  SETTING (CLIENT_AUTH, client_auth, 0),
  SETTING (STATS_INTERVAL, stats_interval, 0),
  SETTING (ADDRESS_FILE, address_file, 0),
  SETTING (PEER_TIMEOUT, peer_timeout, 0),
  SETTING (KEY_FILE, key_file, 0),
  SETTING (CLIENT_AUTH_DIR, client_auth_dir, 0),
  SETTING (TOR_SOCKS_PATH, tor_socks_path, 0),
  SETTING (GUARDS, guards, 0),
  SETTING (SETUP_TIMEOUT, setup_timeout, 0),
  SETTING (TOR_PASSWORD, tor_password, SETTING_SECRET | SETTING_WRITE_ONLY),
  SETTING (TOR_COOKIE_FILE, tor_cookie_file, 0),
  SETTING (AUTO_ANSWER, auto_answer, 0),
};

static const CallSetting *
find_setting (guint prop_id)
{
  for (guint i = 0; i < G_N_ELEMENTS (call_settings); i++)
    if (call_settings[i].prop_id == prop_id)
      return &call_settings[i];
  return NULL;
}

/* Each setting at its property's default.  The call properties are the
 * element's own, installed from an offset of its own, address first. */
static void
settings_init (GstDonarCallSettings * s, GObjectClass * klass)
{
  GParamSpec *address = g_object_class_find_property (klass, "address");
  guint first = address->param_id - GST_DONAR_CALL_PROP_ADDRESS;
  guint n;
  GParamSpec **pspecs = g_object_class_list_properties (klass, &n);

  for (guint i = 0; i < n; i++)
    if (pspecs[i]->owner_type == address->owner_type &&
        pspecs[i]->param_id >= first)
      gst_donar_call_settings_set (s, pspecs[i]->param_id - first,
          g_param_spec_get_default_value (pspecs[i]));
  g_free (pspecs);
  /* Left at its default, a running tor's guards are left alone. */
  s->guards_set = FALSE;
}

void
gst_donar_call_client_init (GstDonarCallClient * client, GstElement * element)
{
  GstDonarCallSettings *s = &client->settings;

  memset (client, 0, sizeof *client);
  client->element = element;
  if (client_quark == 0)
    client_quark = g_quark_from_static_string ("gst-donar-call-client");
  g_object_set_qdata (G_OBJECT (element), client_quark, client);
  settings_init (s, G_OBJECT_GET_CLASS (element));
  client->counters = gst_structure_new_empty ("counters");
  g_mutex_init (&client->stats_lock);
  g_cond_init (&client->stats_cond);
}

void
gst_donar_call_client_clear (GstDonarCallClient * client)
{
  donar_secret_free (client->settings.address);
  g_free (client->settings.call);
  g_free (client->settings.tor_control);
  g_free (client->settings.address_file);
  g_free (client->settings.key_file);
  g_free (client->settings.client_auth_dir);
  g_free (client->settings.tor_socks_path);
  donar_secret_free (client->settings.tor_password);
  g_free (client->settings.tor_cookie_file);
  g_free (client->address_file);
  g_strfreev (client->uri_params);
  g_free (client->uri_error);
  gst_structure_free (client->counters);
  g_mutex_clear (&client->stats_lock);
  g_cond_clear (&client->stats_cond);
}

static void
set_string (gchar ** field, const GValue * value)
{
  const gchar *s = g_value_get_string (value);

  g_free (*field);
  *field = g_strdup (s ? s : "");
}

gboolean
gst_donar_call_settings_set (GstDonarCallSettings * s, guint prop_id,
    const GValue * value)
{
  const CallSetting *setting = find_setting (prop_id);
  gpointer field;

  if (setting == NULL)
    return FALSE;
  field = G_STRUCT_MEMBER_P (s, setting->offset);
  switch (G_TYPE_FUNDAMENTAL (G_VALUE_TYPE (value))) {
    case G_TYPE_STRING:
      if (setting->flags & SETTING_SECRET)
        donar_secret_free (g_steal_pointer ((gchar **) field));
      set_string (field, value);
      break;
    case G_TYPE_UINT:
      *(guint *) field = g_value_get_uint (value);
      break;
    case G_TYPE_BOOLEAN:
      *(gboolean *) field = g_value_get_boolean (value);
      break;
    case G_TYPE_DOUBLE:
      *(gdouble *) field = g_value_get_double (value);
      break;
    case G_TYPE_ENUM:
      *(gint *) field = g_value_get_enum (value);
      break;
    default:
      g_return_val_if_reached (FALSE);
  }
  if (prop_id == GST_DONAR_CALL_PROP_GUARDS)
    s->guards_set = TRUE;
  return TRUE;
}

gboolean
gst_donar_call_client_set_property (GstDonarCallClient * client,
    guint prop_id, const GValue * value, const GParamSpec * pspec)
{
  gboolean known;

  GST_OBJECT_LOCK (client->element);
  if (client->call && prop_id < GST_DONAR_CALL_N_PROPS) {
    GST_OBJECT_UNLOCK (client->element);
    /* The call was made with the value at start: taking a new one would
     * make the property lie about the call.  Both elements start it at
     * READY to PAUSED and stop it at PAUSED to READY. */
    GST_ELEMENT_WARNING (client->element, RESOURCE, SETTINGS,
        ("\"%s\" cannot change during a call: it keeps its value until the "
            "element is back in READY or NULL.",
            g_param_spec_get_name ((GParamSpec *) pspec)), (NULL));
    return TRUE;
  }
  if (prop_id == GST_DONAR_CALL_PROP_URI) {
    GST_OBJECT_UNLOCK (client->element);
    gst_donar_call_client_set_uri_property (client, value);
    return TRUE;
  }
  known = gst_donar_call_settings_set (&client->settings, prop_id, value);
  GST_OBJECT_UNLOCK (client->element);
  return known;
}

gboolean
gst_donar_call_settings_get (const GstDonarCallSettings * s, guint prop_id,
    GValue * value)
{
  const CallSetting *setting = find_setting (prop_id);
  gconstpointer field;

  if (setting == NULL || (setting->flags & SETTING_WRITE_ONLY))
    return FALSE;
  field = G_STRUCT_MEMBER_P (s, setting->offset);
  switch (G_TYPE_FUNDAMENTAL (G_VALUE_TYPE (value))) {
    case G_TYPE_STRING:
      g_value_set_string (value, *(gchar * const *) field);
      break;
    case G_TYPE_UINT:
      g_value_set_uint (value, *(const guint *) field);
      break;
    case G_TYPE_BOOLEAN:
      g_value_set_boolean (value, *(const gboolean *) field);
      break;
    case G_TYPE_DOUBLE:
      g_value_set_double (value, *(const gdouble *) field);
      break;
    case G_TYPE_ENUM:
      g_value_set_enum (value, *(const gint *) field);
      break;
    default:
      g_return_val_if_reached (FALSE);
  }
  return TRUE;
}

gboolean
gst_donar_call_client_get_property (GstDonarCallClient * client,
    guint prop_id, GValue * value)
{
  gboolean known;

  if (prop_id == GST_DONAR_CALL_PROP_STATS) {
    g_value_take_boxed (value, gst_donar_call_client_get_stats (client));
    return TRUE;
  }
  if (prop_id == GST_DONAR_CALL_PROP_URI) {
    g_value_take_string (value, gst_donar_call_client_get_uri (client));
    return TRUE;
  }
  GST_OBJECT_LOCK (client->element);
  known = gst_donar_call_settings_get (&client->settings, prop_id, value);
  GST_OBJECT_UNLOCK (client->element);
  return known;
}

/* Messages to every element of the call, queued under call->lock and
 * posted when it is released (gstdonarcallposts.h). */
static void
post_progress (GstDonarCall * call, GstDonarCallClient * client,
    GstProgressType type, const gchar * text, gint percent)
{
  gst_donar_call_posts_add (&call->posts, client->element,
      gst_donar_progress_message_new (client->element, type, text, percent));
}

/* A file that cannot be written does not stop the call: the address is
 * also in the donar-call-address message. */
static void
write_address_file (GstDonarCall * call, GstDonarCallClient * client,
    const gchar * address)
{
  GError *error = NULL;

  if (client->address_file[0] == '\0')
    return;
  if (!donar_call_write_address_file (client->address_file, address, &error)) {
    gst_donar_call_posts_add_resource (&call->posts, client->element,
        GST_MESSAGE_WARNING, GST_RESOURCE_ERROR_OPEN_WRITE,
        g_strdup_printf ("Could not write the call address to \"%s\"; the "
            "call goes on.", client->address_file), g_strdup (error->message),
        NULL);
    g_error_free (error);
  }
}

static void
post_links (GstDonarCall * call, GstDonarCallClient * client)
{
  gst_donar_call_posts_add (&call->posts, client->element,
      gst_message_new_element (GST_OBJECT (client->element),
          gst_structure_new ("donar-links", "links-up", G_TYPE_UINT,
              (guint) call->links_up, "links", G_TYPE_UINT, call->n_links,
              NULL)));
}

/* donar-ready promises that frames will be carried.  A callee is ready
 * once it can be called (its address posted): its caller needs nothing
 * more to dial.  A caller is ready once a link is up: before, whatever it
 * sends is lost, and over Tor the links take seconds to open. */
static gboolean
call_is_ready (GstDonarCall * call)
{
  return call->call && (call->options.role == DONAR_ROLE_CALLEE ||
      call->links_up > 0);
}

static void
post_ready (GstDonarCall * call, GstDonarCallClient * client)
{
  gst_donar_call_posts_add (&call->posts, client->element,
      gst_message_new_element (GST_OBJECT (client->element),
          gst_structure_new ("donar-ready", "callee", G_TYPE_BOOLEAN,
              call->options.role == DONAR_ROLE_CALLEE, NULL)));
  if (client->on_ready)
    client->on_ready (client);
}

/* Under call->lock: the setup ended without a call.  A cancelled setup is
 * no failure: it was stopped because no element wants the call any more. */
static gboolean
setup_failed (GstDonarCall * call)
{
  return call->done && call->call == NULL && call->error &&
      !g_error_matches (call->error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

/* Under call->lock: the reason why the call cannot go on (its setup
 * failed, or the callee refused it), or NULL. */
static const gchar *
call_failure (GstDonarCall * call)
{
  if (setup_failed (call))
    return call->error->message;
  if (call->done && call->refusal)
    return call->refusal->message;
  return NULL;
}

static void
post_setup_error (GstDonarCall * call, GstElement * element,
    const gchar * reason)
{
  /* The reason in the message itself, where gst-launch-1.0 and most
   * applications show it, not only in the debug text. */
  gst_donar_call_posts_add_resource (&call->posts, element, GST_MESSAGE_ERROR,
      GST_RESOURCE_ERROR_OPEN_READ_WRITE,
      g_strdup_printf ("The DONAR call could not be set up: %s.", reason),
      g_strdup (reason), NULL);
}

static void
client_ready (GstDonarCall * call, GstDonarCallClient * client)
{
  GstElement *element = client->element;
  const gchar *failure = call_failure (call);

  if (failure) {
    /* The error before the end of the progress: gst-launch-1.0 takes that
     * end as its cue to go to PLAYING, and quits on the error only if the
     * error came first (else PLAYING posts it again).  A refused call
     * says so to an element that joins it, never "call set up". */
    post_setup_error (call, element, failure);
    post_progress (call, client, GST_PROGRESS_TYPE_ERROR, failure,
        call->percent);
  } else if (call->call) {
    const gchar *address = donar_call_get_address (call->call);

    post_progress (call, client, GST_PROGRESS_TYPE_COMPLETE, "call set up",
        100);
    /* Only the callee has an address to give; the caller's would only put
     * its secret in the hands of whoever watches the bus.  The file before
     * the message, so that whoever waits for the message finds it. */
    if (call->options.role == DONAR_ROLE_CALLEE) {
      write_address_file (call, client, address);
      gst_donar_call_posts_add (&call->posts, element,
          gst_message_new_element (GST_OBJECT (element),
              gst_structure_new ("donar-call-address", "address",
                  G_TYPE_STRING, address, "callee", G_TYPE_BOOLEAN, TRUE,
                  NULL)));
    }
    if (call_is_ready (call))
      post_ready (call, client);
  } else {
    /* Every start has its end, or an application that waits for the
     * progress to end waits for ever. */
    post_progress (call, client, GST_PROGRESS_TYPE_CANCELED,
        "call setup canceled", call->percent);
  }
}

static void
on_progress (const gchar * step, gint percent, gpointer user_data)
{
  GstDonarCall *call = user_data;
  g_autofree gchar *text = percent >= 0 ?
      g_strdup_printf ("%s (%d %%)", step, percent) : g_strdup (step);

  g_mutex_lock (&call->lock);
  call->percent = gst_donar_progress_percent (step, percent, call->percent);
  for (GList * l = call->clients; l; l = l->next)
    post_progress (call, l->data, GST_PROGRESS_TYPE_CONTINUE, text,
        call->percent);
  gst_donar_call_posts_unlock (&call->posts, &call->lock);
}

/* donar-call-ended: why ("hung-up" here; "peer-hung-up", "peer-failed",
 * "peer-ended" with no reason, "peer-unreachable") and the details. */
static void
post_ended (GstDonarCall * call, GstDonarCallClient * client,
    const gchar * reason, const gchar * message)
{
  gst_donar_call_posts_add (&call->posts, client->element,
      gst_message_new_element (GST_OBJECT (client->element),
          gst_structure_new ("donar-call-ended", "reason", G_TYPE_STRING,
              reason, "message", G_TYPE_STRING, message, NULL)));
}

/* donar-peer-restarted: the peer's session started over (a callee with
 * its key file, a caller dialing again): its RTP (SSRC, sequence,
 * timestamps) starts over too, and an rtpbin gives it a new pad. */
static void
post_peer_restarted (GstDonarCall * call, GstDonarCallClient * client,
    guint link)
{
  gst_donar_call_posts_add (&call->posts, client->element,
      gst_message_new_element (GST_OBJECT (client->element),
          gst_structure_new ("donar-peer-restarted", "link", G_TYPE_UINT,
              link, NULL)));
}

/* donar-incoming-call (callee): the caller's first link is authenticated;
 * "answered" FALSE while the application must accept or reject it. */
static void
post_incoming_call (GstDonarCall * call, GstDonarCallClient * client,
    guint link, gboolean answered)
{
  gst_donar_call_posts_add (&call->posts, client->element,
      gst_message_new_element (GST_OBJECT (client->element),
          gst_structure_new ("donar-incoming-call", "link", G_TYPE_UINT,
              link, "answered", G_TYPE_BOOLEAN, answered, NULL)));
}

/* A caller with no link yet is told why soon (the engine's
 * no_link_warning_us), not after peer-timeout: a warning naming the likely
 * cause, and its short name in the details' "reason" for applications. */
static void
post_no_link_yet (GstDonarCall * call, GstElement * element,
    const gchar * failure, const gchar * explanation, const gchar * message)
{
  GstStructure *details = gst_structure_new ("details", "reason",
      G_TYPE_STRING, failure, NULL);

  gst_donar_call_posts_add_resource (&call->posts, element,
      GST_MESSAGE_WARNING, GST_RESOURCE_ERROR_OPEN_READ_WRITE,
      g_strdup_printf ("No link to the other end yet: %s.", explanation),
      g_strdup (message), details);
}

/* Under call->lock; events may come before setup_thread sets call->call. */
static DonarLinkEnd
call_end (GstDonarCall * call, DonarByeReason * reason)
{
  *reason = DONAR_BYE_UNKNOWN;
  if (call->call == NULL)
    return DONAR_LINK_END_NONE;
  return donar_link_engine_get_end (donar_call_get_engine (call->call), reason);
}

static const gchar *
peer_end_reason (GstDonarCall * call)
{
  DonarByeReason reason;

  call_end (call, &reason);
  return donar_link_end_peer_reason (reason);
}

/* Under call->lock: a warning or an error about the links, the engine's
 * message as its debug text. */
#define queue_resource(call, element, type, code, text, debug) \
  gst_donar_call_posts_add_resource (&(call)->posts, (element), (type), \
      (code), (text), g_strdup (debug), NULL)

static void
on_event (const DonarLinkEvent * event, gpointer user_data)
{
  GstDonarCall *call = user_data;
  gboolean links_changed, now_ready, now_ended, refused;
  DonarByeReason reason;
  const gchar *failure, *explanation = "no dial has said why yet";

  g_mutex_lock (&call->lock);
  /* An event tells the number after every change of its batch: two
   * events may say the same number, which is then posted once. */
  links_changed = (guint) call->links_up != event->links_up;
  /* An unreachable peer reported early (a refusal) ends nothing yet. */
  now_ended = !call->ended && (event->type == DONAR_LINK_EVENT_PEER_ENDED ||
      (event->type == DONAR_LINK_EVENT_PEER_UNREACHABLE &&
          call_end (call, &reason) != DONAR_LINK_END_NONE));
  call->ended |= now_ended;
  refused = event->type == DONAR_LINK_EVENT_PEER_UNREACHABLE && !now_ended;
  if (refused && call->refusal == NULL)
    call->refusal = g_error_new_literal (G_IO_ERROR,
        G_IO_ERROR_CONNECTION_REFUSED, event->message);
  failure = event->type == DONAR_LINK_EVENT_NO_LINK_YET && call->call ?
      donar_link_engine_get_failure (donar_call_get_engine (call->call),
      &explanation) : "unknown";
  g_atomic_int_set (&call->links_up, event->links_up);
  call->incoming |= event->type == DONAR_LINK_EVENT_INCOMING_CALL;
  /* Before the call is set up the elements have no engine yet: setup_thread
   * posts donar-ready then. */
  now_ready = !call->ready && call_is_ready (call);
  call->ready |= now_ready;
  for (GList * l = call->clients; l; l = l->next) {
    GstDonarCallClient *client = l->data;
    GstElement *element = client->element;

    GST_DEBUG_OBJECT (element, "%s: link %d, %u up: %s",
        donar_link_event_type_to_string (event->type), (gint) event->link,
        event->links_up, event->message);
    switch (event->type) {
      case DONAR_LINK_EVENT_LINK_DOWN:
        queue_resource (call, element, GST_MESSAGE_WARNING,
            GST_RESOURCE_ERROR_WRITE,
            g_strdup_printf ("Link %u of the call is down.", event->link),
            event->message);
        break;
      case DONAR_LINK_EVENT_NO_LINK_LEFT:
        /* Only a caller dials; a callee's onion waits to be dialed. */
        if (call->options.role == DONAR_ROLE_CALLER)
          queue_resource (call, element, GST_MESSAGE_WARNING,
              GST_RESOURCE_ERROR_WRITE,
              g_strdup ("No link of the call is left open; dialing again."),
              event->message);
        else
          queue_resource (call, element, GST_MESSAGE_WARNING,
              GST_RESOURCE_ERROR_WRITE,
              g_strdup ("No link of the call is left open; waiting for the "
                  "caller to reconnect."), event->message);
        break;
      case DONAR_LINK_EVENT_PEER_UNREACHABLE:
        if (now_ended) {
          post_ended (call, client, "peer-unreachable", event->message);
          queue_resource (call, element, GST_MESSAGE_ERROR,
              GST_RESOURCE_ERROR_WRITE,
              g_strdup_printf ("The other end of the call is unreachable: no "
                  "link to it for peer-timeout (%u s).",
                  client->settings.peer_timeout), event->message);
        } else if (call->done) {
          queue_resource (call, element, GST_MESSAGE_ERROR,
              GST_RESOURCE_ERROR_WRITE,
              g_strdup ("The other end of the call cannot be reached."),
              event->message);
        }
        /* Else the setup thread fails the setup with it. */
        break;
      case DONAR_LINK_EVENT_NO_LINK_YET:
        post_no_link_yet (call, element, failure, explanation, event->message);
        break;
      case DONAR_LINK_EVENT_PEER_ENDED:
        post_ended (call, client, peer_end_reason (call), event->message);
        call_end (call, &reason);
        /* A gst-launch caller exits with the reason, not as after a
         * hang-up. */
        if (reason == DONAR_BYE_REJECTED)
          queue_resource (call, element, GST_MESSAGE_ERROR,
              GST_RESOURCE_ERROR_OPEN_WRITE,
              g_strdup ("The other end rejected the call."), event->message);
        break;
      case DONAR_LINK_EVENT_INCOMING_CALL:
        post_incoming_call (call, client, event->link,
            g_atomic_int_get (&call->answered));
        break;
      case DONAR_LINK_EVENT_PEER_RESTARTED:
        post_peer_restarted (call, client, event->link);
        break;
      case DONAR_LINK_EVENT_NO_LINK_IN_TIME:
        queue_resource (call, element, GST_MESSAGE_WARNING,
            GST_RESOURCE_ERROR_WRITE,
            g_strdup ("No link of the call delivers in time: the path is "
                "stalled."), event->message);
        break;
      default:
        break;
    }
    if (client->on_event)
      client->on_event (client, event);
    if (links_changed)
      post_links (call, client);
    if (now_ready)
      post_ready (call, client);
  }
  gst_donar_call_posts_unlock (&call->posts, &call->lock);
}

/* A warning or an error from every element of the call (lib/call's
 * threads). */
static void
post_to_clients (GstDonarCall * call, GstMessageType type,
    GstResourceError code, const gchar * text, const gchar * debug)
{
  g_mutex_lock (&call->lock);
  for (GList * l = call->clients; l; l = l->next)
    gst_donar_call_posts_add_resource (&call->posts,
        ((GstDonarCallClient *) l->data)->element, type, code,
        g_strdup (text), g_strdup (debug), NULL);
  gst_donar_call_posts_unlock (&call->posts, &call->lock);
}

static void
warn_clients (GstDonarCall * call, GstResourceError code, const gchar * text,
    const gchar * debug)
{
  post_to_clients (call, GST_MESSAGE_WARNING, code, text, debug);
}

/* On lib/call's watch thread: tor's control connection is gone (tor
 * stopped, or the port closed), and with it a callee's onion (no Detach,
 * docs/tor-control.md).  The links open now go on, so a warning.  With
 * none open, a caller dials again (through the SocksPort, which may still
 * work) until peer-timeout; a callee can never be reached again, and a
 * callee nobody has called yet would wait for ever: an error. */
static void
on_tor_lost (const GError * error, gpointer user_data)
{
  GstDonarCall *call = user_data;
  g_autofree gchar *text = NULL;

  if (g_atomic_int_get (&call->links_up) > 0) {
    warn_clients (call, GST_RESOURCE_ERROR_READ, "Lost tor's control port: "
        "the call goes on over the open links.", error->message);
  } else if (call->options.role == DONAR_ROLE_CALLEE) {
    post_to_clients (call, GST_MESSAGE_ERROR, GST_RESOURCE_ERROR_READ,
        "Lost tor's control port with no link open: the onion service is "
        "gone, and the caller cannot reach this end again.", error->message);
  } else {
    text = g_strdup_printf ("Lost tor's control port with no link open: "
        "dialing again through tor's SocksPort; the call ends if no link "
        "comes up within peer-timeout (%u s).",
        (guint) (call->options.engine.peer_timeout_us / G_USEC_PER_SEC));
    warn_clients (call, GST_RESOURCE_ERROR_READ, text, error->message);
  }
}

/* On the setup thread: a running tor's guards, not as the call would have
 * them (lib/call says what and why); the call goes on. */
static void
on_warning (const gchar * message, gpointer user_data)
{
  warn_clients (user_data, GST_RESOURCE_ERROR_SETTINGS,
      "The running tor's entry guards are not the call's.", message);
}

static gpointer
setup_thread (gpointer user_data)
{
  GstDonarCall *call = user_data;
  GError *error = NULL;
  DonarCall *c;

  c = donar_call_start (&call->options, on_progress, on_event, call,
      call->cancellable, &error);
  g_mutex_lock (&call->lock);
  /* Refused while the setup ended (the first dials go out before
   * donar_call_start () returns): the setup failed, and says so once,
   * rather than "set up" after the refusal's error.  The call is freed
   * without the lock: its engine's thread may wait for it in on_event. */
  if (c && call->refusal) {
    error = g_steal_pointer (&call->refusal);
    g_mutex_unlock (&call->lock);
    donar_call_free (g_steal_pointer (&c));
    g_mutex_lock (&call->lock);
  }
  call->call = c;
  call->error = error;
  call->done = TRUE;
  call->ready = call_is_ready (call);
  for (GList * l = call->clients; l; l = l->next)
    client_ready (call, l->data);
  gst_donar_call_posts_unlock (&call->posts, &call->lock);
  return NULL;
}

/* After donar_call_parse_tor_control: the password and cookie are a
 * running tor's, whose control port or socket must be given. */
static gboolean
fill_tor_auth (GstDonarCall * call, const GstDonarCallSettings * s,
    GError ** error)
{
  DonarCallOptions *o = &call->options;
  gboolean running_tor = o->tor_control_port || o->tor_control_path;
  const gchar *given = s->tor_password[0] ? "tor-password" :
      s->tor_cookie_file[0] ? "tor-cookie-file" : NULL;

  if (given && !running_tor) {
    g_set_error (error, DONAR_CALL_ERROR, DONAR_CALL_ERROR_OPTIONS,
        "%s is for a running tor's control port: set tor-control to its "
        "port or socket (a tor we launch, or none, needs no password)", given);
    return FALSE;
  }
  if (s->tor_cookie_file[0] && !g_file_test (s->tor_cookie_file,
          G_FILE_TEST_IS_REGULAR)) {
    g_set_error (error, DONAR_CALL_ERROR, DONAR_CALL_ERROR_OPTIONS,
        "tor-cookie-file: \"%s\" is not a file (tor writes its cookie, 32 "
        "bytes, where its CookieAuthFile says)", s->tor_cookie_file);
    return FALSE;
  }
  if (s->tor_password[0]) {
    call->tor_password = g_strdup (s->tor_password);
    o->tor_password = call->tor_password;
  }
  if (s->tor_cookie_file[0]) {
    call->tor_cookie_file = g_strdup (s->tor_cookie_file);
    o->tor_cookie_file = call->tor_cookie_file;
  }
  return TRUE;
}

static gboolean
fill_options (GstDonarCall * call, const GstDonarCallSettings * s,
    GError ** error)
{
  DonarCallOptions *o = &call->options;
  gboolean callee = s->callee || s->address[0] == '\0';

  donar_call_options_init (o, callee ? DONAR_ROLE_CALLEE : DONAR_ROLE_CALLER);
  o->on_tor_lost = on_tor_lost;
  o->on_warning = on_warning;
  if (s->callee && s->address[0] != '\0') {
    g_set_error (error, DONAR_CALL_ERROR, DONAR_CALL_ERROR_OPTIONS,
        "callee is set and so is an address to dial: choose one");
    return FALSE;
  }
  if (s->n1st + s->n2nd > s->links) {
    g_set_error (error, DONAR_CALL_ERROR, DONAR_CALL_ERROR_OPTIONS,
        "n1st (%u) + n2nd (%u) is more than links (%u)", s->n1st, s->n2nd,
        s->links);
    return FALSE;
  }
  if (!callee) {
    call->address = g_strdup (s->address);
    o->address = call->address;
  }
  if (!donar_call_parse_tor_control (o, "tor-control", s->tor_control,
          &call->tor_control_path, error)
      || !donar_call_parse_tor_socks_path (o, "tor-socks-path",
          s->tor_socks_path, &call->tor_socks_path, error))
    return FALSE;
  if (!fill_tor_auth (call, s, error))
    return FALSE;
  o->setup_timeout_ms = s->setup_timeout * 1000;
  o->tor_socks_port = (guint16) s->tor_socks;
  o->security = s->security;
  o->num_entry_guards = s->guards;
  o->guards_explicit = s->guards_set;
  o->client_auth = s->client_auth;
  if (callee && s->key_file[0] != '\0') {
    call->key_file = g_strdup (s->key_file);
    o->key_file = call->key_file;
  }
  if (callee && s->client_auth_dir[0] != '\0') {
    call->client_auth_dir = g_strdup (s->client_auth_dir);
    o->client_auth_dir = call->client_auth_dir;
  }
  o->engine.config.n_links = s->links;
  o->engine.config.n_1st = s->n1st;
  o->engine.config.n_2nd = s->n2nd;
  o->engine.config.window_us = (gint64) s->window * 1000;
  o->engine.config.policy = s->policy;
  o->engine.config.budget = s->budget;
  o->engine.config.redundancy = s->redundancy;
  o->engine.config.spread_copies = s->spread_copies;
  o->engine.peer_timeout_us = (gint64) s->peer_timeout * G_USEC_PER_SEC;
  call->n_links = s->links;
  call->answered = !callee || s->auto_answer;
  return donar_call_options_check (o, error);
}

static void
call_free (GstDonarCall * call)
{
  g_cancellable_cancel (call->cancellable);
  if (call->thread)
    g_thread_join (call->thread);
  /* Stopping is hanging up: the peer is told, not left to time out. */
  if (call->call)
    donar_link_engine_end (donar_call_get_engine (call->call),
        DONAR_BYE_HUNG_UP, HANG_UP_FLUSH_US);
  donar_call_free (call->call);
  g_clear_error (&call->error);
  g_clear_error (&call->refusal);
  g_object_unref (call->cancellable);
  donar_call_options_clear (&call->options);
  donar_secret_free (call->address);
  g_free (call->key_file);
  g_free (call->client_auth_dir);
  g_free (call->tor_control_path);
  g_free (call->tor_socks_path);
  donar_secret_free (call->tor_password);
  g_free (call->tor_cookie_file);
  g_free (call->name);
  gst_donar_call_posts_clear (&call->posts);
  g_mutex_clear (&call->lock);
  g_free (call);
}

static GstDonarCall *
call_ref (GstDonarCall * call)
{
  g_mutex_lock (&registry_lock);
  call->refcount++;
  g_mutex_unlock (&registry_lock);
  return call;
}

/* Whether this was the last reference: the call is then out of the
 * registry, and the caller frees it. */
static gboolean
call_release (GstDonarCall * call)
{
  gboolean last;

  g_mutex_lock (&registry_lock);
  last = --call->refcount == 0;
  if (last && call->name)
    g_hash_table_remove (registry, call->name);
  g_mutex_unlock (&registry_lock);
  return last;
}

static void
call_unref (GstDonarCall * call)
{
  if (call_release (call))
    call_free (call);
}

static gpointer
free_thread (gpointer user_data)
{
  call_free (user_data);
  return NULL;
}

/* The reference an application's call took (stats, accept, reject): it
 * may come from a sync bus handler on one of the call's own threads (its
 * setup thread, its engine's), and the elements may have stopped
 * meanwhile, this reference the last.  Freeing the call joins those
 * threads, and a thread cannot join itself: the last one is dropped on a
 * thread of its own. */
static void
call_unref_from_app (GstDonarCall * call)
{
  if (call_release (call))
    g_thread_unref (g_thread_new ("donar-call-free", free_thread, call));
}

/* Posts the stats every stats-interval ms until stop. */
static gpointer
stats_thread (gpointer user_data)
{
  GstDonarCallClient *client = user_data;
  GstElement *element = client->element;
  gint64 next = g_get_monotonic_time ();

  g_mutex_lock (&client->stats_lock);
  for (;;) {
    GstStructure *stats;

    next += (gint64) client->stats_interval_ms * 1000;
    while (!client->stats_stop &&
        g_cond_wait_until (&client->stats_cond, &client->stats_lock, next));
    if (client->stats_stop)
      break;
    g_mutex_unlock (&client->stats_lock);
    stats = gst_donar_call_client_get_stats (client);
    gst_element_post_message (element,
        gst_message_new_element (GST_OBJECT (element),
            gst_structure_new ("donar-stats", "stats", GST_TYPE_STRUCTURE,
                stats, NULL)));
    gst_structure_free (stats);
    g_mutex_lock (&client->stats_lock);
  }
  g_mutex_unlock (&client->stats_lock);
  return NULL;
}

/* Call names are scoped to the top-level bin: two pipelines of one
 * process that both say call=c make two calls, not one. */
static gchar *
registry_key (GstElement * element, const gchar * name)
{
  GstObject *top = gst_object_ref (GST_OBJECT (element)), *parent;
  gchar *key;

  while ((parent = gst_object_get_parent (top))) {
    gst_object_unref (top);
    top = parent;
  }
  key = g_strdup_printf ("%p/%s", (gpointer) top, name);
  gst_object_unref (top);
  return key;
}

/* An element joining a call must want the same call: the first element of
 * the name decides whether it dials or answers, and a later one that
 * disagrees would silently be made the other. */
static gboolean
check_join (GstDonarCall * call, const GstDonarCallSettings * s,
    GError ** error)
{
  const gchar *why = NULL;

  if (s->address[0] != '\0' && call->options.role == DONAR_ROLE_CALLEE)
    why = "this element dials an address, the call is a callee (set the "
        "address on every element of the call, or on none)";
  else if (s->address[0] != '\0' && g_strcmp0 (s->address, call->address))
    why = "the elements of the call dial different addresses";
  else if (s->callee && call->options.role == DONAR_ROLE_CALLER)
    why = "this element is a callee, the call dials an address";
  if (why)
    g_set_error (error, DONAR_CALL_ERROR, DONAR_CALL_ERROR_OPTIONS,
        "call \"%s\": %s", s->call, why);
  return why == NULL;
}

gboolean
gst_donar_call_client_start (GstDonarCallClient * client)
{
  GstElement *element = client->element;
  GstDonarCallSettings *s = &client->settings;
  GstDonarCall *call = NULL;
  GError *error = NULL;
  gboolean created = FALSE;
  gchar *key;
  guint interval;

  GST_OBJECT_LOCK (element);
  key = g_strdup (s->call);
  GST_OBJECT_UNLOCK (element);
  /* Not under the element's lock: its parents are looked up. */
  if (key[0] != '\0') {
    gchar *scoped = registry_key (element, key);

    g_free (key);
    key = scoped;
  }

  GST_OBJECT_LOCK (element);
  g_mutex_lock (&registry_lock);
  if (registry == NULL)
    registry = g_hash_table_new (g_str_hash, g_str_equal);
  if (key[0] != '\0')
    call = g_hash_table_lookup (registry, key);
  if (client->uri_error) {
    /* Not the settings the user meant: no call at all. */
    g_set_error (&error, DONAR_CALL_ERROR, DONAR_CALL_ERROR_OPTIONS,
        "uri: %s", client->uri_error);
    call = NULL;
  } else if (call) {
    if (check_join (call, s, &error)) {
      call->refcount++;
      GST_INFO_OBJECT (element, "joining call \"%s\"", s->call);
    } else {
      call = NULL;
    }
  } else {
    call = g_new0 (GstDonarCall, 1);
    call->refcount = 1;
    g_mutex_init (&call->lock);
    gst_donar_call_posts_init (&call->posts);
    call->cancellable = g_cancellable_new ();
    if (fill_options (call, s, &error)) {
      if (key[0] != '\0') {
        call->name = g_steal_pointer (&key);
        g_hash_table_insert (registry, call->name, call);
      }
      created = TRUE;
    }
  }
  g_mutex_unlock (&registry_lock);
  interval = s->stats_interval;
  g_free (client->address_file);
  client->address_file = g_strdup (s->address_file);
  GST_OBJECT_UNLOCK (element);
  g_free (key);

  if (error) {
    /* The setting and why, never a secret (the address parser names the
     * part that is wrong). */
    GST_ELEMENT_ERROR (element, RESOURCE, SETTINGS,
        ("Invalid call settings: %s.", error->message), ("%s", error->message));
    g_error_free (error);
    if (call)
      call_free (call);
    return FALSE;
  }

  g_mutex_lock (&call->lock);
  /* A call whose setup failed, or that the callee refused, is joined all
   * the same, and the element posts its error (client_ready ()): failing
   * the state change instead
   * made gst-launch-1.0 exit 255 rather than 1 when the setup failed before
   * the second element of a duplex call started (gst_donar_call_client_play
   * ()). */
  call->clients = g_list_append (call->clients, client);
  /* A late element hears what the others heard: the links up now. */
  if (call->links_up > 0)
    post_links (call, client);
  if (call->done)
    client_ready (call, client);
  else {
    /* Each element's progress starts at 0; one that joins a setup already
     * under way then hears where it is. */
    post_progress (call, client, GST_PROGRESS_TYPE_START,
        "setting up the call", 0);
    if (call->percent > 0)
      post_progress (call, client, GST_PROGRESS_TYPE_CONTINUE,
          "joined the call's setup", call->percent);
  }
  gst_donar_call_posts_unlock (&call->posts, &call->lock);

  if (created)
    call->thread = g_thread_new ("donar-call-setup", setup_thread, call);

  GST_OBJECT_LOCK (element);
  client->call = call;
  GST_OBJECT_UNLOCK (element);

  if (interval > 0) {
    client->stats_interval_ms = interval;
    client->stats_stop = FALSE;
    client->stats_thread = g_thread_new ("donar-stats", stats_thread, client);
  }
  return TRUE;
}

void
gst_donar_call_client_stop (GstDonarCallClient * client)
{
  GstDonarCall *call;
  gboolean canceled;
  gint percent;

  if (client->stats_thread) {
    g_mutex_lock (&client->stats_lock);
    client->stats_stop = TRUE;
    g_cond_signal (&client->stats_cond);
    g_mutex_unlock (&client->stats_lock);
    g_thread_join (client->stats_thread);
    client->stats_thread = NULL;
  }
  GST_OBJECT_LOCK (client->element);
  call = client->call;
  client->call = NULL;
  GST_OBJECT_UNLOCK (client->element);
  if (call == NULL)
    return;
  g_mutex_lock (&call->lock);
  call->clients = g_list_remove (call->clients, client);
  /* Nothing of this element's is posted once it has stopped: its
   * application may free what its bus handler reads. */
  gst_donar_call_posts_forget (&call->posts, client->element, &call->lock);
  canceled = !call->done;
  percent = call->percent;
  g_mutex_unlock (&call->lock);
  /* This element's start of the progress gets its end, the last of its
   * messages: the setup thread no longer posts it to this element. */
  if (canceled)
    gst_element_post_message (client->element,
        gst_donar_progress_message_new (client->element,
            GST_PROGRESS_TYPE_CANCELED, "call setup canceled", percent));
  call_unref (call);
}

/* gst-launch-1.0 (1.22) quits on an error from its bus sync handler, with
 * g_main_loop_quit (), which is lost when it comes before
 * g_main_loop_run (): an error the setup thread posts while the state
 * change to PAUSED returns is printed and then ignored, and the end of the
 * progress takes the pipeline to PLAYING, for ever.  That end is handled in
 * the running loop, and so is the state change to PLAYING it starts: the
 * error posted again then is heard.  The state change does not fail: a
 * failed one makes gst-launch-1.0 exit 255 where an error it heard the
 * first time makes it exit 1, and which of the two comes first is a race
 * (about a third of the runs were 255); so it exits 1 every time.
 * Applications that listen earlier hear the first error and need not go
 * to PLAYING. */
gboolean
gst_donar_call_client_play (GstDonarCallClient * client)
{
  /* Not under the element's lock: state changes do not overlap, and only
   * they set client->call. */
  GstDonarCall *call = client->call;
  gchar *reason = NULL;

  if (call == NULL)
    return TRUE;
  g_mutex_lock (&call->lock);
  reason = g_strdup (call_failure (call));
  if (reason)
    post_setup_error (call, client->element, reason);
  gst_donar_call_posts_unlock (&call->posts, &call->lock);
  if (reason == NULL)
    return TRUE;
  g_free (reason);
  return FALSE;
}

static DonarLinkEngine *
call_get_engine (GstDonarCall * call)
{
  DonarLinkEngine *engine = NULL;

  g_mutex_lock (&call->lock);
  if (call->call)
    engine = donar_call_get_engine (call->call);
  g_mutex_unlock (&call->lock);
  return engine;
}

/* The streaming threads: the call does not change while they run. */
DonarLinkEngine *
gst_donar_call_client_get_engine (GstDonarCallClient * client)
{
  return client->call ? call_get_engine (client->call) : NULL;
}

guint
gst_donar_call_client_get_links_up (GstDonarCallClient * client)
{
  return client->call ? (guint) g_atomic_int_get (&client->call->links_up) : 0;
}

gboolean
gst_donar_call_client_is_ready (GstDonarCallClient * client)
{
  gboolean ready;

  if (client->call == NULL)
    return FALSE;
  g_mutex_lock (&client->call->lock);
  ready = client->call->ready;
  g_mutex_unlock (&client->call->lock);
  return ready;
}

void
gst_donar_call_client_count (GstDonarCallClient * client, const gchar * counter)
{
  guint64 n = 0;

  GST_OBJECT_LOCK (client->element);
  gst_structure_get_uint64 (client->counters, counter, &n);
  gst_structure_set (client->counters, counter, G_TYPE_UINT64, n + 1, NULL);
  GST_OBJECT_UNLOCK (client->element);
}

void
gst_donar_call_client_count_buffer (GstDonarCallClient * client)
{
  GST_OBJECT_LOCK (client->element);
  client->buffers++;
  GST_OBJECT_UNLOCK (client->element);
}

static gboolean
copy_counter (GQuark field, const GValue * value, gpointer user_data)
{
  gst_structure_id_set_value (user_data, field, value);
  return TRUE;
}

/* One structure per link, in a GValueArray: PyGObject reads a
 * G_TYPE_VALUE_ARRAY as a list (a GstValueArray it cannot read at all), as
 * srtsink's "callers" in gst-plugins-bad. */
static void
take_links (GstStructure * s, DonarLinkEngine * engine, guint n_links)
{
  GValue links = G_VALUE_INIT;
  GValueArray *array;

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS;
  array = g_value_array_new (n_links);
  for (guint i = 0; engine && i < n_links; i++) {
    DonarLinkEngineLinkStats ls;
    GValue v = G_VALUE_INIT;

    if (!donar_link_engine_get_link_stats (engine, i, &ls))
      continue;
    g_value_init (&v, GST_TYPE_STRUCTURE);
    g_value_take_boxed (&v, gst_structure_new ("link",
            "index", G_TYPE_UINT, i,
            "state", G_TYPE_STRING, ls.open ? "up" : "down",
            "group", G_TYPE_STRING, donar_group_to_string (ls.session.group),
            "score", G_TYPE_INT, ls.session.score,
            "bytes-sent", G_TYPE_UINT64, ls.session.bytes_sent,
            "bytes-received", G_TYPE_UINT64, ls.session.bytes_received,
            "frames-delivered", G_TYPE_UINT64, ls.session.frames_delivered,
            "failures", G_TYPE_UINT64, ls.session.failures,
            "silent-frames", G_TYPE_UINT, ls.session.silent_frames,
            "dials", G_TYPE_UINT64, ls.dials,
            "last-error", G_TYPE_STRING, ls.last_error, NULL));
    g_value_array_append (array, &v);
    g_value_unset (&v);
  }
  g_value_init (&links, g_value_array_get_type ());
  g_value_take_boxed (&links, array);
  G_GNUC_END_IGNORE_DEPRECATIONS;
  gst_structure_take_value (s, "links", &links);
}

/* Every field from the first read on, 0 until it counts: an application
 * reads a field without asking first whether it is there. */
GstStructure *
gst_donar_call_client_get_stats (GstDonarCallClient * client)
{
  GstStructure *s = gst_structure_new_empty ("application/x-donar-stats");
  GstDonarCall *call;
  DonarLinkEngine *engine;
  DonarLinkEngineStats st = { 0 };
  gboolean ready = FALSE;
  guint n_links = 0;

  GST_OBJECT_LOCK (client->element);
  call = client->call ? call_ref (client->call) : NULL;
  gst_structure_foreach (client->counters, copy_counter, s);
  gst_structure_set (s, client->buffers_counter, G_TYPE_UINT64,
      client->buffers, NULL);
  GST_OBJECT_UNLOCK (client->element);

  engine = call ? call_get_engine (call) : NULL;
  if (engine) {
    g_mutex_lock (&call->lock);
    ready = call->ready;
    g_mutex_unlock (&call->lock);
    donar_link_engine_get_stats (engine, &st);
    n_links = call->n_links;
  }
  gst_structure_set (s, "ready", G_TYPE_BOOLEAN, ready,
      "links-up", G_TYPE_UINT, st.links_up,
      "frames-sent", G_TYPE_UINT64, st.session.frames_sent,
      "frames-unsent", G_TYPE_UINT64, st.session.frames_unsent,
      "frames-delivered", G_TYPE_UINT64, st.session.frames_delivered,
      "frames-piggyback-delivered", G_TYPE_UINT64,
      st.session.frames_piggyback_delivered,
      "duplicates", G_TYPE_UINT64, st.session.duplicates,
      "bytes-sent", G_TYPE_UINT64, st.session.bytes_sent,
      "windows", G_TYPE_UINT64, st.session.windows,
      "alarms", G_TYPE_UINT64, st.session.alarms,
      "no-link-in-time", G_TYPE_BOOLEAN, st.session.no_link_in_time,
      "in-time-stalls", G_TYPE_UINT64, st.session.stalls,
      "frames-withheld", G_TYPE_UINT64, st.session.frames_withheld,
      "keepalives", G_TYPE_UINT64, st.session.keepalives,
      "connections-opened", G_TYPE_UINT64, st.connections_opened,
      "connections-failed", G_TYPE_UINT64, st.connections_failed,
      "connections-rejected", G_TYPE_UINT64, st.connections_rejected,
      "records-dropped", G_TYPE_UINT64, st.records_dropped,
      "frames-dropped", G_TYPE_UINT64, st.frames_dropped,
      "stalls", G_TYPE_UINT64, st.stalls,
      "hello-timeouts", G_TYPE_UINT64, st.hello_timeouts,
      "silences", G_TYPE_UINT64, st.silences, NULL);
  take_links (s, engine, n_links);
  if (call)
    call_unref_from_app (call);
  return s;
}

/* Ends the call from this end, the BYE saying why; every element posts
 * donar-call-ended once.  Whether this end ended it. */
static gboolean
end_here (GstDonarCall * call, DonarLinkEngine * engine,
    DonarByeReason reason, const gchar * name, const gchar * message)
{
  gboolean now_ended;

  donar_link_engine_end (engine, reason, HANG_UP_FLUSH_US);
  g_mutex_lock (&call->lock);
  now_ended = !call->ended &&
      donar_link_engine_get_end (engine, NULL) == DONAR_LINK_END_HERE;
  call->ended |= now_ended;
  for (GList * l = call->clients; now_ended && l; l = l->next)
    post_ended (call, l->data, name, message);
  gst_donar_call_posts_unlock (&call->posts, &call->lock);
  return now_ended;
}

void
gst_donar_call_client_hang_up (GstDonarCallClient * client)
{
  DonarLinkEngine *engine = gst_donar_call_client_get_engine (client);

  if (engine)
    end_here (client->call, engine, DONAR_BYE_HUNG_UP, "hung-up",
        "this end hung up");
}

gboolean
gst_donar_call_client_is_answered (GstDonarCallClient * client)
{
  GstDonarCall *call = client->call;

  return call != NULL && g_atomic_int_get (&call->answered);
}

/* The element's call, ref'd, for an application's thread: the element
 * may stop meanwhile (the streaming threads need no ref). */
static GstDonarCall *
client_ref_call (GstDonarCallClient * client)
{
  GstDonarCall *call;

  GST_OBJECT_LOCK (client->element);
  call = client->call ? call_ref (client->call) : NULL;
  GST_OBJECT_UNLOCK (client->element);
  return call;
}

/* Callee: answers the call, or the next one to come in; FALSE for a
 * caller or a call that has ended. */
gboolean
gst_donar_call_client_accept (GstDonarCallClient * client)
{
  GstDonarCall *call = client_ref_call (client);
  gboolean taken;

  if (call == NULL || call->options.role != DONAR_ROLE_CALLEE) {
    GST_WARNING_OBJECT (client->element, "accept: not a callee in a call");
    if (call)
      call_unref_from_app (call);
    return FALSE;
  }
  g_mutex_lock (&call->lock);
  taken = !call->ended;
  if (taken)
    g_atomic_int_set (&call->answered, TRUE);
  g_mutex_unlock (&call->lock);
  GST_INFO_OBJECT (client->element, "accept: %s", taken ? "answered" :
      "the call has ended");
  call_unref_from_app (call);
  return taken;
}

/* Callee: ends a call that came in and is not answered, the caller told
 * why (BYE "rejected"); FALSE if there is none. */
gboolean
gst_donar_call_client_reject (GstDonarCallClient * client)
{
  GstDonarCall *call = client_ref_call (client);
  DonarLinkEngine *engine = call ? call_get_engine (call) : NULL;
  gboolean pending = FALSE, now_ended = FALSE;

  if (engine && call->options.role == DONAR_ROLE_CALLEE) {
    g_mutex_lock (&call->lock);
    pending = call->incoming && !call->ended &&
        !g_atomic_int_get (&call->answered);
    g_mutex_unlock (&call->lock);
  }
  if (!pending) {
    GST_WARNING_OBJECT (client->element, "reject: no call waits for an "
        "answer here (not a callee, none came in, or it is answered: end "
        "it with EOS)");
  } else {
    now_ended = end_here (call, engine, DONAR_BYE_REJECTED, "rejected",
        "this end rejected the call");
  }
  if (call)
    call_unref_from_app (call);
  return now_ended;
}

static gboolean
accept_signal (GstElement * element)
{
  return gst_donar_call_client_accept (gst_donar_call_client_get (element));
}

static gboolean
reject_signal (GstElement * element)
{
  return gst_donar_call_client_reject (gst_donar_call_client_get (element));
}

/* Action signals, as srtsink's are emitted by name: an application calls
 * element.emit ("accept") when it has the user's answer. */
void
gst_donar_call_install_signals (GType type)
{
  g_signal_new_class_handler ("accept", type,
      G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION, G_CALLBACK (accept_signal), NULL,
      NULL, NULL, G_TYPE_BOOLEAN, 0);
  g_signal_new_class_handler ("reject", type,
      G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION, G_CALLBACK (reject_signal), NULL,
      NULL, NULL, G_TYPE_BOOLEAN, 0);
}

gboolean
gst_donar_call_client_has_ended (GstDonarCallClient * client)
{
  DonarLinkEngine *engine = gst_donar_call_client_get_engine (client);

  return engine != NULL &&
      donar_link_engine_get_end (engine, NULL) != DONAR_LINK_END_NONE;
}
