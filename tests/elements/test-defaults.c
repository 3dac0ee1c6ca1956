/* One source of defaults (issue 34): the library's DONAR_DEFAULT_* and
 * DONAR_CALL_DEFAULT_* are what donar_config_init () and
 * donar_call_options_init () set, what donarsink's and donarsrc's
 * properties default to (their GParamSpecs, as gst-inspect-1.0 shows them,
 * and a new element's values), and what donar-call, donar-sim and
 * donar-demo say in their --help.  A default changed in one place only
 * fails here. */
#include "elements-test.h"
#include "test-spawn.h"

#include <donar.h>
#include <donar-call.h>

#include <string.h>

/* What the library fills in: the constants, through its own inits. */
static void
test_library (void)
{
  DonarConfig config;
  DonarCallOptions options;

  donar_config_init (&config);
  g_assert_cmpuint (config.n_links, ==, DONAR_DEFAULT_LINKS);
  g_assert_cmpuint (config.n_1st, ==, DONAR_DEFAULT_N_1ST);
  g_assert_cmpuint (config.n_2nd, ==, DONAR_DEFAULT_N_2ND);
  g_assert_cmpint (config.window_us, ==, DONAR_DEFAULT_WINDOW_US);
  g_assert_cmpint (config.policy, ==, DONAR_DEFAULT_POLICY);
  g_assert_cmpint (config.policy, ==, DONAR_POLICY_ADAPTIVE);
  g_assert_cmpuint (config.redundancy, ==, DONAR_DEFAULT_REDUNDANCY);
  g_assert_cmpint (config.frame_period_us, ==, DONAR_DEFAULT_FRAME_PERIOD_US);
  g_assert_cmpuint (config.alarm_frames, ==, DONAR_DEFAULT_ALARM_FRAMES);
  g_assert_cmpfloat (config.budget, ==, DONAR_DEFAULT_BUDGET);
  g_assert_cmpint (config.deadline_us, ==, DONAR_DEFAULT_DEADLINE_US);
  g_assert_cmpint (config.spread_copies, ==, DONAR_DEFAULT_SPREAD_COPIES);
  g_assert_cmpint (donar_config_validate (&config), ==, DONAR_OK);

  /* The call's, the link engine's protocol settings among them. */
  for (DonarRole role = DONAR_ROLE_CALLER; role <= DONAR_ROLE_CALLEE; role++) {
    donar_call_options_init (&options, role);
    g_assert_cmpmem (&options.engine.config, sizeof config, &config,
        sizeof config);
    g_assert_cmpuint (options.setup_timeout_ms, ==,
        DONAR_CALL_DEFAULT_SETUP_TIMEOUT_MS);
    g_assert_cmpuint (options.num_entry_guards, ==, DONAR_CALL_DEFAULT_GUARDS);
    g_assert_cmpuint (options.virtual_port, ==,
        DONAR_CALL_DEFAULT_VIRTUAL_PORT);
    g_assert_cmpint (options.security, ==, DONAR_TOR_SECURITY_DEFAULT);
    g_assert_cmpint (options.engine.peer_timeout_us, ==,
        DONAR_LINK_ENGINE_DEFAULT_PEER_TIMEOUT_US);
    donar_call_options_clear (&options);
  }
}

typedef struct
{
  const gchar *name;
  gdouble value;                /* an enum's, a boolean's or a uint's too */
} Default;

static void
expected_value (GParamSpec * pspec, gdouble number, GValue * value)
{
  g_value_init (value, pspec->value_type);
  switch (G_TYPE_FUNDAMENTAL (pspec->value_type)) {
    case G_TYPE_UINT:
      g_value_set_uint (value, (guint) number);
      break;
    case G_TYPE_DOUBLE:
      g_value_set_double (value, number);
      break;
    case G_TYPE_BOOLEAN:
      g_value_set_boolean (value, number != 0);
      break;
    case G_TYPE_ENUM:
      g_value_set_enum (value, (gint) number);
      break;
    default:
      g_assert_not_reached ();
  }
}

