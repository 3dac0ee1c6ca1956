/* The donar:// URI (gstdonaruri.h).  Its parameters are call properties by
 * name, each value read as gst-launch-1.0 reads the property's (through
 * its GParamSpec): a URI is all a gst-launch-1.0 line can give an element
 * it makes from one (no property may follow it), and all playbin's uri
 * gives its source. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstdonaruri.h"

#include "donar-call-address.h"
#include "donar-secret.h"

#include <gst/base/gstbasesrc.h>

#include <math.h>
#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_donar_uri_debug);
#define GST_CAT_DEFAULT gst_donar_uri_debug

/* The call properties a URI sets.  Not address (the URI is one), callee
 * (the callee form says it), uri, stats (read-only), nor tor-password: the
 * uri property gives the parameters back, where the password property is
 * write-only, and GStreamer logs a URI whole, which for a callee's is no
 * secret otherwise. */
static const gchar *const uri_params[] = {
  "call", "tor-control", "tor-socks", "tor-socks-path", "tor-cookie-file",
  "setup-timeout", "guards", "security", "links", "n1st", "n2nd", "window",
  "policy", "budget", "spread-copies", "redundancy", "peer-timeout",
  "client-auth", "key-file", "client-auth-dir", "address-file",
  "stats-interval", NULL
};

typedef struct
{
  GParamSpec *pspec;
  GValue value;
} Param;

/* The GstDonarCallSettings id of a call property: the elements install
 * them from an offset of their own, address first. */
static guint
setting_id (GObjectClass * klass, GParamSpec * pspec)
{
  GParamSpec *address = g_object_class_find_property (klass, "address");

  return pspec->param_id - (address->param_id - GST_DONAR_CALL_PROP_ADDRESS);
}

static gchar *
expected (GParamSpec * pspec)
{
  if (G_IS_PARAM_SPEC_UINT (pspec)) {
    GParamSpecUInt *u = G_PARAM_SPEC_UINT (pspec);

    return g_strdup_printf ("a whole number from %u to %u", u->minimum,
        u->maximum);
  }
  if (G_IS_PARAM_SPEC_DOUBLE (pspec)) {
    GParamSpecDouble *d = G_PARAM_SPEC_DOUBLE (pspec);

    return g_strdup_printf ("a number from %g to %g", d->minimum, d->maximum);
  }
  if (G_IS_PARAM_SPEC_ENUM (pspec)) {
    GEnumClass *k = G_PARAM_SPEC_ENUM (pspec)->enum_class;
    GString *text = g_string_new ("one of");

    for (guint i = 0; i < k->n_values; i++)
      g_string_append_printf (text, "%s %s", i ? "," : "",
          k->values[i].value_nick);
    return g_string_free (text, FALSE);
  }
  if (G_IS_PARAM_SPEC_BOOLEAN (pspec))
    return g_strdup ("true or false");
  return g_strdup ("a value of the property");
}

/* text as the value of pspec's property, as gst-launch-1.0 would take it
 * for name=text, but refused where the property would clamp it. */
static gboolean
read_value (GParamSpec * pspec, const gchar * text, GValue * value,
    GError ** error)
{
  gboolean ok;
  gchar *want;

  g_value_init (value, G_PARAM_SPEC_VALUE_TYPE (pspec));
  if (G_VALUE_HOLDS_STRING (value)) {
    /* As it is: gst_value_deserialize () would take quotes off a path. */
    g_value_set_string (value, text);
    return TRUE;
  }
  ok = gst_value_deserialize_with_pspec (value, text, pspec) &&
      !g_param_value_validate (pspec, value);
  /* A NaN passes GLib's range check. */
  if (ok && G_VALUE_HOLDS_DOUBLE (value))
    ok = isfinite (g_value_get_double (value));
  if (ok)
    return TRUE;
  want = expected (pspec);
  g_set_error (error, GST_URI_ERROR, GST_URI_ERROR_BAD_URI,
      "donar:// URI parameter %s: \"%s\" is not %s",
      g_param_spec_get_name (pspec), text, want);
  g_free (want);
  return FALSE;
}

