/* donar-call contact-key (contact-key.h).  The pair is made where the
 * command runs: run by the contact, the secret key never leaves its
 * machine and only NAME.auth goes to the callee; run by the callee's
 * owner, the secret key must reach the contact as the address does, over
 * a channel they trust. */
#include "contact-key.h"
#include "donar-call-contacts.h"
#include "donar-client-auth.h"
#include "donar-secret.h"

#include <stdio.h>

int
contact_key_main (const gchar * name, const gchar * dir)
{
  DonarClientAuthKey key;
  GError *error = NULL;
  gchar *secret;

  if (!donar_client_auth_key_generate (&key, &error)
      || !donar_call_contacts_write (dir, name, key.public_key, &error)) {
    donar_client_auth_key_clear (&key);
    g_printerr ("donar-call: %s\n", error->message);
    g_error_free (error);
    return 1;
  }
  secret = donar_client_auth_to_base32 (key.secret);
  donar_client_auth_key_clear (&key);
  /* stdout: to a file of the user's choosing, not the terminal's
   * scrollback, when redirected. */
  fputs (secret, stdout);
  fputc ('\n', stdout);
  fflush (stdout);
  donar_secret_free (secret);
  return 0;
}
