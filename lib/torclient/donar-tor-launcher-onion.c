/* Single onion services of a 1way launcher, configured with SETCONF: tor
 * 0.4.9 gives one-hop service circuits only to the services of its
 * configuration (hs_service_add_ephemeral never marks an ADD_ONION service
 * single onion). */
#include "donar-tor-launcher-private.h"
#include "donar-tor-control-private.h"

#include <errno.h>
#include <string.h>

#define HOSTNAME_POLL_US (20 * 1000)

void
donar_tor_single_onion_free (gpointer data)
{
  DonarTorSingleOnion *onion = data;

  g_free (onion->service_id);
  g_free (onion->directory);
  g_free (onion);
}

/* SETCONF replaces every HiddenService* line at once: send them all. */
static gboolean
apply_single_onions (DonarTorLauncher * self, DonarTorControl * control,
    gint64 deadline, GCancellable * cancellable, GError ** error)
{
  g_autoptr (GArray) entries = g_array_new (FALSE, FALSE,
      sizeof (DonarTorctlConfEntry));
  g_autoptr (GPtrArray) ports = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GString) command = g_string_new (NULL);

  for (guint i = 0; i < self->single_onions->len; i++) {
    const DonarTorSingleOnion *onion =
        g_ptr_array_index (self->single_onions, i);
    gchar *port = g_strdup_printf ("%u 127.0.0.1:%u", onion->virtual_port,
        onion->target_port);
    DonarTorctlConfEntry directory = { "HiddenServiceDir", onion->directory };
    DonarTorctlConfEntry mapping = { "HiddenServicePort", port };

    g_ptr_array_add (ports, port);
    g_array_append_val (entries, directory);
    g_array_append_val (entries, mapping);
  }
  if (entries->len == 0) {
    DonarTorctlConfEntry none = { "HiddenServiceDir", NULL };

    g_array_append_val (entries, none);
  }
  return donar_tor_control_run_command (control,
      donar_torctl_command_setconf (command,
          (const DonarTorctlConfEntry *) entries->data, entries->len),
      "SETCONF", command, deadline, cancellable, error);
}

/* tor writes <dir>/hostname when it takes the configuration. */
static gchar *
read_service_id (const gchar * directory, gint64 deadline,
    GCancellable * cancellable, GError ** error)
{
  g_autofree gchar *path = g_build_filename (directory, "hostname", NULL);

  for (;;) {
    g_autofree gchar *contents = NULL;

    if (g_file_get_contents (path, &contents, NULL, NULL)) {
      g_strchomp (contents);
      if (strlen (contents) == DONAR_TORCTL_SERVICE_ID_LENGTH + 6
          && g_str_has_suffix (contents, ".onion"))
        return g_strndup (contents, DONAR_TORCTL_SERVICE_ID_LENGTH);
    }
    if (g_cancellable_set_error_if_cancelled (cancellable, error))
      return NULL;
    if (g_get_monotonic_time () >= deadline) {
      g_set_error (error, DONAR_TOR_LAUNCHER_ERROR,
          DONAR_TOR_LAUNCHER_ERROR_TIMEOUT,
          "tor wrote no onion address in %s in time", path);
      return NULL;
    }
    g_usleep (HOSTNAME_POLL_US);
  }
}

/* The configuration's equivalent of ClientAuthV3: one file per client in
 * <dir>/authorized_clients, read when tor loads the service.  tor wants
 * the service directory private. */
