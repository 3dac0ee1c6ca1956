/* A callee's lasting address during the setup (donar-call-lasting.h). */
#include "donar-call-lasting.h"
#include "donar-call-contacts.h"

#include <string.h>

static gboolean
fail (GError ** error, const gchar * why)
{
  g_set_error_literal (error, DONAR_CALL_ERROR, DONAR_CALL_ERROR_OPTIONS, why);
  return FALSE;
}

/* What the transport allows: both are properties of an ADD_ONION onion. */
static gboolean
check_transport (const DonarCallOptions * options, GError ** error)
{
  if (options->key_file == NULL && options->client_auth_dir == NULL)
    return TRUE;
  if (options->transport == DONAR_CALL_TRANSPORT_DIRECT)
    return fail (error, "a key file or a contacts directory is a property "
        "of onions: a direct call has none");
  /* The launcher's single onion lives in tor's configuration, with a key
   * of tor's own making that ADD_ONION's cannot replace. */
  if (options->tor_control_port == 0
      && options->security == DONAR_TOR_SECURITY_ONE_WAY)
    return fail (error, "a key file or a contacts directory needs an "
        "ADD_ONION onion: not with a launched 1way tor (its single onion's "
        "key is tor's own); give a running tor's control port instead");
  return TRUE;
}

gboolean
donar_call_lasting_check (const DonarCallOptions * options, GError ** error)
{
  gchar **contacts;

  if (!check_transport (options, error))
    return FALSE;
  if (options->key_file != NULL
      && !donar_call_keyfile_check (options->key_file, error))
    return FALSE;
  if (options->client_auth_dir == NULL)
    return TRUE;
  contacts = donar_call_contacts_load (options->client_auth_dir, error);
  g_strfreev (contacts);
  return contacts != NULL;
}

gboolean
donar_call_lasting_init (DonarCallLasting * lasting,
    const DonarCallOptions * options, guint8 * secret, GError ** error)
{
  memset (lasting, 0, sizeof *lasting);
  if (!check_transport (options, error))
    return FALSE;
  if (options->client_auth_dir != NULL) {
    lasting->contacts = donar_call_contacts_load (options->client_auth_dir,
        error);
    if (lasting->contacts == NULL)
      return FALSE;
  }
  if (options->key_file == NULL)
    return TRUE;
  lasting->key_file = options->key_file;
  if (!donar_call_keyfile_load (options->key_file, &lasting->keys,
          &lasting->exists, error))
    return FALSE;
  /* A new file: its directory, before the onion is published. */
  if (!lasting->exists && !donar_call_keyfile_check (options->key_file, error))
    return FALSE;
  if (lasting->exists) {
    memcpy (secret, lasting->keys.secret, DONAR_CALL_SECRET_LENGTH);
  } else {
    memcpy (lasting->keys.secret, secret, DONAR_CALL_SECRET_LENGTH);
    lasting->dirty = TRUE;
  }
  return TRUE;
}

gboolean
donar_call_lasting_client_key (DonarCallLasting * lasting,
    DonarClientAuthKey * key, GError ** error)
{
  if (lasting->key_file != NULL && lasting->keys.has_client_auth)
    return donar_client_auth_key_from_secret (key,
        lasting->keys.client_auth_secret, error);
  if (!donar_client_auth_key_generate (key, error))
    return FALSE;
  if (lasting->key_file != NULL) {
    /* The address carries it: a lasting address keeps it too. */
    memcpy (lasting->keys.client_auth_secret, key->secret,
        sizeof lasting->keys.client_auth_secret);
    lasting->keys.has_client_auth = TRUE;
    lasting->dirty = TRUE;
  }
  return TRUE;
}

void
donar_call_lasting_onion_options (DonarCallLasting * lasting,
    DonarTorOnionOptions * onion_options)
{
  if (lasting->key_file == NULL)
    return;
  if (lasting->exists)
    onion_options->private_key = lasting->keys.onion_key;
  else
    onion_options->keep_private_key = TRUE;
}

gboolean
donar_call_lasting_published (DonarCallLasting * lasting,
    const DonarTorctlOnion * onion, GError ** error)
{
  if (lasting->key_file == NULL)
    return TRUE;
  if (!lasting->exists) {
    if (onion->private_key == NULL
        || strlen (onion->private_key) != DONAR_CALL_KEYFILE_ONION_KEY_LENGTH) {
      g_set_error (error, DONAR_CALL_ERROR, DONAR_CALL_ERROR_KEY_FILE,
          "key file %s: tor gave no ED25519-V3 key of 88 base64 characters "
          "to keep", lasting->key_file);
      return FALSE;
    }
    memcpy (lasting->keys.onion_key, onion->private_key,
        DONAR_CALL_KEYFILE_ONION_KEY_LENGTH + 1);
  }
  if (!lasting->dirty)
    return TRUE;
  lasting->dirty = FALSE;
  return donar_call_keyfile_save (lasting->key_file, &lasting->keys, error);
}

void
donar_call_lasting_clear (DonarCallLasting * lasting)
{
  donar_call_keyfile_clear (&lasting->keys);
  g_strfreev (lasting->contacts);
  lasting->contacts = NULL;
}
