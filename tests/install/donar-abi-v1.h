/* Version 1 of libdonar's versioned structs, frozen: what a program built
 * against libdonar-1.0.so.1's first headers allocates.  abi-v1.c passes
 * these, with version 1, to the library as it is now: when a struct grows
 * to version 2 its V1 here stays as it is, and the library must still
 * read and write no more than these.  Never edit a struct here; a new
 * version gets a fixture of its own.  (Comments left out: the headers
 * say what each field is.) */
#ifndef DONAR_ABI_V1_H
#define DONAR_ABI_V1_H

#include <donar.h>
#include <donar-base-check.h>
#include <donar-call.h>
#include <donar-call-address.h>
#include <donar-link-engine.h>
#include <donar-playout.h>
#include <donar-quality.h>

G_BEGIN_DECLS

typedef struct
{
  guint n_links;
  guint n_1st;
  guint n_2nd;
  gint64 window_us;
  DonarPolicy policy;
  guint redundancy;
  gint64 frame_period_us;
  gint64 max_piggyback_age_us;
  guint recent_frames;
  gsize max_record;
  DonarScoreMerge merge;
  guint alarm_frames;
  guint32 seed;
  gdouble budget;
  gint64 deadline_us;
  gboolean spread_copies;
} DonarConfigV1;

typedef struct
{
  void (*send) (gpointer user_data, guint link, const guint8 * record,
      gsize length);
  void (*deliver) (gpointer user_data, guint32 seq, const guint8 * frame,
      gsize length, guint link, gboolean piggybacked);
  void (*peer_ended) (gpointer user_data, guint link, DonarByeReason reason);
  void (*peer_session) (gpointer user_data, guint link, gboolean restarted);
  void (*peer_rendezvous) (gpointer user_data, guint link, guint64 relay);
} DonarCallbacksV1;

typedef struct
{
  gboolean up;
  gboolean authenticated;
  DonarGroup group;
  gint32 local_score;
  gint32 remote_score;
  gint32 score;
  gint64 last_used_us;
  guint64 messages_sent;
  guint64 messages_received;
  guint64 bytes_sent;
  guint64 bytes_received;
  guint64 frames_delivered;
  guint64 failures;
  guint64 rejected;
  guint silent_frames;
} DonarLinkStatsV1;

typedef struct
{
  guint64 frames_sent;
  guint64 frames_unsent;
  guint64 frames_delivered;
  guint64 frames_piggyback_delivered;
  guint64 duplicates;
  guint64 messages_sent;
  guint64 messages_received;
  guint64 messages_rejected;
  guint64 bytes_sent;
  guint64 windows;
  guint64 alarms;
  gboolean no_link_in_time;
  guint64 stalls;
  guint64 stalled_frames;
  guint64 frames_withheld;
  guint64 keepalives;
} DonarSessionStatsV1;

typedef struct
{
  DonarRole role;
  DonarConfigV1 config;
  guint8 secret[64];
  gsize secret_length;
  gchar *peer_host;
  guint16 peer_port;
  gchar *socks_host;
  guint16 socks_port;
  gchar *socks_path;
  guint16 listen_port;
  gsize link_queue_bytes;
  gint64 stall_timeout_us;
  gint64 connect_timeout_us;
  gint64 hello_timeout_us;
  gint64 silence_timeout_us;
  gint64 backoff_min_us;
  gint64 backoff_max_us;
  gint64 peer_timeout_us;
  gint64 no_link_warning_us;
  guint receive_queue_frames;
  guint max_pending_connections;
} DonarLinkEngineSettingsV1;

typedef struct
{
  DonarSessionStatsV1 session;
  guint links_up;
  guint64 connections_opened;
  guint64 connections_failed;
  guint64 connections_rejected;
  guint64 records_dropped;
  guint64 frames_dropped;
  guint64 stalls;
  guint64 hello_timeouts;
  guint64 silences;
  guint paths_known;
  guint64 paths_told;
} DonarLinkEngineStatsV1;

typedef struct
{
  DonarLinkStatsV1 session;
  gboolean open;
  guint64 dials;
  guint64 records_dropped;
  gsize queued_bytes;
  gint64 rtt_us;
  gchar last_error[96];
} DonarLinkEngineLinkStatsV1;

