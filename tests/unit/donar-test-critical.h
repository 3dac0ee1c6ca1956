/* Misuse of an installed function is a g_critical that does nothing
 * (docs/api.md, "Contracts"): the tests of it expect the message, which
 * g_test_init () would otherwise make fatal. */
#ifndef DONAR_TEST_CRITICAL_H
#define DONAR_TEST_CRITICAL_H

#include <glib.h>

#define EXPECT_CRITICAL(pattern, call) G_STMT_START { \
  g_test_expect_message (NULL, G_LOG_LEVEL_CRITICAL, pattern); \
  call; \
  g_test_assert_expected_messages (); \
} G_STMT_END

#endif /* DONAR_TEST_CRITICAL_H */
