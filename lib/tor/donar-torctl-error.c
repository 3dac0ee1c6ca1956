/* Messages for the control-port error codes. */
#include "donar-torctl-error.h"

const gchar *
donar_torctl_error_message (DonarTorctlError error)
{
  switch (error) {
    case DONAR_TORCTL_OK:
      return "no error";
    case DONAR_TORCTL_ERROR_BARE_LF:
      return "control reply: a line ends with LF instead of CRLF";
    case DONAR_TORCTL_ERROR_BARE_CR:
      return "control reply: a CR is not followed by LF";
    case DONAR_TORCTL_ERROR_NUL_BYTE:
      return "control reply: a NUL byte in a line";
    case DONAR_TORCTL_ERROR_BAD_STATUS_CODE:
      return "control reply: a line does not start with a three-digit "
          "status code";
    case DONAR_TORCTL_ERROR_BAD_SEPARATOR:
      return "control reply: the status code is not followed by '-', '+' "
          "or a space";
    case DONAR_TORCTL_ERROR_MIXED_STATUS_CODES:
      return "control reply: the lines of one reply carry different "
          "status codes";
    case DONAR_TORCTL_ERROR_LINE_TOO_LONG:
      return "control reply: a line is longer than the reader accepts";
    case DONAR_TORCTL_ERROR_TOO_MANY_LINES:
      return "control reply: more lines in one reply than the reader "
          "accepts";
    case DONAR_TORCTL_ERROR_DATA_TOO_LONG:
      return "control reply: more data in one reply than the reader accepts";
    case DONAR_TORCTL_ERROR_TRUNCATED:
      return "control reply: the connection ended inside a reply";
    case DONAR_TORCTL_ERROR_BAD_ARGUMENT:
      return "control command: an argument would break the command";
    case DONAR_TORCTL_ERROR_REFUSED:
      return "control command: tor answered with an error status";
    case DONAR_TORCTL_ERROR_MALFORMED:
      return "control reply: the reply does not follow its command's syntax";
    case DONAR_TORCTL_ERROR_MISSING_FIELD:
      return "control reply: a field the command must return is missing";
    case DONAR_TORCTL_ERROR_SERVER_HASH_MISMATCH:
      return "SAFECOOKIE: the server hash is wrong (not our tor, or not our "
          "cookie)";
  }
  return "unknown control-port error";
}
