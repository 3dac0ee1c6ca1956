/* The elements of the `donar` plugin (registered by gstdonar.c). */
#ifndef __GST_DONAR_ELEMENTS_H__
#define __GST_DONAR_ELEMENTS_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/* The author in every element's metadata, in the "Name <address>" form
 * that gst-inspect-1.0 shows: the project's identity (its commits'). */
#define GST_DONAR_AUTHOR "DONAR developers <dev@donar.invalid>"

/* The elements of the plugin, one line each: the name given to
 * GST_ELEMENT_REGISTER_DEFINE in the element's source file.  gstdonar.c
 * registers them all; add the source file to gst/meson.build too. */
#define GST_DONAR_ELEMENTS(E) \
  E (donarjitterbuffer) \
  E (donarrtcpdemux) \
  E (donarsink) \
  E (donarsrc)

#define GST_DONAR_DECLARE_ELEMENT(name) GST_ELEMENT_REGISTER_DECLARE (name);
GST_DONAR_ELEMENTS (GST_DONAR_DECLARE_ELEMENT)
#undef GST_DONAR_DECLARE_ELEMENT

G_END_DECLS

#endif /* __GST_DONAR_ELEMENTS_H__ */
