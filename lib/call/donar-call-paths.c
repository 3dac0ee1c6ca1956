/* A caller's paths from tor's circuits (donar-call-paths.h). */
#include "donar-call-paths.h"

static void
tell_engine (DonarLinkEngine * engine, const DonarTorctlCircuit * circuit)
{
  guint64 relays[DONAR_MAX_PATH_RELAYS];
  guint n_relays;

  if (donar_torctl_circuit_stream_path (circuit, relays,
          G_N_ELEMENTS (relays), &n_relays))
    donar_link_engine_set_circuit_path (engine, circuit->socks_username,
        relays, n_relays);
}

static void
on_circuit_event (DonarTorControl * control, const DonarTorctlReply * event,
    gpointer user_data)
{
  DonarTorctlCircuit circuit;

  /* A CIRC event we cannot read tells nothing: it is dropped. */
  if (donar_torctl_parse_circuit_event (event, &circuit) != DONAR_TORCTL_OK)
    return;
  tell_engine (user_data, &circuit);
  donar_torctl_circuit_clear (&circuit);
}

gboolean
donar_call_paths_watch (DonarTorControl * control, DonarLinkEngine * engine,
    gint64 deadline, GCancellable * cancellable, GError ** error)
{
  const gchar *const events[] = { "CIRC", NULL };

  donar_tor_control_set_event_handler (control, on_circuit_event, engine, NULL);
  return donar_tor_control_setevents (control, events, deadline, cancellable,
      error);
}

gboolean
donar_call_paths_lookup (DonarTorControl * control, DonarLinkEngine * engine,
    gint64 deadline, GCancellable * cancellable, GError ** error)
{
  g_autoptr (GPtrArray) circuits = donar_tor_control_get_circuits (control,
      deadline, cancellable, error);

  if (circuits == NULL)
    return FALSE;
  for (guint i = 0; i < circuits->len; i++)
    tell_engine (engine, g_ptr_array_index (circuits, i));
  return TRUE;
}
