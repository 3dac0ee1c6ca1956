/* Settings with the product's defaults (DONAR_DEFAULT_*, donar.h), and the
 * names of the enums. */
#include "donar-session-private.h"
#include "donar-versioned.h"

#include <string.h>

DONAR_VERSIONED_DEFINE (config_versions, DonarConfig, sizeof (DonarConfig));

static void
config_init (DonarConfig * config)
{
  memset (config, 0, sizeof *config);
  config->n_links = DONAR_DEFAULT_LINKS;
  config->n_1st = DONAR_DEFAULT_N_1ST;
  config->n_2nd = DONAR_DEFAULT_N_2ND;
  config->window_us = DONAR_DEFAULT_WINDOW_US;
  config->policy = DONAR_DEFAULT_POLICY;
  config->redundancy = DONAR_DEFAULT_REDUNDANCY;
  config->frame_period_us = DONAR_DEFAULT_FRAME_PERIOD_US;
  /* A copy handed over 200 ms ago needs a link faster than 160 ms to meet
   * the 360 ms deadline; older copies only take room. */
  config->max_piggyback_age_us = 200 * 1000;
  /* 0: the n1ST + n2ND latest frames, the links in use (section 4.1). */
  config->recent_frames = 0;
  config->max_record = DONAR_CELL_PAYLOAD;
  config->merge = DONAR_MERGE_MEAN;
  config->alarm_frames = DONAR_DEFAULT_ALARM_FRAMES;
  config->seed = 0;
  config->budget = DONAR_DEFAULT_BUDGET;
  config->deadline_us = DONAR_DEFAULT_DEADLINE_US;
  config->spread_copies = DONAR_DEFAULT_SPREAD_COPIES;
}

guint
donar_config_recent_frames (const DonarConfig * config)
{
  return config->recent_frames ? config->recent_frames :
      config->n_1st + config->n_2nd;
}

guint8
donar_config_wire_parts (const DonarConfig * config)
{
  return config->policy == DONAR_POLICY_ADAPTIVE ? DONAR_WIRE_PART_ADAPTIVE :
      DONAR_WIRE_PART_SCORES;
}

void
donar_config_init_versioned (gint config_version, DonarConfig * config)
{
  donar_versioned_defaults (&config_versions, config_version, config,
      (DonarVersionedDefaults) config_init);
}

/* The caller's config of its version, what that version lacks at its
 * default. */
gboolean
donar_config_from_versioned (gint config_version, const DonarConfig * config,
    DonarConfig * latest)
{
  return donar_versioned_over_defaults (&config_versions, config_version,
      config, latest, (DonarVersionedDefaults) config_init);
}

static gsize
config_record_overhead (const DonarConfig * config, guint n_frames)
{
  return donar_wire_overhead (donar_config_wire_parts (config),
      config->n_links,
      donar_config_recent_frames (config) * DONAR_SCHEDULER_MAX_SENDS,
      n_frames);
}

gsize
donar_config_record_overhead_versioned (gint config_version,
    const DonarConfig * config, guint n_frames)
{
  DonarConfig latest;

  if (!donar_config_from_versioned (config_version, config, &latest))
    return 0;
  return config_record_overhead (&latest, n_frames);
}

static DonarError
config_validate (const DonarConfig * config)
{
  if (config->n_links < 1 || config->n_links > DONAR_MAX_LINKS)
    return DONAR_ERROR_INVALID_ARGUMENT;
  if (config->n_1st < 1 || config->n_1st + config->n_2nd > config->n_links)
    return DONAR_ERROR_INVALID_ARGUMENT;
  if (config->window_us <= 0 || config->frame_period_us <= 0 ||
      config->max_piggyback_age_us < 0 || config->deadline_us <= 0)
    return DONAR_ERROR_INVALID_ARGUMENT;
  if (config->redundancy > DONAR_MAX_REDUNDANCY)
    return DONAR_ERROR_INVALID_ARGUMENT;
  if (donar_config_recent_frames (config) * DONAR_SCHEDULER_MAX_SENDS >
      DONAR_WIRE_MAX_RECENT)
    return DONAR_ERROR_INVALID_ARGUMENT;
  if (config->max_record > DONAR_CELL_PAYLOAD ||
      config->max_record < donar_wire_overhead (donar_config_wire_parts
          (config), config->n_links,
          donar_config_recent_frames (config) * DONAR_SCHEDULER_MAX_SENDS,
          1) + 1)
    return DONAR_ERROR_INVALID_ARGUMENT;
  switch (config->policy) {
    case DONAR_POLICY_SIMPLE:
    case DONAR_POLICY_ALTERNATE:
      break;
    case DONAR_POLICY_ADAPTIVE:
      if (!(config->budget >= 1.0 &&
              config->budget <= DONAR_SCHEDULER_MAX_SENDS))
        return DONAR_ERROR_INVALID_ARGUMENT;
      break;
    case DONAR_POLICY_TORFONE:
    case DONAR_POLICY_DOUBLE_SEND:
      if (config->n_links < 2)
        return DONAR_ERROR_INVALID_ARGUMENT;
      break;
    default:
      return DONAR_ERROR_INVALID_ARGUMENT;
  }
  /* An alarm needs a frame still in the monitor's memory. */
  if (config->alarm_frames >= DONAR_MONITOR_HISTORY / 2)
    return DONAR_ERROR_INVALID_ARGUMENT;
  if (config->merge > DONAR_MERGE_REMOTE)
    return DONAR_ERROR_INVALID_ARGUMENT;
  return DONAR_OK;
}

