/* Builds the control-port commands DONAR sends (control-spec section 3),
 * each appended to a GString with its CRLF.  A builder that refuses an
 * argument returns DONAR_TORCTL_ERROR_BAD_ARGUMENT and leaves the GString
 * as it was: no argument can add a line, a space-separated argument or
 * an unbalanced quote to the command. */
#ifndef DONAR_TORCTL_COMMAND_H
#define DONAR_TORCTL_COMMAND_H

#include "donar-torctl-safecookie.h"

G_BEGIN_DECLS

/* Longest ADD_ONION key blob accepted (base64 of tor's 64-byte expanded
 * ed25519 secret key is 88 characters). */
#define DONAR_TORCTL_MAX_KEY_BLOB 256
/* Most Port= targets in one ADD_ONION. */
#define DONAR_TORCTL_MAX_ONION_PORTS 16
/* A v3 onion address without ".onion": 56 base32 characters. */
#define DONAR_TORCTL_SERVICE_ID_LENGTH 56
/* An x25519 public key for ClientAuthV3: 32 bytes in unpadded base32. */
#define DONAR_TORCTL_CLIENT_AUTH_KEY_LENGTH 52
/* The raw bytes of an x25519 key. */
#define DONAR_TORCTL_X25519_KEY_BYTES 32

void donar_torctl_command_protocolinfo (GString * out);

void donar_torctl_command_authchallenge (GString * out,
    const guint8 * client_nonce);

/* For a tor that accepts the NULL method. */
void donar_torctl_command_authenticate_none (GString * out);

/* The COOKIE method: the cookie itself, in hex. */
void donar_torctl_command_authenticate_cookie (GString * out,
    const guint8 * cookie);

/* The SAFECOOKIE method: donar_torctl_safecookie_client_hash, in hex. */
void donar_torctl_command_authenticate_safecookie (GString * out,
    const guint8 * client_hash);

/* The HASHEDPASSWORD method: the password as a QuotedString.  Refuses a
 * control character (CR and LF among them). */
DonarTorctlError donar_torctl_command_authenticate_password (GString * out,
    const gchar * password);

typedef enum
{
  DONAR_TORCTL_ONION_DISCARD_PK = 1 << 0,
  DONAR_TORCTL_ONION_DETACH = 1 << 1,
  DONAR_TORCTL_ONION_V3_AUTH = 1 << 2,
  DONAR_TORCTL_ONION_NON_ANONYMOUS = 1 << 3,
  DONAR_TORCTL_ONION_MAX_STREAMS_CLOSE_CIRCUIT = 1 << 4,
} DonarTorctlOnionFlags;

/* The onion's virtual port, forwarded to target_port on 127.0.0.1: the
 * callee listens on loopback only. */
typedef struct
{
  guint16 virtual_port;
  guint16 target_port;
} DonarTorctlOnionPort;

typedef struct
{
  /* NULL for NEW:ED25519-V3; else the base64 blob of an ED25519-V3 key,
   * as the PrivateKey of an earlier ADD_ONION reply returned it. */
  const gchar *private_key;
  DonarTorctlOnionFlags flags;
  guint max_streams;            /* 0: not sent (tor's default, no limit) */
  const DonarTorctlOnionPort *ports;
  guint n_ports;
  /* NULL-terminated base32 x25519 public keys of the allowed clients, or
   * NULL. */
  const gchar *const *client_auth_v3;
} DonarTorctlOnionRequest;

DonarTorctlError donar_torctl_command_add_onion (GString * out,
    const DonarTorctlOnionRequest * request);

/* service_id: the 56 base32 characters before ".onion". */
DonarTorctlError donar_torctl_command_del_onion (GString * out,
    const gchar * service_id);

/* ONION_CLIENT_AUTH_ADD <service_id> x25519:<base64 secret key>: the
 * client's key for an onion that requires client authorization, kept by
 * tor in memory only (no Flags=Permanent). */
DonarTorctlError donar_torctl_command_onion_client_auth_add (GString * out,
    const gchar * service_id, const guint8 * x25519_secret_key);

/* ONION_CLIENT_AUTH_REMOVE <service_id>. */
DonarTorctlError donar_torctl_command_onion_client_auth_remove (GString *
    out, const gchar * service_id);

/* keys: NULL-terminated, at least one, each printable ASCII without
 * spaces or quotes. */
DonarTorctlError donar_torctl_command_getinfo (GString * out,
    const gchar * const *keys);

/* events: NULL-terminated event codes (letters and '_'); none turns every
 * event off. */
DonarTorctlError donar_torctl_command_setevents (GString * out,
    const gchar * const *events);

typedef struct
{
  const gchar *key;             /* letters, digits and '_' */
  const gchar *value;           /* NULL resets the option */
} DonarTorctlConfEntry;

/* Values go raw when they are plain words (letters, digits, "_.,:/+@-")
 * and as a QuotedString otherwise; a control character (CR and LF among
 * them) is refused. */
DonarTorctlError donar_torctl_command_setconf (GString * out,
    const DonarTorctlConfEntry * entries, guint n_entries);

G_END_DECLS

#endif /* DONAR_TORCTL_COMMAND_H */
