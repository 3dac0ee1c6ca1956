/* What the torclient tests share: the private network of
 * tests/tor-network (started once by run-torclient.sh, which passes its
 * ports in TOR_* variables), the callee tor that /torclient/callee/join
 * launches for the tests after it, and helpers around them. */
#ifndef TORCLIENT_TEST_NET_H
#define TORCLIENT_TEST_NET_H

#include "donar-torclient.h"

G_BEGIN_DECLS

#define TIMEOUT_MS (15 * 1000)
/* ADD_ONION to HS_DESC UPLOADED takes about 1.2 s on the private network. */
#define UPLOAD_TIMEOUT_MS (30 * 1000)
#define BOOTSTRAP_TIMEOUT_MS (60 * 1000)

typedef struct
{
  guint16 control_port;
  guint16 socks_port;
  guint16 socks_extended_port;  /* with ExtendedErrors */
  const gchar *cookie;
  const gchar *torrc_include;
  const gchar *pids_file;
  /* The callee's tor, launched by /torclient/callee/join. */
  DonarTorLauncher *callee;
} TorclientTestNet;

extern TorclientTestNet torclient_net;

/* From the TOR_* variables; aborts outside run-torclient.sh. */
void torclient_net_init (void);
DonarTorControl *torclient_connect_network_client (void);
/* Connected and authenticated. */
DonarTorControl *torclient_open_network_client (void);
/* GETINFO of one key (asserts success). */
gchar *torclient_getinfo (DonarTorControl * control, const gchar * key);
guint torclient_launched_left (void);
gdouble torclient_seconds_since (gint64 start);
/* A tor of that security, joined to the network and bootstrapped. */
DonarTorLauncher *torclient_launch_joined (DonarTorSecurity security,
    guint num_entry_guards, DonarTorProgressFunc progress,
    gpointer progress_data);

/* test-torclient-onion.c: the tests over onion services, after
 * /torclient/callee/join. */
void torclient_add_onion_tests (void);

G_END_DECLS

#endif /* TORCLIENT_TEST_NET_H */
