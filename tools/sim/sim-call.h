/* One simulated call: both endpoints of lib/core, unchanged, over the Tor
 * link model, in virtual time. */
#ifndef SIM_CALL_H
#define SIM_CALL_H

#include "donar.h"
#include "donar-netmodel.h"

G_BEGIN_DECLS

enum
{
  SIM_PATHS_OWN,
  SIM_PATHS_CALLER,
  SIM_PATHS_NONE,
};

#define SIM_LOST G_MAXINT32

#define SIM_MAX_CROSS_TRAFFIC 8

/* Bulk downloads through a guard for a while (seed 003). */
typedef struct
{
  gint64 start_us;
  gint64 duration_us;
  DonarCrossTraffic traffic;
} SimCrossTraffic;

/* Tor's stream window (STREAMWINDOW_START): cells a stream's edge
 * packages before the far edge acknowledges them. */
#define SIM_STREAM_WINDOW_CELLS 500

struct _SimProbe;

typedef struct
{
  gboolean oracle;
  /* Which sides learn their half of each circuit (their guard), as tor's
   * circuit-status tells it: SIM_PATHS_OWN both, SIM_PATHS_CALLER only
   * the caller (as the link engine does today), SIM_PATHS_NONE neither. */
  guint paths;
  DonarPolicy policy;           /* or, for the oracle, the policy it bounds */
  guint oracle_sends;
  gint64 oracle_lag_us;         /* the oracle's news is this old */
  DonarSecurity security;
  /* The link model's parameters (docs/netmodel.md) when net_params_set;
   * otherwise those of donar_net_model_params_init (security). */
  gboolean net_params_set;
  DonarNetModelParams net_params;
  DonarConfig config;           /* n_links etc.; seed set per call */
  gsize frame_bytes;
  gint64 duration_us;
  guint64 seed;
  const char *trace_dir;
  guint n_cross_traffic;
  SimCrossTraffic cross_traffic[SIM_MAX_CROSS_TRAFFIC];
  /* A frame later than this is late for the listener. */
  gint64 deadline_us;
  /* A frame later than this is missing, as if lost (the dropped-call
   * rule). */
  gint64 drop_after_us;
  /* Faults (issue 7): a link that is up, drawn at random, killed every
   * kill_every_us (0: never), what it carried lost and a new circuit
   * built; and every link cut for cut_duration_us from cut_at_us (the
   * circuits live on, but nothing arrives before the cut's end, as over a
   * local network outage).  The oracle knows neither.  During a cut each
   * link holds, each way, at most stream_window_cells records (0: tor's
   * stream window, SIM_STREAM_WINDOW_CELLS), a record a cell as DONAR
   * writes them: tor stops reading the stream once its window is full
   * (issue 26).  The sim has no model of the link engine's queue, whose
   * records the writer would then drop: the records beyond the window
   * are lost, and counted. */
  gint64 kill_every_us;
  gint64 cut_at_us;
  gint64 cut_duration_us;
  guint stream_window_cells;
  /* Guard 0 of side guard_failure_side (0: the caller, 1: the callee)
   * fails for good at guard_failure_at_us: the links through it fail, and
   * every circuit built afterwards takes that side's guard 1
   * (donar_net_model_fail_guard). */
  gboolean guard_failure;
  gint64 guard_failure_at_us;
  guint guard_failure_side;
  /* The callee's process dies at peer_restart_at_us and is back
   * peer_down_us later with a new session (same secret): every link
   * breaks, and the caller dials each again after the link engine's
   * backoff (donar_backoff_delay: 0.5 s doubling to 30 s, jittered); a
   * dial whose circuit is ready while the callee is down fails. */
  gboolean peer_restart;
  gint64 peer_restart_at_us;
  gint64 peer_down_us;
  /* The callee hands over no frame (a listener, as the README's demo):
   * the caller's frames are the call, and all its news of its links comes
   * in the callee's acknowledgements. */
  gboolean one_way;
  /* Called every probe_every_us of virtual time (at the first frame from
   * then on) and once at the end of the call, before anything is freed
   * (the soak test); 0: never. */
  gint64 probe_every_us;
  /* Keep every record sent, with its link's guards (SimCallResult.sends):
   * what tells which links a stretch of late frames went on. */
  gboolean log_sends;
  void (*probe) (const struct _SimProbe * probe, gpointer user_data);
  gpointer probe_data;
} SimSettings;

/* A look inside a running call. */
typedef struct _SimProbe
{
  gint64 now;
  /* Bytes the buffers of records in flight hold (their capacity): they
   * follow the longest backlog a link has had, not the call's length. */
  gsize fifo_bytes;
  /* Frames sent so far, per direction. */
  guint frames;
} SimProbe;

typedef struct
{
  guint n_frames;               /* per direction */
  gboolean one_way;             /* only direction 0 carries frames */
  /* One-way latency (µs) of each frame, by direction (0: caller to
   * callee); SIM_LOST when it never came. */
  gint32 *latency_us[2];
  guint64 bytes_sent;           /* records on the wire, both directions */
  guint64 messages_sent;
  guint64 link_failures;
  guint64 links_killed;         /* by kill_every_us */
  guint64 dials_failed;         /* the callee was down */
  guint64 records_over_window;  /* lost to a cut's full stream window */
  /* ADAPTIVE: frames sent while no link was known to deliver in time
   * (DonarSessionStats.stalled_frames), both sides. */
  guint64 stalled_frames;
  /* With log_sends: CSV rows dir,frame,link,caller_guard,callee_guard, a
   * record each (frame: the one being sent when it left; a guard -1 where
   * the side has none). */
  GString *sends;
} SimCallResult;

/* The seed of call `index` of a run: calls of one run differ, runs with
 * the same seed repeat. */
guint64 sim_call_seed (guint64 run_seed, guint index);

/* Parses `start_s,duration_s,flows[,kib_per_s[,side[,guard]]]` (defaults
 * 100 KiB/s, the caller's side, its first guard). */
gboolean sim_cross_traffic_parse (const char *spec, DonarSecurity security,
    SimCrossTraffic * out, GError ** error);

/* Parses --guard-failure `at_s[,side]` (side 0, the caller, by default)
 * into settings->guard_failure*. */
gboolean sim_guard_failure_parse (const char *spec, SimSettings * settings,
    GError ** error);

/* Runs call `index`: both sessions of lib/core, or the oracle when
 * settings->oracle. */
gboolean sim_run_call (const SimSettings * settings, guint index,
    SimCallResult * result, GError ** error);
void sim_call_result_clear (SimCallResult * result);

G_END_DECLS

#endif /* SIM_CALL_H */
