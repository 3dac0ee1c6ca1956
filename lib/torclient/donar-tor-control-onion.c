/* Ephemeral onion services: ADD_ONION, DEL_ONION, and the wait for the
 * descriptor upload, without which callers get SOCKS error 0xF0. */
#include "donar-tor-control-private.h"

#include <string.h>

void
donar_tor_onion_upload_free (gpointer data)
{
  DonarTorOnionUpload *upload = data;

  g_free (upload->last_failure);
  g_free (upload);
}

static DonarTorOnionUpload *
watch_upload (DonarTorControl * self, const gchar * service_id)
{
  DonarTorOnionUpload *upload = g_hash_table_lookup (self->uploads,
      service_id);

  if (upload == NULL) {
    upload = g_new0 (DonarTorOnionUpload, 1);
    g_hash_table_insert (self->uploads, g_strdup (service_id), upload);
  }
  return upload;
}

void
donar_tor_control_watch_upload (DonarTorControl * self,
    const gchar * service_id)
{
  watch_upload (self, service_id);
}

gboolean
donar_tor_control_watch_uploads (DonarTorControl * self, gint64 deadline,
    GCancellable * cancellable, GError ** error)
{
  return donar_tor_control_check_usable (self, error)
      && (self->watching_uploads
      || donar_tor_control_apply_events (self, TRUE, deadline, cancellable,
          error));
}

static gboolean
some_upload_pending (DonarTorControl * self)
{
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, self->uploads);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    if (!((DonarTorOnionUpload *) value)->uploaded)
      return TRUE;
  return FALSE;
}

/* HS_DESC stays on only while an upload is awaited; failing to turn it
 * off costs a few events, so the error is not the caller's. */
static void
stop_watching_if_idle (DonarTorControl * self, gint64 deadline,
    GCancellable * cancellable)
{
  if (self->watching_uploads && !some_upload_pending (self))
    donar_tor_control_apply_events (self, FALSE, deadline, cancellable, NULL);
}

/* "650 HS_DESC <action> <address> <auth type> <hsdir> ...": the
 * connection's own note of uploads, whatever the handler wants. */
void
donar_tor_control_note_event (DonarTorControl * self,
    const DonarTorctlReply * event)
{
  DonarTorctlArguments *arguments;
  DonarTorOnionUpload *upload;
  const gchar *action;

  if (!donar_torctl_reply_is_event (event, "HS_DESC")
      || donar_torctl_arguments_parse (event->lines[0].text, 5, &arguments)
      != DONAR_TORCTL_OK)
    return;
  action = donar_torctl_arguments_word (arguments, 1);
  upload = g_hash_table_lookup (self->uploads,
      donar_torctl_arguments_word (arguments, 2) != NULL ?
      donar_torctl_arguments_word (arguments, 2) : "");
  if (upload != NULL && g_strcmp0 (action, "UPLOADED") == 0) {
    upload->uploaded = TRUE;
  } else if (upload != NULL && g_strcmp0 (action, "FAILED") == 0) {
    const gchar *reason = donar_torctl_arguments_lookup (arguments, "REASON");

    g_free (upload->last_failure);
    upload->last_failure = g_strdup (reason != NULL ? reason : "no reason");
  }
  donar_torctl_arguments_free (arguments);
}

/* The reply's lines may hold the new private key. */
static void
reply_free_secret (DonarTorctlReply * reply)
{
  for (guint i = 0; i < reply->n_lines; i++)
    explicit_bzero (reply->lines[i].text, strlen (reply->lines[i].text));
  donar_torctl_reply_free (reply);
}

gboolean
donar_tor_control_add_onion (DonarTorControl * self,
    const DonarTorOnionOptions * options, DonarTorctlOnion * onion,
    gint64 deadline, GCancellable * cancellable, GError ** error)
{
  const DonarTorctlOnionPort port = {
    options->virtual_port, options->target_port
  };
  DonarTorctlOnionRequest request = {
    .ports = &port,
    .n_ports = 1,
    .client_auth_v3 = options->client_auth_v3,
    .private_key = options->private_key,
  };
  GString *command = g_string_new (NULL);
  DonarTorctlError codec_error;
  DonarTorctlReply *reply;

  memset (onion, 0, sizeof *onion);
  if (!options->keep_private_key)
    request.flags |= DONAR_TORCTL_ONION_DISCARD_PK;
  if (options->detach)
    request.flags |= DONAR_TORCTL_ONION_DETACH;
  if (options->non_anonymous)
    request.flags |= DONAR_TORCTL_ONION_NON_ANONYMOUS;
  /* tor 0.4.9 refuses ClientAuthV3 keys without the flag ("512 No auth
   * type specified"). */
  if (options->client_auth_v3 != NULL && options->client_auth_v3[0] != NULL)
    request.flags |= DONAR_TORCTL_ONION_V3_AUTH;
  codec_error = donar_torctl_command_add_onion (command, &request);
  if (codec_error != DONAR_TORCTL_OK) {
    donar_tor_control_command_free_secret (command);
    donar_tor_control_set_codec_error (error, codec_error, "ADD_ONION");
    return FALSE;
  }
  /* HS_DESC on before the service exists, so its upload cannot slip by. */
  if (!donar_tor_control_watch_uploads (self, deadline, cancellable, error)) {
    donar_tor_control_command_free_secret (command);
    return FALSE;
  }
  reply = donar_tor_control_request_ok (self, command, deadline, cancellable,
      error);
  /* A given key is in the command, a new one in the reply. */
  donar_tor_control_command_free_secret (command);
  if (reply == NULL) {
    stop_watching_if_idle (self, deadline, cancellable);
    return FALSE;
  }
  codec_error = donar_torctl_parse_add_onion (reply, onion);
  reply_free_secret (reply);
  if (codec_error != DONAR_TORCTL_OK) {
    donar_tor_control_set_codec_error (error, codec_error, "ADD_ONION");
    return FALSE;
  }
  watch_upload (self, onion->service_id);
  return TRUE;
}