static void
check_element (const gchar * factory, const Default * defaults, guint n)
{
  GstElement *element = gst_element_factory_make (factory, NULL);
  GObjectClass *klass;

  g_assert_nonnull (element);
  klass = G_OBJECT_GET_CLASS (element);
  for (guint i = 0; i < n; i++) {
    GParamSpec *pspec = g_object_class_find_property (klass,
        defaults[i].name);
    GValue expected = G_VALUE_INIT, value = G_VALUE_INIT;
    g_autofree gchar *want = NULL, *shown = NULL, *has = NULL;

    g_assert_nonnull (pspec);
    expected_value (pspec, defaults[i].value, &expected);
    want = g_strdup_value_contents (&expected);
    /* What gst-inspect-1.0 shows. */
    shown = g_strdup_value_contents (g_param_spec_get_default_value (pspec));
    g_test_message ("%s %s: library %s, GParamSpec %s", factory,
        defaults[i].name, want, shown);
    g_assert_cmpstr (shown, ==, want);
    /* What a new element has: its instance init agrees. */
    g_value_init (&value, pspec->value_type);
    g_object_get_property (G_OBJECT (element), defaults[i].name, &value);
    has = g_strdup_value_contents (&value);
    g_assert_cmpstr (has, ==, want);
    g_value_unset (&value);
    g_value_unset (&expected);
  }
  gst_object_unref (element);
}

static void
test_elements (void)
{
  DonarCallOptions o;

  donar_call_options_init (&o, DONAR_ROLE_CALLER);
  {
    const Default defaults[] = {
      {"links", o.engine.config.n_links},
      {"n1st", o.engine.config.n_1st},
      {"n2nd", o.engine.config.n_2nd},
      {"window", (gdouble) o.engine.config.window_us / 1000},
      {"policy", o.engine.config.policy},
      {"budget", o.engine.config.budget},
      {"redundancy", o.engine.config.redundancy},
      {"spread-copies", o.engine.config.spread_copies},
      {"security", o.security},
      {"guards", o.num_entry_guards},
      {"setup-timeout", o.setup_timeout_ms / 1000},
      {"peer-timeout", (gdouble) o.engine.peer_timeout_us / G_USEC_PER_SEC},
    };

    check_element ("donarsink", defaults, G_N_ELEMENTS (defaults));
    check_element ("donarsrc", defaults, G_N_ELEMENTS (defaults));
  }
  donar_call_options_clear (&o);
}

