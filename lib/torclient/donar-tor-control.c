/* The connection: connect, send, read replies with deadlines, hand events
 * over, and keep commands and replies in step. */
#include "donar-tor-control-private.h"
#include "donar-tor-unix.h"

#include <string.h>

GQuark
donar_tor_control_error_quark (void)
{
  return g_quark_from_static_string ("donar-tor-control-error-quark");
}

/* A poll takes its timeout in milliseconds as an int: wait in slices. */
#define MAX_WAIT_SLICE_US (60 * G_USEC_PER_SEC)
/* Enough of a refusal to say why, not a whole hostile reply. */
#define MAX_REFUSAL_TEXT 512

gint64
donar_tor_control_deadline (guint timeout_ms)
{
  return g_get_monotonic_time () + 1000 * (gint64) timeout_ms;
}

/* Waits until socket is ready for condition, the deadline or the
 * cancellable. */
static gboolean
wait_socket (GSocket * socket, GIOCondition condition, gint64 deadline,
    GCancellable * cancellable, GError ** error)
{
  for (;;) {
    gint64 remaining = deadline - g_get_monotonic_time ();
    GError *local = NULL;

    if (remaining <= 0) {
      g_set_error_literal (error, DONAR_TOR_CONTROL_ERROR,
          DONAR_TOR_CONTROL_ERROR_TIMEOUT,
          "no answer from tor before the deadline");
      return FALSE;
    }
    if (g_socket_condition_timed_wait (socket, condition,
            MIN (remaining, MAX_WAIT_SLICE_US), cancellable, &local))
      return TRUE;
    if (!g_error_matches (local, G_IO_ERROR, G_IO_ERROR_TIMED_OUT)) {
      g_propagate_error (error, local);
      return FALSE;
    }
    g_error_free (local);
  }
}

void
donar_tor_control_fail (DonarTorControl * self, GError ** error,
    DonarTorControlError code, const gchar * format, ...)
{
  va_list args;
  gchar *message;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  if (self->failure == NULL) {
    self->failure = g_error_new_literal (DONAR_TOR_CONTROL_ERROR, code,
        message);
    g_socket_close (self->socket, NULL);
  }
  g_set_error_literal (error, DONAR_TOR_CONTROL_ERROR, code, message);
  g_free (message);
}

gboolean
donar_tor_control_check_usable (DonarTorControl * self, GError ** error)
{
  if (self->in_event_handler) {
    g_critical ("a DonarTorControl was used from its own event handler");
    g_set_error_literal (error, DONAR_TOR_CONTROL_ERROR,
        DONAR_TOR_CONTROL_ERROR_PROTOCOL,
        "the connection cannot be used from its event handler");
    return FALSE;
  }
  if (self->failure != NULL) {
    if (error != NULL)
      *error = g_error_copy (self->failure);
    return FALSE;
  }
  return TRUE;
}

GSocket *
donar_tor_control_socket_connect (GSocketAddress * address, gint64 deadline,
    GCancellable * cancellable, GError ** error)
{
  g_autoptr (GSocket) socket = NULL;
  GError *local = NULL;

  socket = g_socket_new (g_socket_address_get_family (address),
      G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT, &local);
  if (socket != NULL) {
    g_socket_set_blocking (socket, FALSE);
    if (!g_socket_connect (socket, address, cancellable, &local)
        && g_error_matches (local, G_IO_ERROR, G_IO_ERROR_PENDING)) {
      g_clear_error (&local);
      if (wait_socket (socket, G_IO_OUT, deadline, cancellable, &local))
        g_socket_check_connect_result (socket, &local);
    }
  }
  if (local != NULL) {
    g_propagate_error (error, local);
    return NULL;
  }
  return g_steal_pointer (&socket);
}

/* Takes socket, connected. */
static DonarTorControl *
control_new (GSocket * socket)
{
  DonarTorControl *self = g_new0 (DonarTorControl, 1);

  self->socket = socket;
  self->reader = donar_torctl_reader_new ();
  self->user_events = g_ptr_array_new_with_free_func (g_free);
  self->uploads = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      donar_tor_onion_upload_free);
  return self;
}