gboolean
donar_tor_control_del_onion (DonarTorControl * self,
    const gchar * service_id, gint64 deadline, GCancellable * cancellable,
    GError ** error)
{
  g_autoptr (GString) command = g_string_new (NULL);

  if (!donar_tor_control_run_command (self,
          donar_torctl_command_del_onion (command, service_id), "DEL_ONION",
          command, deadline, cancellable, error))
    return FALSE;
  g_hash_table_remove (self->uploads, service_id);
  stop_watching_if_idle (self, deadline, cancellable);
  return TRUE;
}

gboolean
donar_tor_control_onion_client_auth_add (DonarTorControl * self,
    const gchar * service_id, const guint8 * x25519_secret_key,
    gint64 deadline, GCancellable * cancellable, GError ** error)
{
  GString *command = g_string_new (NULL);
  gboolean ok;

  ok = donar_tor_control_run_command (self,
      donar_torctl_command_onion_client_auth_add (command, service_id,
          x25519_secret_key), "ONION_CLIENT_AUTH_ADD", command, deadline,
      cancellable, error);
  /* The command holds the secret key in base64. */
  donar_tor_control_command_free_secret (command);
  return ok;
}

gboolean
donar_tor_control_onion_client_auth_remove (DonarTorControl * self,
    const gchar * service_id, gint64 deadline, GCancellable * cancellable,
    GError ** error)
{
  g_autoptr (GString) command = g_string_new (NULL);

  return donar_tor_control_run_command (self,
      donar_torctl_command_onion_client_auth_remove (command, service_id),
      "ONION_CLIENT_AUTH_REMOVE", command, deadline, cancellable, error);
}

static gboolean
is_service_id (const gchar * text)
{
  if (strlen (text) != DONAR_TORCTL_SERVICE_ID_LENGTH)
    return FALSE;
  for (const gchar * p = text; *p != '\0'; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= '2' && *p <= '7')))
      return FALSE;
  return TRUE;
}

gboolean
donar_tor_control_wait_for_descriptor_uploaded (DonarTorControl * self,
    const gchar * service_id, gint64 deadline, GCancellable * cancellable,
    GError ** error)
{
  DonarTorOnionUpload *upload;
  GError *local = NULL;

  if (!is_service_id (service_id)) {
    g_set_error (error, DONAR_TOR_CONTROL_ERROR,
        DONAR_TOR_CONTROL_ERROR_BAD_ARGUMENT,
        "not a v3 service ID (56 base32 characters, no .onion): %s",
        service_id);
    return FALSE;
  }
  if (!donar_tor_control_check_usable (self, error))
    return FALSE;
  /* Also for a service that another connection added: then an upload
   * before this call is not seen, and only the next one counts. */
  upload = watch_upload (self, service_id);
  if (!upload->uploaded && !self->watching_uploads
      && !donar_tor_control_apply_events (self, TRUE, deadline, cancellable,
          error))
    return FALSE;
  while (!upload->uploaded) {
    DonarTorctlReply *event = donar_tor_control_next_event (self, deadline,
        cancellable, &local);

    if (event == NULL)
      break;
    donar_torctl_reply_free (event);
  }
  if (local == NULL) {
    stop_watching_if_idle (self, deadline, cancellable);
    return TRUE;
  }
  if (g_error_matches (local, DONAR_TOR_CONTROL_ERROR,
          DONAR_TOR_CONTROL_ERROR_TIMEOUT)) {
    g_set_error (error, DONAR_TOR_CONTROL_ERROR,
        DONAR_TOR_CONTROL_ERROR_TIMEOUT,
        "the descriptor of %s.onion was not uploaded before the deadline "
        "(last failed upload: %s)", service_id,
        upload->last_failure != NULL ? upload->last_failure : "none");
    g_error_free (local);
  } else {
    g_propagate_error (error, local);
  }
  return FALSE;
}
