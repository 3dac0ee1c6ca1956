/* The call properties, installed on donarsink and donarsrc alike, the
 * settings they are kept in, and the options a new call is made with. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstdonarcall-private.h"
#include "gstdonaruri.h"
#include "donar-call-tor-control.h"
#include "donar-secret.h"
#include <string.h>

GST_DEBUG_CATEGORY (gst_donar_call_debug);

/* The library's defaults (DONAR_DEFAULT_*), in the properties' units. */
#define DEFAULT_WINDOW (DONAR_DEFAULT_WINDOW_US / 1000)
#define DEFAULT_PEER_TIMEOUT \
    (DONAR_LINK_ENGINE_DEFAULT_PEER_TIMEOUT_US / G_USEC_PER_SEC)
#define DEFAULT_SETUP_TIMEOUT (DONAR_CALL_DEFAULT_SETUP_TIMEOUT_MS / 1000)
#define MAX_SETUP_TIMEOUT 3600

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

gboolean
gst_donar_call_fill_options (GstDonarCall * call,
    const GstDonarCallSettings * s, GError ** error)
{
  DonarCallOptions *o = &call->options;
  gboolean callee = s->callee || s->address[0] == '\0';

  donar_call_options_init (o, callee ? DONAR_ROLE_CALLEE : DONAR_ROLE_CALLER);
  o->on_tor_lost = gst_donar_call_on_tor_lost;
  o->on_warning = gst_donar_call_on_warning;
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
