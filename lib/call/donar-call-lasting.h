/* A callee's lasting address during the call's setup (donar-call.c): the
 * key file (donar-call-keyfile.h) and the contacts directory
 * (donar-call-contacts.h) of DonarCallOptions, turned into the call
 * secret, the client-auth keys and the ADD_ONION key. */
#ifndef DONAR_CALL_LASTING_H
#define DONAR_CALL_LASTING_H

#include "donar-call.h"
#include "donar-call-keyfile.h"
#include "donar-tor-control.h"

G_BEGIN_DECLS

typedef struct
{
  const gchar *key_file;        /* options->key_file */
  DonarCallKeyFile keys;
  gboolean exists;              /* the key file was there */
  gboolean dirty;               /* keys to write once the onion is up */
  gchar **contacts;             /* public keys, or NULL */
} DonarCallLasting;

/* The settings that cannot work (a key file or contacts on a direct call,
 * or a launched 1way tor), a key file that cannot be loaded or created, a
 * contacts directory that cannot be loaded: before any I/O with tor. */
gboolean donar_call_lasting_check (const DonarCallOptions * options,
    GError ** error);

/* Loads the key file and the contacts.  secret: the newly drawn call
 * secret, replaced with the key file's, or kept in it for a new one. */
gboolean donar_call_lasting_init (DonarCallLasting * lasting,
    const DonarCallOptions * options, guint8 * secret, GError ** error);

/* The client-auth key pair of the address: the key file's, else new (and
 * kept in the key file, if any). */
gboolean donar_call_lasting_client_key (DonarCallLasting * lasting,
    DonarClientAuthKey * key, GError ** error);

/* ADD_ONION's key: the key file's, or a new one to keep. */
void donar_call_lasting_onion_options (DonarCallLasting * lasting,
    DonarTorOnionOptions * onion_options);

/* Once ADD_ONION gave the onion: keeps a new key and writes the key file
 * when it changed. */
gboolean donar_call_lasting_published (DonarCallLasting * lasting,
    const DonarTorctlOnion * onion, GError ** error);

/* Wipes the keys. */
void donar_call_lasting_clear (DonarCallLasting * lasting);

G_END_DECLS

#endif /* DONAR_CALL_LASTING_H */
