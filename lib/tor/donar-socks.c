/* SOCKS5 requests and error codes. */
#include "donar-socks.h"

#include <string.h>

#define MAX_LABEL 63

const gchar *
donar_socks_error_message (DonarSocksError error)
{
  switch (error) {
    case DONAR_SOCKS_OK:
      return "no error";
    case DONAR_SOCKS_ERROR_BUFFER_TOO_SMALL:
      return "SOCKS: the request does not fit in the buffer";
    case DONAR_SOCKS_ERROR_BAD_USERNAME:
      return "SOCKS: the username must be 1 to 255 bytes";
    case DONAR_SOCKS_ERROR_BAD_PASSWORD:
      return "SOCKS: the password must be 1 to 255 bytes";
    case DONAR_SOCKS_ERROR_BAD_HOST:
      return "SOCKS: the host is not a host name of at most 255 bytes";
    case DONAR_SOCKS_ERROR_BAD_PORT:
      return "SOCKS: port 0";
    case DONAR_SOCKS_ERROR_BAD_VERSION:
      return "SOCKS: the server's reply has a wrong version byte";
    case DONAR_SOCKS_ERROR_NO_ACCEPTABLE_METHOD:
      return "SOCKS: the server accepts no username/password authentication";
    case DONAR_SOCKS_ERROR_UNEXPECTED_METHOD:
      return "SOCKS: the server chose a method that was not offered";
    case DONAR_SOCKS_ERROR_AUTH_FAILED:
      return "SOCKS: the server rejected the username/password";
    case DONAR_SOCKS_ERROR_BAD_RESERVED:
      return "SOCKS: the reserved byte of the reply is not 0";
    case DONAR_SOCKS_ERROR_BAD_ADDRESS_TYPE:
      return "SOCKS: the reply's bound address has an unknown type";
    case DONAR_SOCKS_ERROR_TRUNCATED:
      return "SOCKS: the server closed the connection during the handshake";
    case DONAR_SOCKS_ERROR_GENERAL_FAILURE:
      return "SOCKS: general server failure";
    case DONAR_SOCKS_ERROR_NOT_ALLOWED:
      return "SOCKS: connection not allowed by ruleset";
    case DONAR_SOCKS_ERROR_NETWORK_UNREACHABLE:
      return "SOCKS: network unreachable";
    case DONAR_SOCKS_ERROR_HOST_UNREACHABLE:
      return "SOCKS: host unreachable";
    case DONAR_SOCKS_ERROR_CONNECTION_REFUSED:
      return "SOCKS: connection refused";
    case DONAR_SOCKS_ERROR_TTL_EXPIRED:
      return "SOCKS: TTL expired";
    case DONAR_SOCKS_ERROR_COMMAND_NOT_SUPPORTED:
      return "SOCKS: command not supported";
    case DONAR_SOCKS_ERROR_ADDRESS_TYPE_NOT_SUPPORTED:
      return "SOCKS: address type not supported";
    case DONAR_SOCKS_ERROR_UNKNOWN_REPLY:
      return "SOCKS: the server refused with an unknown reply code";
    case DONAR_SOCKS_ERROR_ONION_DESCRIPTOR_NOT_FOUND:
      return "SOCKS: onion service descriptor not found (not published yet, "
          "or the service is gone)";
    case DONAR_SOCKS_ERROR_ONION_DESCRIPTOR_INVALID:
      return "SOCKS: onion service descriptor invalid";
    case DONAR_SOCKS_ERROR_ONION_INTRODUCTION_FAILED:
      return "SOCKS: onion service introduction failed";
    case DONAR_SOCKS_ERROR_ONION_RENDEZVOUS_FAILED:
      return "SOCKS: onion service rendezvous failed";
    case DONAR_SOCKS_ERROR_ONION_MISSING_CLIENT_AUTH:
      return "SOCKS: the onion service needs client authorization";
    case DONAR_SOCKS_ERROR_ONION_BAD_CLIENT_AUTH:
      return "SOCKS: the onion service rejected the client authorization";
    case DONAR_SOCKS_ERROR_ONION_BAD_ADDRESS:
      return "SOCKS: invalid onion address";
    case DONAR_SOCKS_ERROR_ONION_INTRODUCTION_TIMED_OUT:
      return "SOCKS: onion service introduction timed out";
  }
  return "SOCKS: unknown error";
}

