/* Authentication: PROTOCOLINFO, then NULL, SAFECOOKIE, COOKIE or
 * HASHEDPASSWORD, the best that tor offers and the caller allows. */
#include "donar-tor-control-private.h"
#include "donar-tor-unix.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#define ALL_METHODS (DONAR_TORCTL_AUTH_NULL | DONAR_TORCTL_AUTH_SAFECOOKIE \
    | DONAR_TORCTL_AUTH_COOKIE | DONAR_TORCTL_AUTH_HASHEDPASSWORD)

static gchar *
methods_text (DonarTorctlAuthMethods methods)
{
  GString *text = g_string_new (NULL);

  if (methods & DONAR_TORCTL_AUTH_NULL)
    g_string_append (text, ",NULL");
  if (methods & DONAR_TORCTL_AUTH_SAFECOOKIE)
    g_string_append (text, ",SAFECOOKIE");
  if (methods & DONAR_TORCTL_AUTH_COOKIE)
    g_string_append (text, ",COOKIE");
  if (methods & DONAR_TORCTL_AUTH_HASHEDPASSWORD)
    g_string_append (text, ",HASHEDPASSWORD");
  if (text->len == 0)
    g_string_append (text, ",none");
  g_string_erase (text, 0, 1);
  return g_string_free (text, FALSE);
}

/* Reads the 32-byte cookie.  The path may come from whoever listens on the
 * port: read at most one byte more than a cookie, from a regular file only
 * (not /dev/zero, not a FIFO that would block). */
static gboolean
read_cookie (const gchar * path, guint8 * cookie, GError ** error)
{
  guint8 bytes[DONAR_TORCTL_COOKIE_LENGTH + 1];
  struct stat status;
  gsize length = 0;
  int fd;

  fd = open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0 || fstat (fd, &status) != 0 || !S_ISREG (status.st_mode)) {
    int saved = fd < 0 ? errno : EINVAL;

    g_autofree gchar *hint = NULL;

    if (fd >= 0)
      close (fd);
    /* Debian's tor gives its cookie to the group debian-tor. */
    if (saved == EACCES)
      hint = donar_tor_unix_group_hint (path);
    g_set_error (error, DONAR_TOR_CONTROL_ERROR, DONAR_TOR_CONTROL_ERROR_AUTH,
        "cannot read tor's cookie file %s: %s%s%s", path,
        saved == EINVAL ? "not a regular file" : g_strerror (saved),
        hint ? ": " : "", hint ? hint : "");
    return FALSE;
  }
  while (length < sizeof bytes) {
    ssize_t n = read (fd, bytes + length, sizeof bytes - length);

    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    length += n;
  }
  close (fd);
  if (length != DONAR_TORCTL_COOKIE_LENGTH) {
    explicit_bzero (bytes, sizeof bytes);
    g_set_error (error, DONAR_TOR_CONTROL_ERROR, DONAR_TOR_CONTROL_ERROR_AUTH,
        "tor's cookie file %s is not a control cookie (not 32 bytes)", path);
    return FALSE;
  }
  memcpy (cookie, bytes, DONAR_TORCTL_COOKIE_LENGTH);
  explicit_bzero (bytes, sizeof bytes);
  return TRUE;
}

static gboolean
random_bytes (guint8 * out, gsize length, GError ** error)
{
  gsize filled = 0;

  while (filled < length) {
    ssize_t n = getrandom (out + filled, length - filled, 0);

    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      g_set_error (error, DONAR_TOR_CONTROL_ERROR,
          DONAR_TOR_CONTROL_ERROR_AUTH, "no random bytes for a nonce: %s",
          g_strerror (errno));
      return FALSE;
    }
    filled += n;
  }
  return TRUE;
}

/* Sends an AUTHENTICATE (wiped afterwards); tor's refusal is an AUTH
 * error, and tor closes the connection after it. */
