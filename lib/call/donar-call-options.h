/* The versions of DonarCallOptions (donar-call.h,
 * DONAR_CALL_OPTIONS_VERSION), for the files of the call that take
 * them.  Not installed. */
#ifndef DONAR_CALL_OPTIONS_H
#define DONAR_CALL_OPTIONS_H

#include "donar-call.h"

G_BEGIN_DECLS

/* A shallow copy of the caller's options of its version, the rest at its
 * default (no string of its own); an unknown version is
 * DONAR_CALL_ERROR_OPTIONS. */
gboolean donar_call_options_read (gint options_version,
    const DonarCallOptions * options, DonarCallOptions * latest,
    GError ** error);
/* latest into the caller's options of its version, as much as it holds. */
void donar_call_options_write (gint options_version,
    const DonarCallOptions * latest, DonarCallOptions * options);

G_END_DECLS

#endif /* DONAR_CALL_OPTIONS_H */
