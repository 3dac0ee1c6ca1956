/* Why a caller's link did not come up (donar-link-failure.h). */
#include "donar-link-failure.h"

const gchar *
donar_link_failure_to_string (DonarLinkFailure failure)
{
  switch (failure) {
    case DONAR_LINK_FAILURE_NONE:
      return "none";
    case DONAR_LINK_FAILURE_DIALING:
      return "dialing";
    case DONAR_LINK_FAILURE_TOR_TIMEOUT:
      return "tor-timeout";
    case DONAR_LINK_FAILURE_TOR_FAILED:
      return "tor-failed";
    case DONAR_LINK_FAILURE_NO_HELLO:
      return "no-hello";
    case DONAR_LINK_FAILURE_ONION_UNREACHABLE:
      return "onion-unreachable";
    case DONAR_LINK_FAILURE_RENDEZVOUS:
      return "rendezvous-failed";
    case DONAR_LINK_FAILURE_INTRODUCTION:
      return "introduction-failed";
    case DONAR_LINK_FAILURE_DESCRIPTOR_INVALID:
      return "descriptor-invalid";
    case DONAR_LINK_FAILURE_DESCRIPTOR_NOT_FOUND:
      return "descriptor-not-found";
    case DONAR_LINK_FAILURE_ONION_REFUSED:
      return "onion-refused";
    case DONAR_LINK_FAILURE_WRONG_SECRET:
      return "wrong-secret";
    case DONAR_LINK_FAILURE_CLIENT_AUTH_MISSING:
      return "client-auth-missing";
    case DONAR_LINK_FAILURE_CLIENT_AUTH_WRONG:
      return "client-auth-wrong";
    case DONAR_LINK_FAILURE_BAD_ONION_ADDRESS:
      return "bad-onion-address";
    case DONAR_LINK_FAILURE_SOCKS_SILENT:
      return "socks-silent";
    case DONAR_LINK_FAILURE_SOCKS_NOT_SOCKS:
      return "socks-not-socks";
    case DONAR_LINK_FAILURE_SOCKS_HTTP:
      return "socks-http";
    case DONAR_LINK_FAILURE_CONNECT_REFUSED:
      return "connect-refused";
  }
  return "unknown";
}

const gchar *
donar_link_failure_explain (DonarLinkFailure failure, gboolean through_tor)
{
  switch (failure) {
    case DONAR_LINK_FAILURE_NONE:
      return "no dial has failed yet";
    case DONAR_LINK_FAILURE_DIALING:
      return "Tor has not answered the dials yet (it fetches the callee's "
          "descriptor and builds circuits): Tor's network is slow from here";
    case DONAR_LINK_FAILURE_TOR_TIMEOUT:
      return "Tor opened no stream to the callee's onion in time: Tor's "
          "network is slow or blocked from here, or the callee's tor is down";
    case DONAR_LINK_FAILURE_TOR_FAILED:
      return "Tor could not open a stream to the callee's onion (a plain "
          "SOCKS failure: a SocksPort with ExtendedErrors would say why): "
          "the callee is likely not running";
    case DONAR_LINK_FAILURE_NO_HELLO:
      return "Tor opened streams to the callee's onion, but no DONAR callee "
          "answered on them";
    case DONAR_LINK_FAILURE_ONION_UNREACHABLE:
      return "Tor could not find or reach the callee's onion (SOCKS host "
          "unreachable: a SocksPort with ExtendedErrors would say which): the "
          "callee is not running, or the address is wrong";
    case DONAR_LINK_FAILURE_RENDEZVOUS:
      return "Tor reached the callee's onion but the rendezvous failed: "
          "Tor's network is troubled, or the callee's tor went away";
    case DONAR_LINK_FAILURE_INTRODUCTION:
      return "Tor found the callee's onion but its introduction failed: the "
          "callee is not running any more";
    case DONAR_LINK_FAILURE_DESCRIPTOR_INVALID:
      return "the callee's onion descriptor is invalid: the address is wrong";
    case DONAR_LINK_FAILURE_DESCRIPTOR_NOT_FOUND:
      return "Tor found no descriptor of the callee's onion: the callee is "
          "not running (or not published yet), or the address is wrong";
    case DONAR_LINK_FAILURE_ONION_REFUSED:
      return "the callee's onion refused the connection: its tor is up but "
          "no callee listens behind it (its call has ended)";
    case DONAR_LINK_FAILURE_WRONG_SECRET:
      return "the peer closed the link on our greeting: wrong secret, or not "
          "a DONAR callee";
    case DONAR_LINK_FAILURE_CLIENT_AUTH_MISSING:
      return "the callee's onion needs client authorization and the address "
          "carries no key (&auth=): ask the callee for the whole address";
    case DONAR_LINK_FAILURE_CLIENT_AUTH_WRONG:
      return "the callee's onion refused our client authorization: the "
          "address's key (&auth=) is not one the callee allows";
    case DONAR_LINK_FAILURE_BAD_ONION_ADDRESS:
      return "Tor says the onion address is invalid: check the address";
    case DONAR_LINK_FAILURE_SOCKS_SILENT:
      return "tor's SocksPort took the connection but never answered in "
          "SOCKS: it is not a SocksPort (a ControlPort?), or tor is stuck";
    case DONAR_LINK_FAILURE_SOCKS_NOT_SOCKS:
      return "tor's SocksPort did not answer in SOCKS5: it is not a "
          "SocksPort";
    case DONAR_LINK_FAILURE_SOCKS_HTTP:
      return "tor's SocksPort answered in HTTP: it is an HTTPTunnelPort or a "
          "web server, not a SocksPort";
    case DONAR_LINK_FAILURE_CONNECT_REFUSED:
      return through_tor ? "nothing listens on tor's SocksPort: tor is not "
          "running, or the port is wrong" : "nothing listens at the "
          "callee's port: the callee is gone";
  }
  return "unknown";
}

