/* The versioned structs of the installed headers, inside the library
 * (docs/api.md, "Versioned structs").  A program passes, with each struct
 * it allocates, the version of it that its headers declared
 * (DONAR_CONFIG_VERSION, ...): the library reads and writes that many
 * bytes and no more, so that a program built before a struct grew goes on
 * working with the library after.  Not installed. */
#ifndef DONAR_VERSIONED_H
#define DONAR_VERSIONED_H

#include <glib.h>
#include <string.h>

G_BEGIN_DECLS

/* A struct's versions: sizes[v - 1] is the bytes of version v, the
 * latest sizeof the struct, an older one the offset of the first field it
 * lacks (fields are only ever appended). */
typedef struct
{
  const gchar *name;
  const gsize *sizes;
  guint n_versions;
} DonarVersioned;

#define DONAR_VERSIONED_DEFINE(var, Type, ...) \
  static const gsize var##_sizes[] = { __VA_ARGS__ }; \
  static const DonarVersioned var = { #Type, var##_sizes, \
    G_N_ELEMENTS (var##_sizes) }

/* The bytes of version `version`; 0, said as a failed check, for one
 * this library does not know: the program was built against a later
 * libdonar than the one it runs with, and its struct holds fields we
 * cannot read.  (g_return_if_fail's warning, not g_critical: the
 * sans-I/O libraries call no g_log, tests/unit/sans-io.sh.) */
static inline gsize
donar_versioned_size (const DonarVersioned * versioned, gint version)
{
  if (version < 1 || (guint) version > versioned->n_versions) {
    g_return_if_fail_warning (G_LOG_DOMAIN, versioned->name,
        "version is one this libdonar knows (the program was built "
        "against a later libdonar)");
    return 0;
  }
  return versioned->sizes[version - 1];
}

/* For the functions that take a GError: an unknown version as the error
 * domain's (code), not a critical. */
static inline gboolean
donar_versioned_known (const DonarVersioned * versioned, gint version,
    GQuark domain, gint code, GError ** error)
{
  if (version >= 1 && (guint) version <= versioned->n_versions)
    return TRUE;
  g_set_error (error, domain, code, "%s version %d is unknown to this "
      "libdonar (it knows 1 to %u): the program was built against a later "
      "one", versioned->name, version, versioned->n_versions);
  return FALSE;
}

/* Copies the bytes of version `version` between a caller's struct and
 * one of the latest version: from the caller's over *latest, which holds
 * what that version lacks (defaults: zero, NULL callbacks), or from
 * *latest into the caller's, no byte past its end.  FALSE for an unknown
 * version, or NULL: a failed check either way, as every function that
 * takes a struct would otherwise need its own (docs/api.md,
 * "Contracts"). */
static inline gboolean
donar_versioned_copy (const DonarVersioned * versioned, gint version,
    const void *from, void *to)
{
  gsize size = donar_versioned_size (versioned, version);

  if (size == 0)
    return FALSE;
  if (from == NULL || to == NULL) {
    g_return_if_fail_warning (G_LOG_DOMAIN, versioned->name,
        "the struct is not NULL");
    return FALSE;
  }
  memcpy (to, from, size);
  return TRUE;
}

/* Fills a struct of the latest version with its defaults. */
typedef void (*DonarVersionedDefaults) (gpointer latest);

/* The caller's struct of `version` over the defaults in *latest. */
static inline gboolean
donar_versioned_over_defaults (const DonarVersioned * versioned,
    gint version, gconstpointer from, gpointer latest,
    DonarVersionedDefaults defaults)
{
  defaults (latest);
  return donar_versioned_copy (versioned, version, from, latest);
}

/* The defaults into the caller's struct of `version`. */
static inline void
donar_versioned_defaults (const DonarVersioned * versioned, gint version,
    gpointer to, DonarVersionedDefaults defaults)
{
  gpointer latest = g_alloca (versioned->sizes[versioned->n_versions - 1]);

  defaults (latest);
  donar_versioned_copy (versioned, version, latest, to);
}

/* A config's is_valid: valid of the caller's struct of `version` over
 * the defaults; FALSE for an unknown version. */
static inline gboolean
donar_versioned_is_valid (const DonarVersioned * versioned, gint version,
    gconstpointer from, DonarVersionedDefaults defaults,
    gboolean (*valid) (gconstpointer latest))
{
  gpointer latest = g_alloca (versioned->sizes[versioned->n_versions - 1]);

  return donar_versioned_over_defaults (versioned, version, from, latest,
      defaults) && valid (latest);
}

/* An init function's: the defaults in *latest into the caller's struct,
 * or, for an unknown version, latest cleared (what it allocated freed). */
static inline void
donar_versioned_init (const DonarVersioned * versioned, gint version,
    gpointer latest, gpointer to, GDestroyNotify clear)
{
  if (!donar_versioned_copy (versioned, version, latest, to) && clear)
    clear (latest);
}

G_END_DECLS

#endif /* DONAR_VERSIONED_H */
