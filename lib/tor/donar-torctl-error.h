/* What can go wrong on a Tor control connection, and how to say it. */
#ifndef DONAR_TORCTL_ERROR_H
#define DONAR_TORCTL_ERROR_H

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  DONAR_TORCTL_OK = 0,

  /* The byte stream broke the reply grammar (control-spec section 2.3) or
   * a bound of the reader: nothing after it can be trusted to be in step,
   * so the reader stays in error and the connection must be closed. */
  DONAR_TORCTL_ERROR_BARE_LF,
  DONAR_TORCTL_ERROR_BARE_CR,
  DONAR_TORCTL_ERROR_NUL_BYTE,
  DONAR_TORCTL_ERROR_BAD_STATUS_CODE,
  DONAR_TORCTL_ERROR_BAD_SEPARATOR,
  DONAR_TORCTL_ERROR_MIXED_STATUS_CODES,
  DONAR_TORCTL_ERROR_LINE_TOO_LONG,
  DONAR_TORCTL_ERROR_TOO_MANY_LINES,
  DONAR_TORCTL_ERROR_DATA_TOO_LONG,
  DONAR_TORCTL_ERROR_TRUNCATED,

  /* A command builder refused an argument that would break the command or
   * smuggle another one in; nothing was written. */
  DONAR_TORCTL_ERROR_BAD_ARGUMENT,

  /* A complete reply did not say what its command expects. */
  DONAR_TORCTL_ERROR_REFUSED,
  DONAR_TORCTL_ERROR_MALFORMED,
  DONAR_TORCTL_ERROR_MISSING_FIELD,
  DONAR_TORCTL_ERROR_SERVER_HASH_MISMATCH,
} DonarTorctlError;

const gchar *donar_torctl_error_message (DonarTorctlError error);

G_END_DECLS

#endif /* DONAR_TORCTL_ERROR_H */