DonarTorControl *
donar_tor_control_connect (const gchar * host, guint16 port, gint64 deadline,
    GCancellable * cancellable, GError ** error)
{
  g_autoptr (GInetAddress) address = NULL;
  g_autoptr (GSocketAddress) socket_address = NULL;
  g_autoptr (GSocket) socket = NULL;
  GError *local = NULL;

  if (host == NULL)
    host = "127.0.0.1";
  address = g_inet_address_new_from_string (host);
  if (address == NULL || port == 0) {
    g_set_error (error, DONAR_TOR_CONTROL_ERROR,
        DONAR_TOR_CONTROL_ERROR_CONNECT,
        "cannot connect to tor's control port %s:%u: an IP address and a "
        "port are needed (no name is resolved)", host, port);
    return NULL;
  }
  socket_address = g_inet_socket_address_new (address, port);
  socket = donar_tor_control_socket_connect (socket_address, deadline,
      cancellable, &local);
  if (local != NULL) {
    if (local->domain == G_IO_ERROR && local->code == G_IO_ERROR_CANCELLED)
      g_propagate_error (error, local);
    else {
      g_set_error (error, DONAR_TOR_CONTROL_ERROR,
          local->domain == DONAR_TOR_CONTROL_ERROR ?
          local->code : DONAR_TOR_CONTROL_ERROR_CONNECT,
          "cannot connect to tor's control port %s:%u: %s", host, port,
          local->message);
      g_error_free (local);
    }
    return NULL;
  }
  return control_new (g_steal_pointer (&socket));
}

DonarTorControl *
donar_tor_control_connect_unix (const gchar * path, gint64 deadline,
    GCancellable * cancellable, GError ** error)
{
  GSocket *socket = donar_tor_unix_connect (path, "tor's control socket",
      deadline, cancellable, error);

  return socket != NULL ? control_new (socket) : NULL;
}

void
donar_tor_control_free (DonarTorControl * self)
{
  if (self == NULL)
    return;
  g_socket_close (self->socket, NULL);
  g_object_unref (self->socket);
  donar_torctl_reader_free (self->reader);
  g_clear_error (&self->failure);
  g_free (self->tor_version);
  if (self->event_destroy != NULL)
    self->event_destroy (self->event_data);
  g_ptr_array_unref (self->user_events);
  g_hash_table_unref (self->uploads);
  g_free (self);
}

void
donar_tor_control_set_event_handler (DonarTorControl * self,
    DonarTorControlEventFunc func, gpointer user_data, GDestroyNotify destroy)
{
  if (self->event_destroy != NULL)
    self->event_destroy (self->event_data);
  self->event_func = func;
  self->event_data = user_data;
  self->event_destroy = destroy;
}

DonarTorctlAuthMethods
donar_tor_control_get_auth_method (DonarTorControl * self)
{
  return self->auth_method;
}

const gchar *
donar_tor_control_get_tor_version (DonarTorControl * self)
{
  return self->tor_version;
}

/* ---- Reading ---- */

/* The next reply, event or not, from what is buffered or from the
 * socket. */
static DonarTorctlReply *
read_reply (DonarTorControl * self, gint64 deadline,
    GCancellable * cancellable, GError ** error)
{
  for (;;) {
    GError *local = NULL;
    gssize received;

    if (self->buffer_start < self->buffer_end) {
      const guint8 *data = self->buffer + self->buffer_start;
      gsize length = self->buffer_end - self->buffer_start;
      DonarTorctlReply *reply;
      DonarTorctlError codec_error;

      codec_error = donar_torctl_reader_next (self->reader, &data, &length,
          &reply);
      self->buffer_start = self->buffer_end - length;
      if (codec_error != DONAR_TORCTL_OK) {
        donar_tor_control_fail (self, error, DONAR_TOR_CONTROL_ERROR_PROTOCOL,
            "tor's control port broke the protocol: %s",
            donar_torctl_error_message (codec_error));
        return NULL;
      }
      if (reply != NULL)
        return reply;
    }

    if (!wait_socket (self->socket, G_IO_IN, deadline, cancellable, error))
      return NULL;
    received = g_socket_receive (self->socket, (gchar *) self->buffer,
        sizeof self->buffer, cancellable, &local);
    if (received > 0) {
      self->buffer_start = 0;
      self->buffer_end = received;
    } else if (received == 0) {
      gboolean inside = donar_torctl_reader_finish (self->reader)
          != DONAR_TORCTL_OK;

      donar_tor_control_fail (self, error, DONAR_TOR_CONTROL_ERROR_CLOSED,
          "tor closed the control connection%s (did tor exit?)",
          inside ? " in the middle of a reply" : "");
      return NULL;
    } else if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK)) {
      g_error_free (local);
    } else if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_CANCELLED)) {
      g_propagate_error (error, local);
      return NULL;
    } else {
      donar_tor_control_fail (self, error, DONAR_TOR_CONTROL_ERROR_CLOSED,
          "the control connection to tor was lost: %s", local->message);
      g_error_free (local);
      return NULL;
    }
  }
}

