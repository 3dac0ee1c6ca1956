/* The paths of a call's links from tor's circuits (donar-call-paths.h). */
#include "donar-call-paths.h"

typedef struct
{
  DonarLinkEngine *engine;
  gchar *service_id;
} Watch;

static void
watch_free (gpointer data)
{
  Watch *watch = data;

  g_free (watch->service_id);
  g_free (watch);
}

static void
tell_engine (DonarLinkEngine * engine, const gchar * service_id,
    const DonarTorctlCircuit * circuit)
{
  guint64 relays[DONAR_MAX_PATH_RELAYS];
  guint n_relays;

  if (service_id == NULL) {
    if (donar_torctl_circuit_stream_path (circuit, relays,
            G_N_ELEMENTS (relays), &n_relays))
      donar_link_engine_set_circuit_path (engine, circuit->socks_username,
          relays, n_relays);
  } else if (donar_torctl_circuit_service_path (circuit, service_id, relays,
          G_N_ELEMENTS (relays), &n_relays)) {
    donar_link_engine_set_service_circuit (engine, circuit->id, relays,
        n_relays);
  } else if (donar_torctl_circuit_service_gone (circuit, service_id)) {
    donar_link_engine_set_service_circuit (engine, circuit->id, NULL, 0);
  }
}

static void
on_circuit_event (DonarTorControl * control, const DonarTorctlReply * event,
    gpointer user_data)
{
  Watch *watch = user_data;
  DonarTorctlCircuit circuit;

  /* A CIRC event we cannot read tells nothing: it is dropped. */
  if (donar_torctl_parse_circuit_event (event, &circuit) != DONAR_TORCTL_OK)
    return;
  tell_engine (watch->engine, watch->service_id, &circuit);
  donar_torctl_circuit_clear (&circuit);
}

gboolean
donar_call_paths_watch (DonarTorControl * control, DonarLinkEngine * engine,
    const gchar * service_id, gint64 deadline, GCancellable * cancellable,
    GError ** error)
{
  const gchar *const events[] = { "CIRC", NULL };
  Watch *watch = g_new0 (Watch, 1);

  watch->engine = engine;
  watch->service_id = g_strdup (service_id);
  donar_tor_control_set_event_handler (control, on_circuit_event, watch,
      watch_free);
  return donar_tor_control_setevents (control, events, deadline, cancellable,
      error);
}

gboolean
donar_call_paths_lookup (DonarTorControl * control, DonarLinkEngine * engine,
    const gchar * service_id, gint64 deadline, GCancellable * cancellable,
    GError ** error)
{
  g_autoptr (GPtrArray) circuits = donar_tor_control_get_circuits (control,
      deadline, cancellable, error);

  if (circuits == NULL)
    return FALSE;
  for (guint i = 0; i < circuits->len; i++)
    tell_engine (engine, service_id, g_ptr_array_index (circuits, i));
  return TRUE;
}