DonarLinkFailure
donar_link_failure_from_socks (DonarSocksError error, DonarSocksStage stage,
    gint first_byte)
{
  switch (error) {
    case DONAR_SOCKS_ERROR_ONION_DESCRIPTOR_NOT_FOUND:
      return DONAR_LINK_FAILURE_DESCRIPTOR_NOT_FOUND;
    case DONAR_SOCKS_ERROR_ONION_DESCRIPTOR_INVALID:
      return DONAR_LINK_FAILURE_DESCRIPTOR_INVALID;
    case DONAR_SOCKS_ERROR_ONION_INTRODUCTION_FAILED:
    case DONAR_SOCKS_ERROR_ONION_INTRODUCTION_TIMED_OUT:
      return DONAR_LINK_FAILURE_INTRODUCTION;
    case DONAR_SOCKS_ERROR_ONION_RENDEZVOUS_FAILED:
      return DONAR_LINK_FAILURE_RENDEZVOUS;
    case DONAR_SOCKS_ERROR_ONION_MISSING_CLIENT_AUTH:
      return DONAR_LINK_FAILURE_CLIENT_AUTH_MISSING;
    case DONAR_SOCKS_ERROR_ONION_BAD_CLIENT_AUTH:
      return DONAR_LINK_FAILURE_CLIENT_AUTH_WRONG;
    case DONAR_SOCKS_ERROR_ONION_BAD_ADDRESS:
      return DONAR_LINK_FAILURE_BAD_ONION_ADDRESS;
    case DONAR_SOCKS_ERROR_CONNECTION_REFUSED:
      return DONAR_LINK_FAILURE_ONION_REFUSED;
    case DONAR_SOCKS_ERROR_HOST_UNREACHABLE:
      return DONAR_LINK_FAILURE_ONION_UNREACHABLE;
    default:
      break;
  }
  /* What breaks SOCKS at the greeting is a port that speaks something
   * else; HTTP's replies begin "HTTP/". */
  if (stage == DONAR_SOCKS_STAGE_METHOD)
    return first_byte == 'H' ? DONAR_LINK_FAILURE_SOCKS_HTTP :
        DONAR_LINK_FAILURE_SOCKS_NOT_SOCKS;
  return DONAR_LINK_FAILURE_TOR_FAILED;
}

DonarLinkFailure
donar_link_failure_max (DonarLinkFailure a, DonarLinkFailure b)
{
  return MAX (a, b);
}