static gboolean
handler_wants (DonarTorControl * self, const DonarTorctlReply * event)
{
  for (guint i = 0; i < self->user_events->len; i++)
    if (donar_torctl_reply_is_event (event,
            g_ptr_array_index (self->user_events, i)))
      return TRUE;
  return FALSE;
}

static void
dispatch_event (DonarTorControl * self, const DonarTorctlReply * event)
{
  donar_tor_control_note_event (self, event);
  if (self->event_func == NULL || !handler_wants (self, event))
    return;
  self->in_event_handler = TRUE;
  self->event_func (self, event, self->event_data);
  self->in_event_handler = FALSE;
}

/* Drops the reply of a command given up on earlier, if this is one. */
static gboolean
skip_stale_reply (DonarTorControl * self, DonarTorctlReply * reply)
{
  if (self->replies_to_skip == 0)
    return FALSE;
  self->replies_to_skip--;
  donar_torctl_reply_free (reply);
  return TRUE;
}

DonarTorctlReply *
donar_tor_control_next_reply (DonarTorControl * self, gint64 deadline,
    GCancellable * cancellable, GError ** error)
{
  for (;;) {
    DonarTorctlReply *reply = read_reply (self, deadline, cancellable, error);

    if (reply == NULL)
      return NULL;
    if (donar_torctl_reply_is_event (reply, NULL)) {
      dispatch_event (self, reply);
      donar_torctl_reply_free (reply);
      continue;
    }
    if (skip_stale_reply (self, reply))
      continue;
    return reply;
  }
}

DonarTorctlReply *
donar_tor_control_next_event (DonarTorControl * self, gint64 deadline,
    GCancellable * cancellable, GError ** error)
{
  for (;;) {
    DonarTorctlReply *reply = read_reply (self, deadline, cancellable, error);

    if (reply == NULL)
      return NULL;
    if (donar_torctl_reply_is_event (reply, NULL)) {
      dispatch_event (self, reply);
      return reply;
    }
    if (skip_stale_reply (self, reply))
      continue;
    donar_torctl_reply_free (reply);
    donar_tor_control_fail (self, error, DONAR_TOR_CONTROL_ERROR_PROTOCOL,
        "tor sent a reply that no command asked for");
    return NULL;
  }
}

gboolean
donar_tor_control_process_events (DonarTorControl * self, gint64 deadline,
    GCancellable * cancellable, GError ** error)
{
  if (!donar_tor_control_check_usable (self, error))
    return FALSE;
  for (;;) {
    GError *local = NULL;
    DonarTorctlReply *event = donar_tor_control_next_event (self, deadline,
        cancellable, &local);

    if (event != NULL) {
      donar_torctl_reply_free (event);
      continue;
    }
    if (g_error_matches (local, DONAR_TOR_CONTROL_ERROR,
            DONAR_TOR_CONTROL_ERROR_TIMEOUT)) {
      g_error_free (local);
      return TRUE;
    }
    g_propagate_error (error, local);
    return FALSE;
  }
}

/* ---- Commands ---- */

static gboolean
send_all (DonarTorControl * self, const gchar * data, gsize length,
    gsize * sent, gint64 deadline, GCancellable * cancellable, GError ** error)
{
  *sent = 0;
  while (*sent < length) {
    GError *local = NULL;
    gssize n = g_socket_send (self->socket, data + *sent, length - *sent,
        cancellable, &local);

    if (n >= 0) {
      *sent += n;
    } else if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK)) {
      g_error_free (local);
      if (!wait_socket (self->socket, G_IO_OUT, deadline, cancellable, error))
        return FALSE;
    } else if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_CANCELLED)) {
      g_propagate_error (error, local);
      return FALSE;
    } else {
      donar_tor_control_fail (self, error, DONAR_TOR_CONTROL_ERROR_CLOSED,
          "the control connection to tor was lost: %s", local->message);
      g_error_free (local);
      return FALSE;
    }
  }
  return TRUE;
}

/* The command's keyword, the only part of it errors may show. */
static gchar *
command_name (const GString * command)
{
  gsize length = strcspn (command->str, " \r");

  return g_strndup (command->str, length);
}