static gboolean
send_authenticate (DonarTorControl * self, GString * command,
    DonarTorctlAuthMethods method, gint64 deadline,
    GCancellable * cancellable, GError ** error)
{
  GError *local = NULL;
  DonarTorctlReply *reply;

  reply = donar_tor_control_request_ok (self, command, deadline, cancellable,
      &local);
  donar_tor_control_command_free_secret (command);
  if (reply == NULL) {
    if (g_error_matches (local, DONAR_TOR_CONTROL_ERROR,
            DONAR_TOR_CONTROL_ERROR_REFUSED))
      local->code = DONAR_TOR_CONTROL_ERROR_AUTH;
    g_propagate_error (error, local);
    return FALSE;
  }
  donar_torctl_reply_free (reply);
  self->auth_method = method;
  return TRUE;
}

static gboolean
authenticate_safecookie (DonarTorControl * self, const guint8 * cookie,
    gint64 deadline, GCancellable * cancellable, GError ** error)
{
  guint8 client_nonce[DONAR_TORCTL_NONCE_LENGTH];
  guint8 client_hash[DONAR_TORCTL_HASH_LENGTH];
  DonarTorctlAuthChallenge challenge;
  DonarTorctlError codec_error;
  DonarTorctlReply *reply;
  GString *command;

  if (!random_bytes (client_nonce, sizeof client_nonce, error))
    return FALSE;
  command = g_string_new (NULL);
  donar_torctl_command_authchallenge (command, client_nonce);
  reply = donar_tor_control_request_ok (self, command, deadline, cancellable,
      error);
  g_string_free (command, TRUE);
  if (reply == NULL)
    return FALSE;
  codec_error = donar_torctl_parse_authchallenge (reply, &challenge);
  donar_torctl_reply_free (reply);
  if (codec_error != DONAR_TORCTL_OK) {
    donar_tor_control_set_codec_error (error, codec_error, "AUTHCHALLENGE");
    return FALSE;
  }
  /* Whoever cannot prove it knows the cookie gets nothing from us. */
  if (donar_torctl_safecookie_check_server_hash (cookie, client_nonce,
          challenge.server_nonce, challenge.server_hash) != DONAR_TORCTL_OK) {
    donar_tor_control_fail (self, error, DONAR_TOR_CONTROL_ERROR_AUTH,
        "SAFECOOKIE: the server hash is wrong: the control port is not our "
        "tor's, or the cookie file is not its cookie");
    return FALSE;
  }
  donar_torctl_safecookie_client_hash (cookie, client_nonce,
      challenge.server_nonce, client_hash);
  command = g_string_new (NULL);
  donar_torctl_command_authenticate_safecookie (command, client_hash);
  explicit_bzero (client_hash, sizeof client_hash);
  return send_authenticate (self, command, DONAR_TORCTL_AUTH_SAFECOOKIE,
      deadline, cancellable, error);
}

/* The cookie methods, when a cookie can be read: FALSE with *error unset
 * when none applies, so the caller tries the password. */
static gboolean
authenticate_with_cookie (DonarTorControl * self,
    const DonarTorControlAuthOptions * options,
    DonarTorctlAuthMethods offered, const gchar * tor_cookie_file,
    gboolean * tried, GString * reasons, gint64 deadline,
    GCancellable * cancellable, GError ** error)
{
  guint8 cookie[DONAR_TORCTL_COOKIE_LENGTH];
  gboolean safe = (offered & DONAR_TORCTL_AUTH_SAFECOOKIE) != 0;
  /* COOKIE sends the bytes of the file: only of a file the caller named. */
  gboolean plain = (offered & DONAR_TORCTL_AUTH_COOKIE) != 0
      && options->cookie_file != NULL;
  const gchar *path = options->cookie_file != NULL ?
      options->cookie_file : tor_cookie_file;
  GError *local = NULL;
  gboolean ok;

  *tried = FALSE;
  if ((offered & DONAR_TORCTL_AUTH_COOKIE) && !plain && !safe)
    g_string_append (reasons, "; COOKIE is used only with a cookie file "
        "given by the caller");
  if (!safe && !plain)
    return FALSE;
  if (path == NULL) {
    g_string_append (reasons, "; tor names no cookie file");
    return FALSE;
  }
  if (!read_cookie (path, cookie, &local)) {
    g_string_append_printf (reasons, "; %s", local->message);
    g_error_free (local);
    return FALSE;
  }
  *tried = TRUE;
  if (safe) {
    ok = authenticate_safecookie (self, cookie, deadline, cancellable, error);
  } else {
    GString *command = g_string_new (NULL);

    donar_torctl_command_authenticate_cookie (command, cookie);
    ok = send_authenticate (self, command, DONAR_TORCTL_AUTH_COOKIE,
        deadline, cancellable, error);
  }
  explicit_bzero (cookie, sizeof cookie);
  return ok;
}