static gboolean
read_param (GObjectClass * klass, const gchar * name, const gchar * text,
    Param * param, GError ** error)
{
  if (g_strcmp0 (name, "tor-password") == 0) {
    g_set_error (error, GST_URI_ERROR, GST_URI_ERROR_BAD_URI,
        "tor-password is not a donar:// URI parameter (the uri property "
        "reads back what the URI set, and GStreamer logs URIs): set the "
        "property, or give tor-cookie-file");
    return FALSE;
  }
  if (!g_strv_contains (uri_params, name)) {
    gchar *known = g_strjoinv (", ", (gchar **) uri_params);

    g_set_error (error, GST_URI_ERROR, GST_URI_ERROR_BAD_URI,
        "unknown donar:// URI parameter \"%s\" (a call address takes secret "
        "and auth, then, as the callee form does: %s)", name, known);
    g_free (known);
    return FALSE;
  }
  param->pspec = g_object_class_find_property (klass, name);
  return read_value (param->pspec, text, &param->value, error);
}

/* Every parameter is read before any is set: a URI is taken whole or not
 * at all, and only before the call, as each property. */
static gboolean
set_uri (GstDonarCallClient * client, const gchar * text, GError ** error)
{
  GstElement *element = client->element;
  GObjectClass *klass = G_OBJECT_GET_CLASS (element);
  GstDonarCallSettings *s = &client->settings;
  DonarCallUri uri;
  GError *parse_error = NULL;
  Param *params;
  guint n, i;
  gboolean ok = TRUE;

  /* The parser's messages name the part that is wrong, never a secret:
   * they may go to the log or to the user. */
  if (!donar_call_uri_parse (text, &uri, &parse_error)) {
    g_set_error (error, GST_URI_ERROR, GST_URI_ERROR_BAD_URI,
        "Not a DONAR URI: %s", parse_error->message);
    g_error_free (parse_error);
    return FALSE;
  }
  n = g_strv_length (uri.names);
  params = g_new0 (Param, n);
  for (i = 0; ok && i < n; i++)
    ok = read_param (klass, uri.names[i], uri.values[i], &params[i], error);

  if (ok) {
    GST_OBJECT_LOCK (element);
    if (client->call) {
      g_set_error (error, GST_URI_ERROR, GST_URI_ERROR_BAD_STATE,
          "The URI cannot change during a call (only in NULL or READY)");
      ok = FALSE;
    } else {
      s->callee = uri.callee;
      donar_secret_free (s->address);
      s->address = g_strdup (uri.callee ? "" : uri.address);
      for (i = 0; i < n; i++)
        gst_donar_call_settings_set (s, setting_id (klass, params[i].pspec),
            &params[i].value);
      g_strfreev (client->uri_params);
      client->uri_params = g_strdupv (uri.names);
      g_clear_pointer (&client->uri_error, g_free);
    }
    GST_OBJECT_UNLOCK (element);
  }
  if (ok) {
    GST_DEBUG_OBJECT (element, "took a %s URI with %u parameters",
        uri.callee ? "callee" : "caller", n);
    /* Neither the address nor the uri is notified: gst-launch-1.0 -v
     * prints what is, and they hold the secret. */
    g_object_freeze_notify (G_OBJECT (element));
    g_object_notify (G_OBJECT (element), "callee");
    for (i = 0; i < n; i++)
      g_object_notify_by_pspec (G_OBJECT (element), params[i].pspec);
    g_object_thaw_notify (G_OBJECT (element));
  }
  for (i = 0; i < n; i++)
    if (G_IS_VALUE (&params[i].value))
      g_value_unset (&params[i].value);
  g_free (params);
  donar_call_uri_clear (&uri);
  return ok;
}

void
gst_donar_call_client_set_uri_property (GstDonarCallClient * client,
    const GValue * value)
{
  GError *error = NULL;

  if (set_uri (client, g_value_get_string (value), &error))
    return;
  GST_WARNING_OBJECT (client->element, "uri refused: %s", error->message);
  /* During a call the call keeps its settings, and the next start must
   * not fail for it. */
  if (error->code != GST_URI_ERROR_BAD_STATE) {
    GST_OBJECT_LOCK (client->element);
    g_free (client->uri_error);
    client->uri_error = g_strdup (error->message);
    GST_OBJECT_UNLOCK (client->element);
  }
  g_error_free (error);
}

