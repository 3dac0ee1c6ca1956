/**
 * plugin-donar:
 *
 * Anonymous voice calls over Tor onion links with telephone quality (DONAR):
 * `donarsink` and `donarsrc` carry RTP (and RTCP) over the call's links,
 * `donarjitterbuffer` tunes the playout delay in front of the decoder,
 * `donarrtcpdemux` takes RTCP muxed with the RTP apart for `rtpbin`.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstdonarelements.h"

/* ret |= GST_ELEMENT_REGISTER (donarjitterbuffer, plugin); and so on. */
#define GST_DONAR_REGISTER_ELEMENT(name) \
  ret |= GST_ELEMENT_REGISTER (name, plugin);

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ret = FALSE;

  GST_DONAR_ELEMENTS (GST_DONAR_REGISTER_ELEMENT);

  return ret;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, donar,
    "DONAR: anonymous voice calls over Tor with telephone quality",
    plugin_init, VERSION, GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
