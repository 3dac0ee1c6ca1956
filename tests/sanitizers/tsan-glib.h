/* Force-included (-include) in a ThreadSanitizer build, for our sources
 * only: GLib's GMutex and GCond sit on futexes, not on the pthread calls
 * TSan intercepts, and Debian's GLib is not instrumented, so TSan sees no
 * order across g_mutex_lock () and reports every access under one as a
 * race (docs/link-engine.md, "ThreadSanitizer").  This tells it the order
 * each lock gives, keyed on the lock, as the lock itself would. */
#ifndef DONAR_TSAN_GLIB_H
#define DONAR_TSAN_GLIB_H
/* Sources without GLib (none of its locks to tell) are left as they are. */
#if __has_include(<glib.h>)

#include <glib.h>
#include <sanitizer/tsan_interface.h>

static inline void
donar_tsan_mutex_lock (GMutex * mutex)
{
  (g_mutex_lock) (mutex);
  __tsan_acquire (mutex);
}

static inline gboolean
donar_tsan_mutex_trylock (GMutex * mutex)
{
  if (!(g_mutex_trylock) (mutex))
    return FALSE;
  __tsan_acquire (mutex);
  return TRUE;
}

static inline void
donar_tsan_mutex_unlock (GMutex * mutex)
{
  __tsan_release (mutex);
  (g_mutex_unlock) (mutex);
}

/* The wait lets the mutex go and takes it back; a signal or broadcast
 * orders what came before it in the signalling thread before the wake. */
static inline void
donar_tsan_cond_wait (GCond * cond, GMutex * mutex)
{
  __tsan_release (mutex);
  (g_cond_wait) (cond, mutex);
  __tsan_acquire (mutex);
  __tsan_acquire (cond);
}

static inline gboolean
donar_tsan_cond_wait_until (GCond * cond, GMutex * mutex, gint64 end_time)
{
  gboolean woken;

  __tsan_release (mutex);
  woken = (g_cond_wait_until) (cond, mutex, end_time);
  __tsan_acquire (mutex);
  __tsan_acquire (cond);
  return woken;
}

static inline void
donar_tsan_cond_signal (GCond * cond)
{
  __tsan_release (cond);
  (g_cond_signal) (cond);
}

static inline void
donar_tsan_cond_broadcast (GCond * cond)
{
  __tsan_release (cond);
  (g_cond_broadcast) (cond);
}

#define g_mutex_lock donar_tsan_mutex_lock
#define g_mutex_trylock donar_tsan_mutex_trylock
#define g_mutex_unlock donar_tsan_mutex_unlock
#define g_cond_wait donar_tsan_cond_wait
#define g_cond_wait_until donar_tsan_cond_wait_until
#define g_cond_signal donar_tsan_cond_signal
#define g_cond_broadcast donar_tsan_cond_broadcast

#endif
#endif
