/* See test-spawn.h. */
#include "test-spawn.h"

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

static void
die_with_parent (gpointer data)
{
  prctl (PR_SET_PDEATHSIG, SIGTERM);
  /* The test may have died between the fork and the prctl. */
  if (getppid () != GPOINTER_TO_INT (data))
    raise (SIGTERM);
}

/* The signal is sent at the death of the thread that forked: tests spawn
 * from their main thread. */
GSubprocess *
test_spawn (GSubprocessFlags flags, const gchar * const *argv, GError ** error)
{
  g_autoptr (GSubprocessLauncher) launcher = g_subprocess_launcher_new (flags);

  g_subprocess_launcher_set_child_setup (launcher, die_with_parent,
      GINT_TO_POINTER (getpid ()), NULL);
  return g_subprocess_launcher_spawnv (launcher, argv, error);
}
