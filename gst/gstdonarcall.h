/* What donarsink and donarsrc share: the call properties, and one DonarCall
 * per call name in the process (docs/elements.md, "Full duplex"). */
#ifndef __GST_DONAR_CALL_H__
#define __GST_DONAR_CALL_H__

#include <gst/gst.h>

#include "donar-call.h"

G_BEGIN_DECLS
#define GST_TYPE_DONAR_POLICY (gst_donar_policy_get_type ())
    GType gst_donar_policy_get_type (void);
#define GST_TYPE_DONAR_SECURITY (gst_donar_security_get_type ())
GType gst_donar_security_get_type (void);

/* The first byte of an in-band caps frame; an RTP packet starts with
 * version 2, 0x80 to 0xBF, so never with it. */
#define GST_DONAR_CAPS_FRAME_TAG 0x00
/* The sink sends its caps again this often. */
#define GST_DONAR_CAPS_INTERVAL_US (2 * G_USEC_PER_SEC)

typedef struct
{
  gchar *address;
  gboolean callee;
  gchar *call;
  gchar *tor_control;
  guint tor_socks;
  guint links;
  guint n1st;
  guint n2nd;
  guint window;                 /* ms */
  DonarPolicy policy;
  gdouble budget;               /* adaptive: messages a frame */
  gboolean spread_copies;       /* adaptive */
  guint redundancy;
  DonarTorSecurity security;
  gboolean client_auth;
  guint stats_interval;         /* ms */
  gchar *address_file;          /* callee; "": none */
  guint peer_timeout;           /* s */
  gchar *key_file;              /* callee, a lasting address; "": none */
  gchar *client_auth_dir;       /* callee, its contacts; "": none */
  gchar *tor_socks_path;        /* caller; "": none */
  guint guards;
  /* guards was set, if only to its default: a running tor's guards are
   * changed only then (DonarCallOptions.guards_explicit). */
  gboolean guards_set;
  guint setup_timeout;          /* s, each step of the setup */
  gchar *tor_password;          /* a secret; "": none */
  gchar *tor_cookie_file;       /* "": the one tor names */
  gboolean auto_answer;         /* callee: take an incoming call at once */
} GstDonarCallSettings;

typedef struct _GstDonarCall GstDonarCall;
typedef struct _GstDonarCallClient GstDonarCallClient;

/* Called on the engine's thread (events; a caller's ready, which waits
 * for its first link) or the setup thread (ready): must not block. */
typedef void (*GstDonarCallClientEventFunc) (GstDonarCallClient * client,
    const DonarLinkEvent * event);
typedef void (*GstDonarCallClientReadyFunc) (GstDonarCallClient * client);

/* Embedded in each element; the settings under the element's object
 * lock, the rest set at start and cleared at stop. */
struct _GstDonarCallClient
{
  GstElement *element;
  GstDonarCallSettings settings;
  GstDonarCall *call;
  GThread *stats_thread;
  GMutex stats_lock;
  GCond stats_cond;
  gboolean stats_stop;
  guint stats_interval_ms;
  /* The address-file setting at start: the call's file, whatever happens
   * to the property after. */
  gchar *address_file;
  GstDonarCallClientEventFunc on_event;
  GstDonarCallClientReadyFunc on_ready;
  /* Element counters for the stats, under the object lock. */
  GstStructure *counters;
  /* The counter of every buffer (buffers-sent, buffers-received), kept
   * apart: updating a GstStructure for each buffer costs a lookup and a
   * GValue on the streaming thread. */
  const gchar *buffers_counter;
  guint64 buffers;
  /* The parameters of the last URI taken (gstdonaruri.c), in its order,
   * for the URI given back; under the object lock. */
  gchar **uri_params;
  /* Why the uri property last set was refused, or NULL: start () fails
   * with it (a property cannot fail when it is set). */
  gchar *uri_error;
};