/* The --help of the program in the environment variable. */
static gchar *
help_of (const gchar * variable)
{
  const gchar *program = g_getenv (variable);
  const gchar *argv[] = { program, "--help", NULL };
  GError *error = NULL;
  GSubprocess *process;
  gchar *out = NULL;

  g_assert_nonnull (program);
  process = test_spawn (G_SUBPROCESS_FLAGS_STDOUT_PIPE |
      G_SUBPROCESS_FLAGS_STDERR_SILENCE, argv, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_communicate_utf8 (process, NULL, NULL, &out,
          NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_successful (process));
  g_object_unref (process);
  return out;
}

/* That the --help line of option says text (GOption writes one line an
 * option). */
static void
check_help (const gchar * help, const gchar * option, const gchar * text)
{
  g_autofree gchar *with_arg = g_strdup_printf ("  %s=", option);
  g_autofree gchar *alone = g_strdup_printf ("  %s ", option);
  const gchar *start = strstr (help, with_arg);
  g_autofree gchar *line = NULL;

  if (start == NULL)
    start = strstr (help, alone);
  g_assert_nonnull (start);
  line = g_strndup (start, strcspn (start, "\n"));
  g_test_message ("%s: %s", line, text);
  g_assert_nonnull (strstr (line, text));
}

static gchar *
in_parentheses (guint value)
{
  return g_strdup_printf ("(%u)", value);
}

/* An option, and what its --help line must say (freed here). */
typedef struct
{
  const gchar *option;
  gchar *text;
} Said;

static void
check_helps (const gchar * variable, Said * said, guint n)
{
  g_autofree gchar *help = help_of (variable);

  for (guint i = 0; i < n; i++) {
    check_help (help, said[i].option, said[i].text);
    g_free (said[i].text);
  }
}

static void
test_donar_call (void)
{
  Said said[] = {
    {"--links", in_parentheses (DONAR_DEFAULT_LINKS)},
    {"--n1st", in_parentheses (DONAR_DEFAULT_N_1ST)},
    {"--n2nd", in_parentheses (DONAR_DEFAULT_N_2ND)},
    {"--budget", g_strdup_printf ("(%.1f)", DONAR_DEFAULT_BUDGET)},
    {"--policy", g_strdup_printf ("%s (default)",
            donar_policy_to_string (DONAR_DEFAULT_POLICY))},
    {DONAR_DEFAULT_SPREAD_COPIES ? "--spread-copies" : "--no-spread-copies",
        g_strdup ("(default)")},
    {"--setup-timeout",
        in_parentheses (DONAR_CALL_DEFAULT_SETUP_TIMEOUT_MS / 1000)},
    {"--peer-timeout", g_strdup_printf ("(%g)",
            (gdouble) DONAR_LINK_ENGINE_DEFAULT_PEER_TIMEOUT_US /
              G_USEC_PER_SEC)},
    {"--guards", g_strdup_printf ("to %u (%u)", DONAR_CALL_MAX_GUARDS,
            DONAR_CALL_DEFAULT_GUARDS)},
    {"--virtual-port", in_parentheses (DONAR_CALL_DEFAULT_VIRTUAL_PORT)},
    {"--frame-ms", in_parentheses (DONAR_DEFAULT_FRAME_PERIOD_US / 1000)},
  };

  check_helps ("DONAR_CALL", said, G_N_ELEMENTS (said));
}

/* donar-sim's policy is the evaluation's (double-send, the paper's
 * tables), not the product's; its protocol settings are the library's. */
static void
test_donar_sim (void)
{
  Said said[] = {
    {"--links", g_strdup_printf ("(%u;", DONAR_DEFAULT_LINKS)},
    {"--n1st", in_parentheses (DONAR_DEFAULT_N_1ST)},
    {"--n2nd", in_parentheses (DONAR_DEFAULT_N_2ND)},
    {"--window-ms", in_parentheses (DONAR_DEFAULT_WINDOW_US / 1000)},
    {"--frame-ms", in_parentheses (DONAR_DEFAULT_FRAME_PERIOD_US / 1000)},
    {"--redundancy", in_parentheses (DONAR_DEFAULT_REDUNDANCY)},
    {"--budget", g_strdup_printf ("(%.1f)", DONAR_DEFAULT_BUDGET)},
    {"--alarm-frames", in_parentheses (DONAR_DEFAULT_ALARM_FRAMES)},
    {"--deadline-ms", in_parentheses (DONAR_DEFAULT_DEADLINE_US / 1000)},
    {DONAR_DEFAULT_SPREAD_COPIES ? "--spread-copies" : "--no-spread-copies",
        g_strdup ("(default)")},
  };

  check_helps ("DONAR_SIM", said, G_N_ELEMENTS (said));
}

static void
test_donar_demo (void)
{
  Said said[] = {
    {"--policy", g_strdup_printf ("%s (default)",
            donar_policy_to_string (DONAR_DEFAULT_POLICY))},
  };

  check_helps ("DONAR_DEMO", said, G_N_ELEMENTS (said));
}

int
main (int argc, char **argv)
{
  gboolean check_leaks = elements_test_init (&argc, &argv);
  int ret;

  g_test_add_func ("/defaults/library", test_library);
  g_test_add_func ("/defaults/elements", test_elements);
  g_test_add_func ("/defaults/donar-call", test_donar_call);
  g_test_add_func ("/defaults/donar-sim", test_donar_sim);
  g_test_add_func ("/defaults/donar-demo", test_donar_demo);
  ret = g_test_run ();
  return elements_test_finish (ret, check_leaks);
}