static gboolean
authenticate_with_password (DonarTorControl * self, const gchar * password,
    gint64 deadline, GCancellable * cancellable, GError ** error)
{
  GString *command = g_string_new (NULL);
  DonarTorctlError codec_error;

  codec_error = donar_torctl_command_authenticate_password (command, password);
  if (codec_error != DONAR_TORCTL_OK) {
    donar_tor_control_command_free_secret (command);
    donar_tor_control_set_codec_error (error, codec_error, "the password");
    return FALSE;
  }
  return send_authenticate (self, command, DONAR_TORCTL_AUTH_HASHEDPASSWORD,
      deadline, cancellable, error);
}

static gboolean
protocolinfo (DonarTorControl * self, DonarTorctlProtocolInfo * info,
    gint64 deadline, GCancellable * cancellable, GError ** error)
{
  GString *command = g_string_new (NULL);
  DonarTorctlError codec_error;
  DonarTorctlReply *reply;

  donar_torctl_command_protocolinfo (command);
  reply = donar_tor_control_request_ok (self, command, deadline, cancellable,
      error);
  g_string_free (command, TRUE);
  if (reply == NULL)
    return FALSE;
  codec_error = donar_torctl_parse_protocolinfo (reply, info);
  donar_torctl_reply_free (reply);
  if (codec_error != DONAR_TORCTL_OK) {
    donar_tor_control_set_codec_error (error, codec_error, "PROTOCOLINFO");
    return FALSE;
  }
  return TRUE;
}

gboolean
donar_tor_control_authenticate (DonarTorControl * self,
    const DonarTorControlAuthOptions * options, gint64 deadline,
    GCancellable * cancellable, GError ** error)
{
  static const DonarTorControlAuthOptions defaults = { 0 };
  DonarTorctlProtocolInfo info;
  DonarTorctlAuthMethods allowed, offered;
  g_autoptr (GString) reasons = g_string_new (NULL);
  g_autofree gchar *offered_text = NULL;
  g_autofree gchar *allowed_text = NULL;
  GError *local = NULL;
  gboolean tried;
  gboolean ok;

  if (options == NULL)
    options = &defaults;
  allowed = options->methods != 0 ? options->methods : ALL_METHODS;
  if (!donar_tor_control_check_usable (self, error)
      || !protocolinfo (self, &info, deadline, cancellable, error))
    return FALSE;
  g_free (self->tor_version);
  self->tor_version = g_strdup (info.tor_version);
  offered = info.methods & allowed;

  if (offered & DONAR_TORCTL_AUTH_NULL) {
    GString *command = g_string_new (NULL);

    donar_torctl_command_authenticate_none (command);
    donar_torctl_protocol_info_clear (&info);
    return send_authenticate (self, command, DONAR_TORCTL_AUTH_NULL,
        deadline, cancellable, error);
  }
  ok = authenticate_with_cookie (self, options, offered, info.cookie_file,
      &tried, reasons, deadline, cancellable, &local);
  if (ok || tried) {
    donar_torctl_protocol_info_clear (&info);
    if (local != NULL)
      g_propagate_error (error, local);
    return ok;
  }
  if ((offered & DONAR_TORCTL_AUTH_HASHEDPASSWORD)
      && options->password != NULL) {
    donar_torctl_protocol_info_clear (&info);
    return authenticate_with_password (self, options->password, deadline,
        cancellable, error);
  }
  if ((offered & DONAR_TORCTL_AUTH_HASHEDPASSWORD)
      && options->password == NULL)
    g_string_append (reasons, "; HASHEDPASSWORD needs a password");

  offered_text = methods_text (info.methods);
  allowed_text = methods_text (allowed);
  g_set_error (error, DONAR_TOR_CONTROL_ERROR, DONAR_TOR_CONTROL_ERROR_AUTH,
      "no way to authenticate to tor: it offers %s, we may use %s%s",
      offered_text, allowed_text, reasons->str);
  donar_torctl_protocol_info_clear (&info);
  return FALSE;
}
