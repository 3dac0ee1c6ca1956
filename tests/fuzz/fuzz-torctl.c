/* The control-port reply reader (lib/tor/donar-torctl-reader.c) on the
 * input, then every reply parser on each reply it yields:
 *
 *   byte 0     the size of the chunks the reader is fed, byte + 1
 *   the rest   the bytes the control port sent
 *
 * Each parser's output is freed when it succeeds (on error it holds nothing
 * to free, so the leak checker sees any that does). */
#include <string.h>

#include "donar-torctl.h"
#include "fuzz-common.h"

/* What a caller makes of a circuit: its relay ids, and any name of it
 * read as a relay. */
static void
read_path (const DonarTorctlCircuit * circuit)
{
  guint64 ids[8];
  guint n = 99;

  if (donar_torctl_circuit_stream_path (circuit, ids, G_N_ELEMENTS (ids), &n))
    FUZZ_CHECK (n >= 1 && n <= G_N_ELEMENTS (ids));
  else
    FUZZ_CHECK (n == 0);
  for (guint i = 0; circuit->path != NULL && circuit->path[i] != NULL; i++)
    donar_torctl_relay_id (circuit->path[i], &ids[0]);
}

static void
parse_value (const gchar * value)
{
  DonarTorctlBootstrap bootstrap;
  GPtrArray *circuits = NULL;

  memset (&bootstrap, 0, sizeof bootstrap);
  if (donar_torctl_parse_bootstrap (value, &bootstrap) == DONAR_TORCTL_OK) {
    FUZZ_CHECK (bootstrap.progress <= 100);
    donar_torctl_bootstrap_clear (&bootstrap);
  }
  if (donar_torctl_parse_circuit_status (value, &circuits) == DONAR_TORCTL_OK) {
    for (guint i = 0; i < circuits->len; i++)
      read_path (g_ptr_array_index (circuits, i));
    g_ptr_array_unref (circuits);
  }
}

static void
parse_line (const DonarTorctlLine * line)
{
  DonarTorctlCircuit circuit;
  DonarTorctlArguments *arguments = NULL;
  guint64 id;

  FUZZ_CHECK (line->text != NULL);
  FUZZ_CHECK (line->data == NULL || line->data[line->data_length] == '\0');
  FUZZ_CHECK (line->data == NULL || strlen (line->data) == line->data_length);

  for (guint n_words = 0; n_words < 3; n_words++) {
    if (donar_torctl_arguments_parse (line->text, n_words, &arguments) ==
        DONAR_TORCTL_OK) {
      FUZZ_CHECK (arguments->n_arguments <= DONAR_TORCTL_MAX_ARGUMENTS);
      donar_torctl_arguments_lookup (arguments, "METHODS");
      donar_torctl_arguments_word (arguments, 0);
      donar_torctl_arguments_free (arguments);
    }
  }
  memset (&circuit, 0, sizeof circuit);
  if (donar_torctl_parse_circuit (line->text, &circuit) == DONAR_TORCTL_OK) {
    read_path (&circuit);
    donar_torctl_circuit_clear (&circuit);
  }
  donar_torctl_relay_id (line->text, &id);
  parse_value (line->text);
  if (line->data != NULL)
    parse_value (line->data);
}

static void
parse_reply (const DonarTorctlReply * reply)
{
  DonarTorctlProtocolInfo info;
  DonarTorctlAuthChallenge challenge;
  DonarTorctlOnion onion;
  DonarTorctlBootstrap bootstrap;
  DonarTorctlCircuit circuit;
  GHashTable *values = NULL;

  FUZZ_CHECK (reply->n_lines >= 1 && reply->n_lines <= DONAR_TORCTL_MAX_LINES);
  FUZZ_CHECK (reply->code >= 200 && reply->code <= 699);
  donar_torctl_reply_is_event (reply, NULL);
  donar_torctl_reply_is_event (reply, "CIRC");
  donar_torctl_reply_is_event (reply, "STATUS_CLIENT");

  memset (&info, 0, sizeof info);
  if (donar_torctl_parse_protocolinfo (reply, &info) == DONAR_TORCTL_OK)
    donar_torctl_protocol_info_clear (&info);
  donar_torctl_parse_authchallenge (reply, &challenge);
  memset (&onion, 0, sizeof onion);
  if (donar_torctl_parse_add_onion (reply, &onion) == DONAR_TORCTL_OK) {
    FUZZ_CHECK (onion.service_id != NULL);
    donar_torctl_onion_clear (&onion);
  }
  if (donar_torctl_parse_getinfo (reply, &values) == DONAR_TORCTL_OK) {
    GHashTableIter iter;
    gpointer key, value;

    g_hash_table_iter_init (&iter, values);
    while (g_hash_table_iter_next (&iter, &key, &value))
      parse_value (value);
    g_hash_table_unref (values);
  }
  memset (&bootstrap, 0, sizeof bootstrap);
  if (donar_torctl_parse_bootstrap_event (reply, &bootstrap) == DONAR_TORCTL_OK)
    donar_torctl_bootstrap_clear (&bootstrap);
  memset (&circuit, 0, sizeof circuit);
  if (donar_torctl_parse_circuit_event (reply, &circuit) == DONAR_TORCTL_OK) {
    read_path (&circuit);
    donar_torctl_circuit_clear (&circuit);
  }

  for (guint i = 0; i < reply->n_lines; i++)
    parse_line (&reply->lines[i]);
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  DonarTorctlReader *reader;
  DonarTorctlError error = DONAR_TORCTL_OK;
  gsize chunk;

  if (size < 1)
    return 0;
  chunk = (gsize) data[0] + 1;
  data++;
  size--;

  reader = donar_torctl_reader_new ();
  while (size > 0 && error == DONAR_TORCTL_OK) {
    gsize length = MIN (size, chunk);
    /* A heap copy of exactly the chunk: a read past it is seen. */
    guint8 *copy = g_memdup2 (data, length);
    const guint8 *p = copy;
    gsize left = length;

    while (TRUE) {
      DonarTorctlReply *reply = NULL;

      error = donar_torctl_reader_next (reader, &p, &left, &reply);
      if (error != DONAR_TORCTL_OK) {
        FUZZ_CHECK (reply == NULL);
        break;
      }
      if (reply == NULL) {
        FUZZ_CHECK (left == 0);
        break;
      }
      parse_reply (reply);
      donar_torctl_reply_free (reply);
    }
    g_free (copy);
    data += length;
    size -= length;
  }
  if (error == DONAR_TORCTL_OK)
    donar_torctl_reader_finish (reader);
  else
    FUZZ_CHECK (donar_torctl_reader_finish (reader) == error);
  donar_torctl_reader_free (reader);
  return 0;
}