DonarTorctlReply *
donar_tor_control_request (DonarTorControl * self, const GString * command,
    gint64 deadline, GCancellable * cancellable, GError ** error)
{
  g_autofree gchar *name = NULL;
  GError *local = NULL;
  DonarTorctlReply *reply;
  gsize sent;

  g_return_val_if_fail (command != NULL && command->len >= 2
      && command->str[command->len - 1] == '\n', NULL);
  if (!donar_tor_control_check_usable (self, error))
    return NULL;
  name = command_name (command);
  if (!send_all (self, command->str, command->len, &sent, deadline,
          cancellable, &local)) {
    /* Half a command on the wire: whatever we send next would end it. */
    if (sent > 0 && self->failure == NULL)
      donar_tor_control_fail (self, NULL, DONAR_TOR_CONTROL_ERROR_PROTOCOL,
          "a command to tor was cut short, so the control connection was "
          "closed");
    g_propagate_prefixed_error (error, local, "%s: ", name);
    return NULL;
  }
  reply = donar_tor_control_next_reply (self, deadline, cancellable, &local);
  if (reply == NULL) {
    /* Given up on by its deadline or cancellable: tor still answers. */
    if (self->failure == NULL)
      self->replies_to_skip++;
    g_propagate_prefixed_error (error, local, "%s: ", name);
  }
  return reply;
}

static gchar *
refusal_text (const DonarTorctlReply * reply)
{
  GString *text = g_string_new (NULL);

  g_string_append_printf (text, "%03u", reply->code);
  for (guint i = 0; i < reply->n_lines && text->len < MAX_REFUSAL_TEXT; i++)
    g_string_append_printf (text, "%s%s", i == 0 ? " " : "; ",
        reply->lines[i].text);
  if (text->len > MAX_REFUSAL_TEXT) {
    g_string_truncate (text, MAX_REFUSAL_TEXT);
    g_string_append (text, "...");
  }
  return g_string_free (text, FALSE);
}

DonarTorctlReply *
donar_tor_control_request_ok (DonarTorControl * self,
    const GString * command, gint64 deadline, GCancellable * cancellable,
    GError ** error)
{
  DonarTorctlReply *reply = donar_tor_control_request (self, command,
      deadline, cancellable, error);

  /* 2yz is a positive completion (control-spec 4): ONION_CLIENT_AUTH_ADD
   * says 251 for a key replaced and 252 for a descriptor it could now
   * decrypt. */
  if (reply != NULL && reply->code / 100 != 2) {
    g_autofree gchar *name = command_name (command);
    g_autofree gchar *text = refusal_text (reply);

    g_set_error (error, DONAR_TOR_CONTROL_ERROR,
        DONAR_TOR_CONTROL_ERROR_REFUSED, "tor refused %s: %s", name, text);
    donar_torctl_reply_free (reply);
    return NULL;
  }
  return reply;
}

gboolean
donar_tor_control_run_command (DonarTorControl * self, DonarTorctlError built,
    const gchar * name, const GString * command, gint64 deadline,
    GCancellable * cancellable, GError ** error)
{
  DonarTorctlReply *reply;

  if (built != DONAR_TORCTL_OK) {
    donar_tor_control_set_codec_error (error, built, name);
    return FALSE;
  }
  reply = donar_tor_control_request_ok (self, command, deadline, cancellable,
      error);
  if (reply == NULL)
    return FALSE;
  donar_torctl_reply_free (reply);
  return TRUE;
}

void
donar_tor_control_set_codec_error (GError ** error,
    DonarTorctlError codec_error, const gchar * what)
{
  DonarTorControlError code;

  switch (codec_error) {
    case DONAR_TORCTL_ERROR_BAD_ARGUMENT:
      code = DONAR_TOR_CONTROL_ERROR_BAD_ARGUMENT;
      break;
    case DONAR_TORCTL_ERROR_REFUSED:
      code = DONAR_TOR_CONTROL_ERROR_REFUSED;
      break;
    case DONAR_TORCTL_ERROR_SERVER_HASH_MISMATCH:
      code = DONAR_TOR_CONTROL_ERROR_AUTH;
      break;
    default:
      code = DONAR_TOR_CONTROL_ERROR_PROTOCOL;
      break;
  }
  g_set_error (error, DONAR_TOR_CONTROL_ERROR, code, "%s: %s", what,
      donar_torctl_error_message (codec_error));
}

void
donar_tor_control_command_free_secret (GString * command)
{
  explicit_bzero (command->str, command->allocated_len);
  g_string_free (command, TRUE);
}