DonarSocksError
donar_socks_error_from_reply_code (guint8 code)
{
  static const DonarSocksError standard[] = {
    DONAR_SOCKS_OK,
    DONAR_SOCKS_ERROR_GENERAL_FAILURE,
    DONAR_SOCKS_ERROR_NOT_ALLOWED,
    DONAR_SOCKS_ERROR_NETWORK_UNREACHABLE,
    DONAR_SOCKS_ERROR_HOST_UNREACHABLE,
    DONAR_SOCKS_ERROR_CONNECTION_REFUSED,
    DONAR_SOCKS_ERROR_TTL_EXPIRED,
    DONAR_SOCKS_ERROR_COMMAND_NOT_SUPPORTED,
    DONAR_SOCKS_ERROR_ADDRESS_TYPE_NOT_SUPPORTED,
  };
  static const DonarSocksError onion[] = {
    DONAR_SOCKS_ERROR_ONION_DESCRIPTOR_NOT_FOUND,
    DONAR_SOCKS_ERROR_ONION_DESCRIPTOR_INVALID,
    DONAR_SOCKS_ERROR_ONION_INTRODUCTION_FAILED,
    DONAR_SOCKS_ERROR_ONION_RENDEZVOUS_FAILED,
    DONAR_SOCKS_ERROR_ONION_MISSING_CLIENT_AUTH,
    DONAR_SOCKS_ERROR_ONION_BAD_CLIENT_AUTH,
    DONAR_SOCKS_ERROR_ONION_BAD_ADDRESS,
    DONAR_SOCKS_ERROR_ONION_INTRODUCTION_TIMED_OUT,
  };

  if (code < G_N_ELEMENTS (standard))
    return standard[code];
  if (code >= 0xf0 && code - 0xf0 < (gint) G_N_ELEMENTS (onion))
    return onion[code - 0xf0];
  return DONAR_SOCKS_ERROR_UNKNOWN_REPLY;
}

DonarSocksError
donar_socks_build_greeting (guint8 * out, gsize capacity, gsize * written)
{
  *written = 0;
  if (capacity < DONAR_SOCKS_GREETING_LENGTH)
    return DONAR_SOCKS_ERROR_BUFFER_TOO_SMALL;
  out[0] = DONAR_SOCKS_VERSION;
  out[1] = 1;
  out[2] = DONAR_SOCKS_METHOD_USERNAME_PASSWORD;
  *written = DONAR_SOCKS_GREETING_LENGTH;
  return DONAR_SOCKS_OK;
}

/* strlen that gives up past the SOCKS bound, so that no field is walked
 * further than it could be used. */
static gsize
field_length (const gchar * text)
{
  gsize length = 0;

  while (length <= DONAR_SOCKS_MAX_FIELD && text[length] != '\0')
    length++;
  return length;
}

DonarSocksError
donar_socks_build_auth (const gchar * username, const gchar * password,
    guint8 * out, gsize capacity, gsize * written)
{
  gsize username_length, password_length, n = 0;

  *written = 0;
  username_length = username != NULL ? field_length (username) : 0;
  if (username_length == 0 || username_length > DONAR_SOCKS_MAX_FIELD)
    return DONAR_SOCKS_ERROR_BAD_USERNAME;
  password_length = password != NULL ? field_length (password) : 0;
  if (password_length == 0 || password_length > DONAR_SOCKS_MAX_FIELD)
    return DONAR_SOCKS_ERROR_BAD_PASSWORD;
  if (capacity < 3 + username_length + password_length)
    return DONAR_SOCKS_ERROR_BUFFER_TOO_SMALL;
  out[n++] = DONAR_SOCKS_AUTH_VERSION;
  out[n++] = username_length;
  memcpy (out + n, username, username_length);
  n += username_length;
  out[n++] = password_length;
  memcpy (out + n, password, password_length);
  n += password_length;
  *written = n;
  return DONAR_SOCKS_OK;
}

/* Dot-separated labels of letters, digits and '-' (not at either end of a
 * label): what can name an onion service or any DNS host, and nothing that
 * could confuse tor's own parsing of the name. */
static gboolean
is_host_name (const gchar * host, gsize length)
{
  gsize label = 0;

  for (gsize i = 0; i < length; i++) {
    gchar c = host[i];

    if (c == '.') {
      if (label == 0 || host[i - 1] == '-')
        return FALSE;
      label = 0;
      continue;
    }
    if (!g_ascii_isalnum (c) && !(c == '-' && label > 0))
      return FALSE;
    if (++label > MAX_LABEL)
      return FALSE;
  }
  return label > 0 && host[length - 1] != '-';
}

DonarSocksError
donar_socks_build_connect (const gchar * host, guint16 port, guint8 * out,
    gsize capacity, gsize * written)
{
  gsize host_length, n = 0;

  *written = 0;
  host_length = host != NULL ? field_length (host) : 0;
  if (host_length == 0 || host_length > DONAR_SOCKS_MAX_FIELD
      || !is_host_name (host, host_length))
    return DONAR_SOCKS_ERROR_BAD_HOST;
  if (port == 0)
    return DONAR_SOCKS_ERROR_BAD_PORT;
  if (capacity < 7 + host_length)
    return DONAR_SOCKS_ERROR_BUFFER_TOO_SMALL;
  out[n++] = DONAR_SOCKS_VERSION;
  out[n++] = DONAR_SOCKS_COMMAND_CONNECT;
  out[n++] = 0x00;
  out[n++] = DONAR_SOCKS_ATYP_DOMAINNAME;
  out[n++] = host_length;
  memcpy (out + n, host, host_length);
  n += host_length;
  out[n++] = port >> 8;
  out[n++] = port & 0xff;
  *written = n;
  return DONAR_SOCKS_OK;
}
