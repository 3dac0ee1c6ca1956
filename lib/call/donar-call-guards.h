/* What a call does to the guards of a running tor it was given
 * (donar-call-tor-control.h), and undoes at its end: a step of
 * donar_call_start () and donar_call_free (), over the control client,
 * which is not installed; so this is not either. */
#ifndef DONAR_CALL_GUARDS_H
#define DONAR_CALL_GUARDS_H

#include "donar-call.h"
#include "donar-tor-control.h"

G_BEGIN_DECLS

/* What donar_call_guards_apply changed on a running tor, to undo. */
typedef struct
{
  guint n;                      /* 0: nothing */
  gchar *keys[2];
  gchar *values[2];             /* NULL: tor's default */
} DonarCallGuardsUndo;

/* A running tor's guards against options' num_entry_guards and
 * guards_explicit (donar-call.h): left alone with a warning if fewer, or
 * set by SETCONF (both NumEntryGuards and NumPrimaryGuards when needed),
 * what it replaced kept in *undo.  Never fails the call: what goes wrong
 * goes to warn. */
void donar_call_guards_apply (DonarTorControl * control,
    const DonarCallOptions * options, DonarCallGuardsUndo * undo,
    DonarCallWarningFunc warn, gpointer user_data, gint64 deadline,
    GCancellable * cancellable);

/* Puts back what *undo holds (at the end of the call), then clears it. */
void donar_call_guards_undo (DonarTorControl * control,
    DonarCallGuardsUndo * undo, gint64 deadline);

G_END_DECLS

#endif /* DONAR_CALL_GUARDS_H */
