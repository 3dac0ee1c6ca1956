/* A reply from its text, through the reader (torctl-test-reply.h). */
#include "torctl-test-reply.h"

#include <string.h>

DonarTorctlReply *
reply_of (const gchar * text)
{
  DonarTorctlReader *reader = donar_torctl_reader_new ();
  const guint8 *data = (const guint8 *) text;
  gsize length = strlen (text);
  DonarTorctlReply *reply;

  g_assert_cmpint (donar_torctl_reader_next (reader, &data, &length, &reply),
      ==, DONAR_TORCTL_OK);
  g_assert_nonnull (reply);
  g_assert_cmpuint (length, ==, 0);
  g_assert_cmpint (donar_torctl_reader_finish (reader), ==, DONAR_TORCTL_OK);
  donar_torctl_reader_free (reader);
  return reply;
}
