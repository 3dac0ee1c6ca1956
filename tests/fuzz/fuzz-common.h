/* Shared by the fuzz targets: a check that aborts (so that libFuzzer saves
 * the input) whatever NDEBUG says, and the fixed call secret whose keys the
 * seed corpora are made with (gen-corpus.c). */
#ifndef DONAR_FUZZ_COMMON_H
#define DONAR_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define FUZZ_CHECK(condition) \
  do { \
    if (!(condition)) { \
      fprintf (stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, \
          #condition); \
      abort (); \
    } \
  } while (0)

/* 32 bytes, as the callee draws it. */
#define FUZZ_SECRET \
  ((const guint8 *) "DONAR fuzz secret, 32 bytes long")
#define FUZZ_SECRET_LENGTH 32
/* The nonce of fuzz-session's link 0 (its CHALLENGE): the seeds' HELLO
 * answers it. */
#define FUZZ_NONCE ((const guint8 *) "DONAR fuzz nonce")

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

#endif /* DONAR_FUZZ_COMMON_H */