/* A setting as a URI value: an enum by its nick, as read_value () takes
 * it back. */
static gchar *
write_value (const GValue * value)
{
  if (G_VALUE_HOLDS_STRING (value))
    return g_value_dup_string (value);
  if (G_VALUE_HOLDS_ENUM (value)) {
    GEnumClass *k = g_type_class_ref (G_VALUE_TYPE (value));
    GEnumValue *v = g_enum_get_value (k, g_value_get_enum (value));
    gchar *nick = g_strdup (v ? v->value_nick : "");

    g_type_class_unref (k);
    return nick;
  }
  return gst_value_serialize (value);
}

gchar *
gst_donar_call_client_get_uri (GstDonarCallClient * client)
{
  GObjectClass *klass = G_OBJECT_GET_CLASS (client->element);
  GstDonarCallSettings *s = &client->settings;
  GPtrArray *values = g_ptr_array_new ();
  DonarCallUri uri = { 0 };
  gchar *text;

  GST_OBJECT_LOCK (client->element);
  uri.callee = s->callee || s->address[0] == '\0';
  /* Borrowed, not copied: the address is a secret. */
  uri.address = uri.callee ? NULL : s->address;
  uri.names = client->uri_params;
  for (guint i = 0; uri.names && uri.names[i]; i++) {
    GParamSpec *pspec = g_object_class_find_property (klass, uri.names[i]);
    GValue value = G_VALUE_INIT;

    g_value_init (&value, G_PARAM_SPEC_VALUE_TYPE (pspec));
    gst_donar_call_settings_get (s, setting_id (klass, pspec), &value);
    g_ptr_array_add (values, write_value (&value));
    g_value_unset (&value);
  }
  g_ptr_array_add (values, NULL);
  uri.values = (gchar **) values->pdata;
  text = donar_call_uri_to_string (&uri);
  GST_OBJECT_UNLOCK (client->element);
  g_strfreev ((gchar **) g_ptr_array_free (values, FALSE));
  return text;
}

static GstURIType
uri_get_type (GType type)
{
  return g_type_is_a (type, GST_TYPE_BASE_SRC) ? GST_URI_SRC : GST_URI_SINK;
}

static const gchar *const *
uri_get_protocols (GType type)
{
  static const gchar *const protocols[] = { "donar", NULL };

  return protocols;
}

/* The address property gives back the whole address, secret included, to
 * whoever may read the element's properties; the URI holds the same
 * string, for without its secret it could neither dial nor be set back. */
static gchar *
uri_get_uri (GstURIHandler * handler)
{
  return gst_donar_call_client_get_uri (gst_donar_call_client_get
      (GST_ELEMENT (handler)));
}

static gboolean
uri_set_uri (GstURIHandler * handler, const gchar * uri, GError ** error)
{
  GError *set_error = NULL;

  if (set_uri (gst_donar_call_client_get (GST_ELEMENT (handler)), uri,
          &set_error))
    return TRUE;
  /* gst-launch-1.0 drops the error of a URI in its line (it says "no sink
   * element for URI"): the reason is in the log at least. */
  GST_WARNING_OBJECT (handler, "URI refused: %s", set_error->message);
  g_propagate_error (error, set_error);
  return FALSE;
}

void
gst_donar_call_uri_handler_init (gpointer g_iface, gpointer iface_data)
{
  GstURIHandlerInterface *iface = g_iface;

  if (gst_donar_uri_debug == NULL)
    GST_DEBUG_CATEGORY_INIT (gst_donar_uri_debug, "donaruri", 0,
        "The donar:// URI of donarsink and donarsrc");
  iface->get_type = uri_get_type;
  iface->get_protocols = uri_get_protocols;
  iface->get_uri = uri_get_uri;
  iface->set_uri = uri_set_uri;
}
