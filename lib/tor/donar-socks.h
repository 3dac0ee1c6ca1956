/* A SOCKS5 client codec (RFC 1928, RFC 1929) for links through tor's
 * SocksPort, sans-I/O: builders of the three requests and a reader of the
 * server's replies fed with bytes split anyhow.
 *
 * The greeting offers username/password only: tor isolates streams with
 * different credentials on different circuits (IsolateSOCKSAuth is on by
 * default), so each link gets its own username.  CONNECT names the host
 * (ATYP DOMAINNAME): the .onion name goes to tor and is never resolved
 * here. */
#ifndef DONAR_SOCKS_H
#define DONAR_SOCKS_H

#include <glib.h>

G_BEGIN_DECLS

#define DONAR_SOCKS_VERSION 0x05
#define DONAR_SOCKS_AUTH_VERSION 0x01
#define DONAR_SOCKS_METHOD_USERNAME_PASSWORD 0x02
#define DONAR_SOCKS_METHOD_NONE_ACCEPTABLE 0xff
#define DONAR_SOCKS_COMMAND_CONNECT 0x01
#define DONAR_SOCKS_ATYP_IPV4 0x01
#define DONAR_SOCKS_ATYP_DOMAINNAME 0x03
#define DONAR_SOCKS_ATYP_IPV6 0x04

/* A username, password or host name is 1 to 255 bytes. */
#define DONAR_SOCKS_MAX_FIELD 255
#define DONAR_SOCKS_GREETING_LENGTH 3
#define DONAR_SOCKS_MAX_AUTH_LENGTH (3 + 2 * DONAR_SOCKS_MAX_FIELD)
#define DONAR_SOCKS_MAX_CONNECT_LENGTH (5 + DONAR_SOCKS_MAX_FIELD + 2)
/* The longest reply: CONNECT's, with a 255-byte domain name bound. */
#define DONAR_SOCKS_MAX_REPLY_LENGTH (5 + DONAR_SOCKS_MAX_FIELD + 2)

typedef enum
{
  DONAR_SOCKS_OK = 0,

  /* A request the builders refuse to write. */
  DONAR_SOCKS_ERROR_BUFFER_TOO_SMALL,
  DONAR_SOCKS_ERROR_BAD_USERNAME,
  DONAR_SOCKS_ERROR_BAD_PASSWORD,
  DONAR_SOCKS_ERROR_BAD_HOST,
  DONAR_SOCKS_ERROR_BAD_PORT,

  /* The server broke the protocol: close the connection. */
  DONAR_SOCKS_ERROR_BAD_VERSION,
  DONAR_SOCKS_ERROR_NO_ACCEPTABLE_METHOD,
  DONAR_SOCKS_ERROR_UNEXPECTED_METHOD,
  DONAR_SOCKS_ERROR_AUTH_FAILED,
  DONAR_SOCKS_ERROR_BAD_RESERVED,
  DONAR_SOCKS_ERROR_BAD_ADDRESS_TYPE,
  DONAR_SOCKS_ERROR_TRUNCATED,

  /* The server refused the CONNECT (RFC 1928 section 6). */
  DONAR_SOCKS_ERROR_GENERAL_FAILURE,
  DONAR_SOCKS_ERROR_NOT_ALLOWED,
  DONAR_SOCKS_ERROR_NETWORK_UNREACHABLE,
  DONAR_SOCKS_ERROR_HOST_UNREACHABLE,
  DONAR_SOCKS_ERROR_CONNECTION_REFUSED,
  DONAR_SOCKS_ERROR_TTL_EXPIRED,
  DONAR_SOCKS_ERROR_COMMAND_NOT_SUPPORTED,
  DONAR_SOCKS_ERROR_ADDRESS_TYPE_NOT_SUPPORTED,
  DONAR_SOCKS_ERROR_UNKNOWN_REPLY,

  /* Tor's onion-service codes 0xF0 to 0xF7 (proposal 304; sent only when
   * the SocksPort has the ExtendedErrors flag). */
  DONAR_SOCKS_ERROR_ONION_DESCRIPTOR_NOT_FOUND,
  DONAR_SOCKS_ERROR_ONION_DESCRIPTOR_INVALID,
  DONAR_SOCKS_ERROR_ONION_INTRODUCTION_FAILED,
  DONAR_SOCKS_ERROR_ONION_RENDEZVOUS_FAILED,
  DONAR_SOCKS_ERROR_ONION_MISSING_CLIENT_AUTH,
  DONAR_SOCKS_ERROR_ONION_BAD_CLIENT_AUTH,
  DONAR_SOCKS_ERROR_ONION_BAD_ADDRESS,
  DONAR_SOCKS_ERROR_ONION_INTRODUCTION_TIMED_OUT,
} DonarSocksError;

const gchar *donar_socks_error_message (DonarSocksError error);

/* The error for a REP field other than 0x00 (succeeded). */
DonarSocksError donar_socks_error_from_reply_code (guint8 code);

/* Each builder writes its request into out and its size into *written;
 * it writes nothing when it returns an error. */

/* VER 5, one method: username/password. */
DonarSocksError donar_socks_build_greeting (guint8 * out, gsize capacity,
    gsize * written);

/* RFC 1929: username and password of 1 to 255 bytes each. */
DonarSocksError donar_socks_build_auth (const gchar * username,
    const gchar * password, guint8 * out, gsize capacity, gsize * written);

/* CONNECT to host:port by name.  host: 1 to 255 bytes of dot-separated
 * labels of letters, digits and inner '-', each 1 to 63 bytes; port not
 * 0. */
DonarSocksError donar_socks_build_connect (const gchar * host, guint16 port,
    guint8 * out, gsize capacity, gsize * written);

/* Which reply the reader waits for. */
typedef enum
{
  DONAR_SOCKS_STAGE_METHOD,
  DONAR_SOCKS_STAGE_AUTH,
  DONAR_SOCKS_STAGE_CONNECT,
  DONAR_SOCKS_STAGE_OPEN,       /* what follows is the peer's data */
} DonarSocksStage;

typedef struct
{
  DonarSocksStage stage;
  DonarSocksError error;
  guint8 buffer[DONAR_SOCKS_MAX_REPLY_LENGTH];
  gsize filled;
  guint8 reply_code;            /* REP of the CONNECT reply */
  /* The address the server bound, from the CONNECT reply. */
  guint8 bound_type;            /* DONAR_SOCKS_ATYP_* */
  guint8 bound_address[DONAR_SOCKS_MAX_FIELD];
  gsize bound_address_length;
  guint16 bound_port;
} DonarSocksReader;

void donar_socks_reader_init (DonarSocksReader * reader);

/* Consumes bytes from *data, stopping right after the end of each reply
 * with *reply_done TRUE and reader->stage at the next one: send the
 * username/password request when it becomes AUTH, the CONNECT when it
 * becomes CONNECT; at OPEN it consumes nothing more, the rest of *data is
 * the peer's.  The first error is returned by every later call. */
DonarSocksError donar_socks_reader_feed (DonarSocksReader * reader,
    const guint8 ** data, gsize * length, gboolean * reply_done);

/* The server closed the connection: DONAR_SOCKS_ERROR_TRUNCATED unless
 * the stream was open (or the reader already in error). */
DonarSocksError donar_socks_reader_finish (DonarSocksReader * reader);

G_END_DECLS

#endif /* DONAR_SOCKS_H */