static gboolean
write_authorized_client (const gchar * directory, const gchar * public_key,
    GError ** error)
{
  g_autofree gchar *clients = g_build_filename (directory,
      "authorized_clients", NULL);
  g_autofree gchar *path = g_build_filename (clients, "caller.auth", NULL);
  g_autofree gchar *line = g_strdup_printf ("descriptor:x25519:%s\n",
      public_key);
  gsize i;

  for (i = 0; public_key[i] != '\0'; i++)
    if (!g_ascii_isalnum (public_key[i]))
      break;
  if (i != DONAR_TORCTL_CLIENT_AUTH_KEY_LENGTH || public_key[i] != '\0') {
    g_set_error (error, DONAR_TOR_LAUNCHER_ERROR,
        DONAR_TOR_LAUNCHER_ERROR_BAD_OPTION,
        "a client authorization key is %d base32 characters",
        DONAR_TORCTL_CLIENT_AUTH_KEY_LENGTH);
    return FALSE;
  }
  if (g_mkdir_with_parents (clients, 0700) != 0) {
    g_set_error (error, DONAR_TOR_LAUNCHER_ERROR,
        DONAR_TOR_LAUNCHER_ERROR_FAILED, "cannot make %s: %s", clients,
        g_strerror (errno));
    return FALSE;
  }
  return g_file_set_contents_full (path, line, -1,
      G_FILE_SET_CONTENTS_CONSISTENT, 0600, error);
}

gchar *
donar_tor_launcher_add_single_onion (DonarTorLauncher * self,
    DonarTorControl * control, guint16 virtual_port, guint16 target_port,
    const gchar * client_auth_public_key, gint64 deadline,
    GCancellable * cancellable, GError ** error)
{
  DonarTorSingleOnion *onion;
  gchar *service_id;

  if (self->security != DONAR_TOR_SECURITY_ONE_WAY || self->process == NULL) {
    g_set_error_literal (error, DONAR_TOR_LAUNCHER_ERROR,
        DONAR_TOR_LAUNCHER_ERROR_BAD_OPTION,
        "a single onion service needs a running 1way launcher");
    return NULL;
  }
  if (virtual_port == 0 || target_port == 0) {
    g_set_error_literal (error, DONAR_TOR_LAUNCHER_ERROR,
        DONAR_TOR_LAUNCHER_ERROR_BAD_OPTION, "port 0");
    return NULL;
  }
  if (!donar_tor_control_watch_uploads (control, deadline, cancellable, error))
    return NULL;
  onion = g_new0 (DonarTorSingleOnion, 1);
  onion->directory = g_strdup_printf ("%s/onion-%u", self->data_dir,
      ++self->n_single_onions_made);
  onion->virtual_port = virtual_port;
  onion->target_port = target_port;
  if (client_auth_public_key != NULL && !write_authorized_client
      (onion->directory, client_auth_public_key, error)) {
    donar_tor_single_onion_free (onion);
    return NULL;
  }
  g_ptr_array_add (self->single_onions, onion);
  if (!apply_single_onions (self, control, deadline, cancellable, error)) {
    g_ptr_array_remove (self->single_onions, onion);
    return NULL;
  }
  service_id = read_service_id (onion->directory, deadline, cancellable, error);
  if (service_id == NULL) {
    g_ptr_array_remove (self->single_onions, onion);
    apply_single_onions (self, control, deadline, cancellable, NULL);
    return NULL;
  }
  onion->service_id = g_strdup (service_id);
  donar_tor_control_watch_upload (control, service_id);
  return service_id;
}

gboolean
donar_tor_launcher_remove_single_onion (DonarTorLauncher * self,
    DonarTorControl * control, const gchar * service_id, gint64 deadline,
    GCancellable * cancellable, GError ** error)
{
  for (guint i = 0; i < self->single_onions->len; i++) {
    DonarTorSingleOnion *onion = g_ptr_array_index (self->single_onions, i);

    if (g_strcmp0 (onion->service_id, service_id) == 0) {
      g_autofree gchar *directory = g_strdup (onion->directory);

      g_ptr_array_steal_index (self->single_onions, i);
      if (!apply_single_onions (self, control, deadline, cancellable, error)) {
        g_ptr_array_insert (self->single_onions, i, onion);
        return FALSE;
      }
      donar_tor_single_onion_free (onion);
      /* Its key goes now, not only when the launcher stops. */
      donar_tor_remove_tree (directory);
      return TRUE;
    }
  }
  g_set_error (error, DONAR_TOR_LAUNCHER_ERROR,
      DONAR_TOR_LAUNCHER_ERROR_BAD_OPTION,
      "no single onion service %s in this launcher", service_id);
  return FALSE;
}
