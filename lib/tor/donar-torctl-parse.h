/* Parsers of the replies to the commands DONAR sends: PROTOCOLINFO,
 * AUTHCHALLENGE, ADD_ONION and GETINFO.  Each takes a whole reply from the
 * reader; a status other than 250 gives DONAR_TORCTL_ERROR_REFUSED (the
 * reply itself says why), a reply off its command's grammar
 * DONAR_TORCTL_ERROR_MALFORMED, a required field absent
 * DONAR_TORCTL_ERROR_MISSING_FIELD.  Unknown lines and fields are
 * ignored, as the spec asks.  On error the output holds nothing to free. */
#ifndef DONAR_TORCTL_PARSE_H
#define DONAR_TORCTL_PARSE_H

#include "donar-torctl-reader.h"
#include "donar-torctl-safecookie.h"

G_BEGIN_DECLS

typedef enum
{
  DONAR_TORCTL_AUTH_NULL = 1 << 0,
  DONAR_TORCTL_AUTH_HASHEDPASSWORD = 1 << 1,
  DONAR_TORCTL_AUTH_COOKIE = 1 << 2,
  DONAR_TORCTL_AUTH_SAFECOOKIE = 1 << 3,
} DonarTorctlAuthMethods;

typedef struct
{
  guint protocol_version;
  DonarTorctlAuthMethods methods;       /* unknown methods left out */
  gchar *cookie_file;           /* the first COOKIEFILE, unquoted, or NULL */
  gchar *tor_version;           /* or NULL */
} DonarTorctlProtocolInfo;

DonarTorctlError donar_torctl_parse_protocolinfo (const DonarTorctlReply *
    reply, DonarTorctlProtocolInfo * info);
void donar_torctl_protocol_info_clear (DonarTorctlProtocolInfo * info);

typedef struct
{
  guint8 server_hash[DONAR_TORCTL_HASH_LENGTH];
  guint8 server_nonce[DONAR_TORCTL_NONCE_LENGTH];
} DonarTorctlAuthChallenge;

DonarTorctlError donar_torctl_parse_authchallenge (const DonarTorctlReply *
    reply, DonarTorctlAuthChallenge * challenge);

typedef struct
{
  gchar *service_id;            /* 56 base32 characters, no ".onion" */
  /* The base64 blob of the new ED25519-V3 key (NULL with DiscardPK or a
   * given key): a secret, wiped by clear. */
  gchar *private_key;
  gchar **client_auth_v3;       /* NULL-terminated, often empty */
} DonarTorctlOnion;

DonarTorctlError donar_torctl_parse_add_onion (const DonarTorctlReply *
    reply, DonarTorctlOnion * onion);
void donar_torctl_onion_clear (DonarTorctlOnion * onion);

/* Every key=value line and key= data block of the reply, in a table of
 * strings the caller unrefs; a key twice is malformed. */
DonarTorctlError donar_torctl_parse_getinfo (const DonarTorctlReply * reply,
    GHashTable ** values);

G_END_DECLS

#endif /* DONAR_TORCTL_PARSE_H */
