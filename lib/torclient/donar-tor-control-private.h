/* What the files of DonarTorControl share: the connection's state and the
 * request helpers the command files stand on. */
#ifndef DONAR_TOR_CONTROL_PRIVATE_H
#define DONAR_TOR_CONTROL_PRIVATE_H

#include "donar-tor-control.h"

G_BEGIN_DECLS

/* One receive; the reader keeps a partial line itself. */
#define DONAR_TOR_CONTROL_READ_SIZE 4096

/* An onion whose descriptor upload this connection watches. */
typedef struct
{
  gboolean uploaded;
  gchar *last_failure;          /* the REASON of the last FAILED, or NULL */
} DonarTorOnionUpload;

struct _DonarTorControl
{
  GSocket *socket;
  DonarTorctlReader *reader;
  guint8 buffer[DONAR_TOR_CONTROL_READ_SIZE];
  gsize buffer_start;
  gsize buffer_end;
  /* Set once the connection can no longer be used (closed by tor, broken
   * grammar, a command cut in the middle): every later call returns it. */
  GError *failure;
  /* Replies still due to commands given up on by a deadline or a
   * cancellable: dropped when they come. */
  guint replies_to_skip;

  DonarTorctlAuthMethods auth_method;
  gchar *tor_version;

  DonarTorControlEventFunc event_func;
  gpointer event_data;
  GDestroyNotify event_destroy;
  gboolean in_event_handler;
  /* The events the caller asked for (strings), and whether HS_DESC is on
   * for the connection's own watch. */
  GPtrArray *user_events;
  gboolean watching_uploads;
  /* service ID -> DonarTorOnionUpload */
  GHashTable *uploads;
};

/* A non-blocking stream socket of address's family, connected to it
 * within the deadline: else NULL with GIO's error, or TIMEOUT. */
GSocket *donar_tor_control_socket_connect (GSocketAddress * address,
    gint64 deadline, GCancellable * cancellable, GError ** error);

/* Fails with the sticky failure, if any, or on a misuse from inside the
 * event handler. */
gboolean donar_tor_control_check_usable (DonarTorControl * control,
    GError ** error);

/* The connection cannot be used any more: closes it, keeps the error for
 * every later call, and sets *error (error may be NULL). */
void donar_tor_control_fail (DonarTorControl * control, GError ** error,
    DonarTorControlError code, const gchar * format, ...) G_GNUC_PRINTF (4,
    5);

/* The next reply that is not an event (events go to the handler). */
DonarTorctlReply *donar_tor_control_next_reply (DonarTorControl * control,
    gint64 deadline, GCancellable * cancellable, GError ** error);

/* The next event, also handed to the handler; the caller frees it. */
DonarTorctlReply *donar_tor_control_next_event (DonarTorControl * control,
    gint64 deadline, GCancellable * cancellable, GError ** error);

/* donar_tor_control_request, then REFUSED unless the status is 2yz.  The
 * command is named in errors by its first word only: no secret argument
 * reaches a message. */
DonarTorctlReply *donar_tor_control_request_ok (DonarTorControl * control,
    const GString * command, gint64 deadline, GCancellable * cancellable,
    GError ** error);

/* For commands whose reply carries nothing but its status: fails with
 * the codec's error if the command could not be built (@built), else as
 * donar_tor_control_request_ok. */
gboolean donar_tor_control_run_command (DonarTorControl * control,
    DonarTorctlError built, const gchar * name, const GString * command,
    gint64 deadline, GCancellable * cancellable, GError ** error);

/* Sets *error for a lib/tor codec error on a command or reply. */
void donar_tor_control_set_codec_error (GError ** error,
    DonarTorctlError codec_error, const gchar * what);

/* Wipes a command that carried a secret, then frees it. */
void donar_tor_control_command_free_secret (GString * command);

/* Subscribes to the user's events plus, when watching, HS_DESC. */
gboolean donar_tor_control_apply_events (DonarTorControl * control,
    gboolean watch_uploads, gint64 deadline, GCancellable * cancellable,
    GError ** error);

/* Turns HS_DESC on for the connection's own watch (before a service is
 * made, so that its upload cannot slip by)... */
gboolean donar_tor_control_watch_uploads (DonarTorControl * control,
    gint64 deadline, GCancellable * cancellable, GError ** error);

/* ...and notes the uploads of that service from the events read next. */
void donar_tor_control_watch_upload (DonarTorControl * control,
    const gchar * service_id);

/* The connection's own look at each event, before the handler's. */
void donar_tor_control_note_event (DonarTorControl * control,
    const DonarTorctlReply * event);

void donar_tor_onion_upload_free (gpointer upload);

G_END_DECLS

#endif /* DONAR_TOR_CONTROL_PRIVATE_H */
