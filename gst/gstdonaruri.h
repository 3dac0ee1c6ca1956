/* The donar:// URI of donarsink and donarsrc (docs/elements.md, "The
 * donar:// URI"): their GstURIHandler and the uri property. */
#ifndef __GST_DONAR_URI_H__
#define __GST_DONAR_URI_H__

#include "gstdonarcall.h"

G_BEGIN_DECLS

void gst_donar_call_uri_handler_init (gpointer g_iface, gpointer iface_data);
/* The uri property.  A URI refused is kept in client->uri_error, for
 * start () to fail with: setting a property cannot. */
void gst_donar_call_client_set_uri_property (GstDonarCallClient * client,
    const GValue * value);
/* What get_uri () gives: the address (a secret) or donar://callee, and the
 * last URI's parameters with their properties' values now. */
gchar *gst_donar_call_client_get_uri (GstDonarCallClient * client);

G_END_DECLS
#endif /* __GST_DONAR_URI_H__ */
