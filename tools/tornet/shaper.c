/* What the parts of donar-shaper share: its clock and its log. */
#include "shaper.h"

#include <stdarg.h>

gint64
shaper_now (Shaper * s)
{
  /* CLOCK_MONOTONIC, the clock of libevent's precise timers too. */
  return g_get_monotonic_time () - s->origin_us;
}

void
shaper_log (Shaper * s, const char *format, ...)
{
  va_list args;

  if (s->log == NULL)
    return;
  va_start (args, format);
  vfprintf (s->log, format, args);
  va_end (args);
  fputc ('\n', s->log);
}
