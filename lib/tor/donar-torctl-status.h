/* Parsers of what tor says about its own state: the bootstrap phase
 * (GETINFO status/bootstrap-phase and STATUS_CLIENT BOOTSTRAP events,
 * control-spec 4.1.10) and circuits (GETINFO circuit-status and CIRC
 * events, 4.1.1).  Errors as in donar-torctl-parse.h. */
#ifndef DONAR_TORCTL_STATUS_H
#define DONAR_TORCTL_STATUS_H

#include "donar-torctl-reader.h"

G_BEGIN_DECLS

typedef struct
{
  gchar *severity;              /* NOTICE, WARN or ERR */
  guint progress;               /* 0 to 100 */
  gchar *tag;
  gchar *summary;               /* or NULL */
  gchar *warning;               /* NULL unless tor reports a problem */
  gchar *reason;                /* idem */
} DonarTorctlBootstrap;

/* text: the value of status/bootstrap-phase ("NOTICE BOOTSTRAP
 * PROGRESS=..."). */
DonarTorctlError donar_torctl_parse_bootstrap (const gchar * text,
    DonarTorctlBootstrap * bootstrap);

/* A STATUS_CLIENT event (donar_torctl_reply_is_event tells it); another
 * status action than BOOTSTRAP gives DONAR_TORCTL_ERROR_MALFORMED. */
DonarTorctlError donar_torctl_parse_bootstrap_event (const DonarTorctlReply
    * reply, DonarTorctlBootstrap * bootstrap);
void donar_torctl_bootstrap_clear (DonarTorctlBootstrap * bootstrap);

typedef enum
{
  DONAR_TORCTL_CIRCUIT_UNKNOWN,        /* a status this code does not know */
  DONAR_TORCTL_CIRCUIT_LAUNCHED,
  DONAR_TORCTL_CIRCUIT_BUILT,
  DONAR_TORCTL_CIRCUIT_GUARD_WAIT,
  DONAR_TORCTL_CIRCUIT_EXTENDED,
  DONAR_TORCTL_CIRCUIT_FAILED,
  DONAR_TORCTL_CIRCUIT_CLOSED,
} DonarTorctlCircuitState;

typedef struct
{
  gchar *id;
  DonarTorctlCircuitState state;
  gchar **path;                 /* NULL-terminated LongNames, maybe empty */
  gchar **build_flags;          /* NULL-terminated, maybe empty */
  gchar *purpose;               /* each NULL when absent */
  gchar *rend_query;
  gchar *socks_username;
  gchar *socks_password;
} DonarTorctlCircuit;

/* One line of circuit-status. */
DonarTorctlError donar_torctl_parse_circuit (const gchar * text,
    DonarTorctlCircuit * circuit);

/* A CIRC event: its first line has the same fields. */
DonarTorctlError donar_torctl_parse_circuit_event (const DonarTorctlReply *
    reply, DonarTorctlCircuit * circuit);
void donar_torctl_circuit_clear (DonarTorctlCircuit * circuit);

/* Every line of a circuit-status value, as a GPtrArray of
 * DonarTorctlCircuit that frees them. */
DonarTorctlError donar_torctl_parse_circuit_status (const gchar * value,
    GPtrArray ** circuits);

G_END_DECLS

#endif /* DONAR_TORCTL_STATUS_H */