typedef struct
{
  DonarRole role;
  DonarCallTransport transport;
  const gchar *address;
  guint16 tor_control_port;
  const gchar *tor_control_path;
  const gchar *tor_cookie_file;
  const gchar *tor_password;
  guint16 tor_socks_port;
  const gchar *tor_socks_path;
  guint num_entry_guards;
  gboolean guards_explicit;
  DonarTorSecurity security;
  const gchar *const *extra_torrc_lines;
  const gchar *tor_binary;
  guint16 virtual_port;
  gboolean client_auth;
  const gchar *key_file;
  const gchar *client_auth_dir;
  guint setup_timeout_ms;
  DonarLinkEngineSettingsV1 engine;
  DonarCallTorLostFunc on_tor_lost;
  DonarCallWarningFunc on_warning;
} DonarCallOptionsV1;

typedef struct
{
  gdouble share;
  gint64 window_us;
  gint64 margin_us;
  gint64 shrink_us_per_s;
  gint64 min_us;
  gint64 max_us;
  gint64 deadline_us;
  gint64 base_window_us;
  guint max_samples;
} DonarPlayoutConfigV1;

typedef struct
{
  guint64 frames;
  guint64 late;
  gint64 target_us;
  gint64 offset_us;
  gint64 base_us;
  gint64 quantile_us;
  guint window_frames;
  gboolean limited;
} DonarPlayoutStatsV1;

typedef struct
{
  DonarBaseCheckVerdict verdict;
  guint frames;
  guint past_deadline;
} DonarBaseCheckV1;

typedef struct
{
  gint64 window_us;
  gint64 interval_us;
  gdouble ie;
  gdouble bpl;
  gdouble burst_r;
} DonarQualityConfigV1;

typedef struct
{
  gdouble r;
  gdouble mos;
  DonarQualityRating rating;
  gdouble mouth_to_ear_ms;
  gdouble loss_percent;
  guint played, lost, late;
  gint64 window_us;
  gint64 time_us;
} DonarQualityReportV1;

typedef struct
{
  gchar *host;
  guint16 port;
  guint8 secret[DONAR_CALL_SECRET_LENGTH];
  gchar *client_auth_key;
} DonarCallAddressV1;

typedef struct
{
  gboolean callee;
  gchar *address;
  gchar **names;
  gchar **values;
} DonarCallUriV1;

/* While a struct's version is 1, its header's layout is this one; from
 * version 2 on, the header's may only have grown. */
#define DONAR_ABI_V1_CHECK(Type, VERSION) \
  G_STATIC_ASSERT ((VERSION) == 1 ? sizeof (Type##V1) == sizeof (Type) : \
      sizeof (Type##V1) <= sizeof (Type))

DONAR_ABI_V1_CHECK (DonarConfig, DONAR_CONFIG_VERSION);
DONAR_ABI_V1_CHECK (DonarCallbacks, DONAR_CALLBACKS_VERSION);
DONAR_ABI_V1_CHECK (DonarLinkStats, DONAR_LINK_STATS_VERSION);
DONAR_ABI_V1_CHECK (DonarSessionStats, DONAR_SESSION_STATS_VERSION);
DONAR_ABI_V1_CHECK (DonarLinkEngineSettings,
    DONAR_LINK_ENGINE_SETTINGS_VERSION);
DONAR_ABI_V1_CHECK (DonarLinkEngineStats, DONAR_LINK_ENGINE_STATS_VERSION);
DONAR_ABI_V1_CHECK (DonarLinkEngineLinkStats,
    DONAR_LINK_ENGINE_LINK_STATS_VERSION);
DONAR_ABI_V1_CHECK (DonarCallOptions, DONAR_CALL_OPTIONS_VERSION);
DONAR_ABI_V1_CHECK (DonarPlayoutConfig, DONAR_PLAYOUT_CONFIG_VERSION);
DONAR_ABI_V1_CHECK (DonarPlayoutStats, DONAR_PLAYOUT_STATS_VERSION);
DONAR_ABI_V1_CHECK (DonarBaseCheck, DONAR_BASE_CHECK_VERSION);
DONAR_ABI_V1_CHECK (DonarQualityConfig, DONAR_QUALITY_CONFIG_VERSION);
DONAR_ABI_V1_CHECK (DonarQualityReport, DONAR_QUALITY_REPORT_VERSION);
DONAR_ABI_V1_CHECK (DonarCallAddress, DONAR_CALL_ADDRESS_VERSION);
DONAR_ABI_V1_CHECK (DonarCallUri, DONAR_CALL_URI_VERSION);

G_END_DECLS

#endif /* DONAR_ABI_V1_H */