/* The property ids from first on. */
enum
{
  GST_DONAR_CALL_PROP_ADDRESS,
  GST_DONAR_CALL_PROP_CALLEE,
  GST_DONAR_CALL_PROP_CALL,
  GST_DONAR_CALL_PROP_TOR_CONTROL,
  GST_DONAR_CALL_PROP_TOR_SOCKS,
  GST_DONAR_CALL_PROP_LINKS,
  GST_DONAR_CALL_PROP_N1ST,
  GST_DONAR_CALL_PROP_N2ND,
  GST_DONAR_CALL_PROP_WINDOW,
  GST_DONAR_CALL_PROP_POLICY,
  GST_DONAR_CALL_PROP_BUDGET,
  GST_DONAR_CALL_PROP_REDUNDANCY,
  GST_DONAR_CALL_PROP_SPREAD_COPIES,
  GST_DONAR_CALL_PROP_SECURITY,
  GST_DONAR_CALL_PROP_CLIENT_AUTH,
  GST_DONAR_CALL_PROP_STATS,
  GST_DONAR_CALL_PROP_STATS_INTERVAL,
  GST_DONAR_CALL_PROP_ADDRESS_FILE,
  GST_DONAR_CALL_PROP_PEER_TIMEOUT,
  GST_DONAR_CALL_PROP_KEY_FILE,
  GST_DONAR_CALL_PROP_CLIENT_AUTH_DIR,
  GST_DONAR_CALL_PROP_TOR_SOCKS_PATH,
  GST_DONAR_CALL_PROP_GUARDS,
  GST_DONAR_CALL_PROP_SETUP_TIMEOUT,
  GST_DONAR_CALL_PROP_TOR_PASSWORD,
  GST_DONAR_CALL_PROP_TOR_COOKIE_FILE,
  GST_DONAR_CALL_PROP_AUTO_ANSWER,
  GST_DONAR_CALL_PROP_URI,
  GST_DONAR_CALL_N_PROPS,
};

void gst_donar_call_install_properties (GObjectClass * klass, guint first);
void gst_donar_call_client_init (GstDonarCallClient * client,
    GstElement * element);
void gst_donar_call_client_clear (GstDonarCallClient * client);
/* FALSE for a prop_id that is not a call property.  A call property set
 * during a call is refused with a warning: it is read at start only. */
gboolean gst_donar_call_client_set_property (GstDonarCallClient * client,
    guint prop_id, const GValue * value, const GParamSpec * pspec);
gboolean gst_donar_call_client_get_property (GstDonarCallClient * client,
    guint prop_id, GValue * value);
/* The same on the settings alone, under the element's object lock, not
 * refused during a call (the URI handler checks that first); FALSE for a
 * prop_id that is not a setting (stats, uri). */
gboolean gst_donar_call_settings_set (GstDonarCallSettings * s,
    guint prop_id, const GValue * value);
gboolean gst_donar_call_settings_get (const GstDonarCallSettings * s,
    guint prop_id, GValue * value);
/* The element's client (gst_donar_call_client_init ()). */
GstDonarCallClient *gst_donar_call_client_get (GstElement * element);

/* Attaches to the call of the same name, or starts a call. */
gboolean gst_donar_call_client_start (GstDonarCallClient * client);
/* Detaches; the last one out stops the call (and joins its threads). */
void gst_donar_call_client_stop (GstDonarCallClient * client);
/* For PAUSED to PLAYING: FALSE, with the element error posted again, once
 * the call's setup has failed; the state change itself goes on. */
gboolean gst_donar_call_client_play (GstDonarCallClient * client);
/* The engine once the call is set up, or NULL; valid until stop. */
DonarLinkEngine *gst_donar_call_client_get_engine (GstDonarCallClient * client);
/* Whether donar-ready was posted: a callee set up, a caller with a link
 * up. */
gboolean gst_donar_call_client_is_ready (GstDonarCallClient * client);
/* The links up, as the engine's last event told. */
guint gst_donar_call_client_get_links_up (GstDonarCallClient * client);
/* Hangs up: the BYE goes out on every open link (waits up to a second for
 * it to leave), and every element of the call posts donar-call-ended.
 * Nothing when the call has ended or is not set up. */
void gst_donar_call_client_hang_up (GstDonarCallClient * client);
/* Whether the call has ended, either side or the peer lost: no frame goes
 * either way. */
gboolean gst_donar_call_client_has_ended (GstDonarCallClient * client);
/* Callee: whether the call is answered (auto-answer, or accept), and
 * frames go either way; a caller's always is. */
gboolean gst_donar_call_client_is_answered (GstDonarCallClient * client);
/* The action signals "accept" and "reject" of donarsink and donarsrc. */
gboolean gst_donar_call_client_accept (GstDonarCallClient * client);
gboolean gst_donar_call_client_reject (GstDonarCallClient * client);
/* Installs them on an element class whose instances have a client. */
void gst_donar_call_install_signals (GType type);
/* Adds one to an element counter (a guint64 field of the stats). */
void gst_donar_call_client_count (GstDonarCallClient * client,
    const gchar * counter);
/* Adds one to the counter named buffers_counter. */
void gst_donar_call_client_count_buffer (GstDonarCallClient * client);
GstStructure *gst_donar_call_client_get_stats (GstDonarCallClient * client);

G_END_DECLS
#endif /* __GST_DONAR_CALL_H__ */
