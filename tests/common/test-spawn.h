/* A process that a test starts and that must not outlive it. */
#ifndef TEST_SPAWN_H
#define TEST_SPAWN_H

#include <gio/gio.h>

G_BEGIN_DECLS

/* Spawns argv (NULL-terminated) with flags; the kernel sends it SIGTERM
 * when the test dies first (an assertion aborts before any stop). */
GSubprocess *test_spawn (GSubprocessFlags flags, const gchar * const *argv,
    GError ** error);

G_END_DECLS

#endif /* TEST_SPAWN_H */
