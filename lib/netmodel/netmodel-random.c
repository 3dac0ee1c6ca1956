/* Random draws of the link model: seeded GRand streams for the slow
 * processes, a stateless hash for per-packet draws. */
#include <math.h>

#include "netmodel-private.h"

GRand *
donar_random_new (guint64 seed, guint64 identity)
{
  /* The whole 64 bits of both go into the Mersenne Twister's seed, so that
   * neighbouring seeds or identities give unrelated streams. */
  guint32 words[4] = {
    (guint32) seed, (guint32) (seed >> 32),
    (guint32) identity, (guint32) (identity >> 32)
  };

  return g_rand_new_with_seed_array (words, G_N_ELEMENTS (words));
}

gdouble
donar_random_exponential (GRand * rand, gdouble mean)
{
  /* g_rand_double is in [0, 1): 1 - u is never 0. */
  return -mean * log (1.0 - g_rand_double (rand));
}

static gdouble
standard_normal (GRand * rand)
{
  /* Box-Muller; one of the pair is enough here. */
  gdouble u1 = 1.0 - g_rand_double (rand);
  gdouble u2 = g_rand_double (rand);

  return sqrt (-2.0 * log (u1)) * cos (2.0 * G_PI * u2);
}

gdouble
donar_random_lognormal (GRand * rand, gdouble median, gdouble sigma)
{
  return median * exp (sigma * standard_normal (rand));
}

gdouble
donar_random_pareto (GRand * rand, gdouble minimum, gdouble alpha)
{
  return minimum / pow (1.0 - g_rand_double (rand), 1.0 / alpha);
}

/* The finaliser of splitmix64: a bijection of 64-bit words whose output
 * bits all depend on all input bits. */
static inline guint64
mix64 (guint64 x)
{
  x ^= x >> 30;
  x *= G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
  x ^= x >> 27;
  x *= G_GUINT64_CONSTANT (0x94d049bb133111eb);
  x ^= x >> 31;
  return x;
}

guint64
donar_hash (guint64 seed, guint64 a, guint64 b, guint64 c)
{
  guint64 golden = G_GUINT64_CONSTANT (0x9e3779b97f4a7c15);

  guint64 h = mix64 (seed + golden);

  h = mix64 (h ^ a) + golden;
  h = mix64 (h ^ b) + golden;
  return mix64 (h ^ c);
}

guint64
donar_hash_next (guint64 h)
{
  return mix64 (h + G_GUINT64_CONSTANT (0x9e3779b97f4a7c15));
}

gdouble
donar_hash_uniform (guint64 h)
{
  /* The top 53 bits: a double in [0, 1). */
  return (h >> 11) * (1.0 / 9007199254740992.0);
}