DonarError
donar_config_validate_versioned (gint config_version,
    const DonarConfig * config)
{
  DonarConfig latest;

  if (!donar_config_from_versioned (config_version, config, &latest))
    return DONAR_ERROR_INVALID_ARGUMENT;
  return config_validate (&latest);
}

const char *
donar_error_to_string (DonarError error)
{
  switch (error) {
    case DONAR_OK:
      return "no error";
    case DONAR_ERROR_INVALID_ARGUMENT:
      return "invalid argument or setting";
    case DONAR_ERROR_TRUNCATED:
      return "message truncated";
    case DONAR_ERROR_OVERSIZE:
      return "message larger than one Tor cell payload";
    case DONAR_ERROR_UNKNOWN_VERSION:
      return "unknown protocol version";
    case DONAR_ERROR_UNKNOWN_TYPE:
      return "unknown message type";
    case DONAR_ERROR_BAD_LENGTH:
      return "a length field disagrees with the message size";
    case DONAR_ERROR_MALFORMED:
      return "malformed message";
    case DONAR_ERROR_EMPTY_FRAME:
      return "zero-length frame";
    case DONAR_ERROR_BAD_AUTHENTICATOR:
      return "bad authenticator: not a link of this call";
    case DONAR_ERROR_NOT_AUTHENTICATED:
      return "data on a link before its HELLO";
    case DONAR_ERROR_BAD_LINK:
      return "link id out of range or not the link it arrived on";
    case DONAR_ERROR_FRAME_TOO_LARGE:
      return "frame too large for one message";
    case DONAR_ERROR_NO_LINK:
      return "no link is up";
    case DONAR_ERROR_STALE:
      return "link of the peer's previous session";
    case DONAR_ERROR_STREAM_BROKEN:
      return "link stream broken by an earlier error";
    case DONAR_ERROR_CALL_ENDED:
      return "the call has ended";
    case DONAR_ERROR_REPLAY:
      return "a HELLO that answers another connection's nonce: a replay";
    case DONAR_ERROR_UNEXPECTED:
      return "a message out of place in the link's opening";
  }
  return "unknown error";
}

const char *
donar_bye_reason_to_string (DonarByeReason reason)
{
  switch (reason) {
    case DONAR_BYE_HUNG_UP:
      return "hung up";
    case DONAR_BYE_FAILED:
      return "its application failed";
    case DONAR_BYE_REJECTED:
      return "rejected the call";
    case DONAR_BYE_UNKNOWN:
      break;
  }
  return "no reason given";
}

static const char *policy_names[] = {
  "simple", "torfone", "alternate", "double-send", "adaptive",
};

const char *
donar_policy_to_string (DonarPolicy policy)
{
  if ((guint) policy >= G_N_ELEMENTS (policy_names))
    return "unknown";
  return policy_names[policy];
}

gboolean
donar_policy_from_string (const char *name, DonarPolicy * policy)
{
  g_return_val_if_fail (policy != NULL, FALSE);
  for (guint i = 0; i < G_N_ELEMENTS (policy_names); i++)
    if (g_strcmp0 (name, policy_names[i]) == 0) {
      *policy = i;
      return TRUE;
    }
  return FALSE;
}

const char *
donar_group_to_string (DonarGroup group)
{
  switch (group) {
    case DONAR_GROUP_1ST:
      return "1st";
    case DONAR_GROUP_2ND:
      return "2nd";
    case DONAR_GROUP_INACTIVE:
      return "inactive";
  }
  return "unknown";
}
