#!/usr/bin/env python3
"""Logs tor's own queue instrumentation from the control ports of a tor
network's tors (issue 23, item 5: which tor holds the voice cells).

    cell-stats.py --out DIR --tor NAME=SPEC [--tor NAME=SPEC]...
        [--events CELL_STATS,BW,CONN_BW,CIRC_BW,ORCONN,CIRC]

SPEC is either a node directory of tests/tor-network/tor-network.sh
(its `control-port` file, written by ControlPortWriteToFile, and its
`control_auth_cookie`: the relays with TOR_NETWORK_CELL_STATS=1), or
PORT:COOKIE_FILE (a client's tor). For each tor, one thread: it waits for
the control port (up to 120 s), authenticates with the cookie (COOKIE),
sets TestingEnableCellStatsEvent 1 and TestingEnableConnBwEvent 1 (tor
accepts them with TestingTorNetwork, which the network sets; the relays
already have them in their torrc), subscribes to the events and writes
every event line to DIR/NAME.events as

    MONO WALL 650 CELL_STATS ...

With --dump-every S, every S seconds it also asks tor for SIGNAL DUMP and
keeps, for a second, the INFO log events of that dump that name a
connection: each connection's peer and the bytes on its inbuf and outbuf
(tor's dumpstats), which CELL_STATS does not cover.

MONO is CLOCK_MONOTONIC in seconds (donar-call's frame logs count from an
origin on that clock), WALL the time of day. CELL_STATS (control-spec):
per circuit and per second, the cells added to and removed from its
inbound (towards the circuit's origin) and outbound queues, and the total
milliseconds the removed cells waited there, by cell command; emitted by
tor once a second for the circuits that had cells. It covers tor's
circuit queues only, not the connections' buffers. Stops on SIGTERM or
SIGINT. Standard library only.
"""

import argparse
import os
import signal
import socket
import sys
import threading
import time

DEFAULT_EVENTS = 'CELL_STATS,BW,CONN_BW,CIRC_BW,ORCONN,CIRC'
stop = threading.Event()


def resolve(spec, deadline):
    """(port, cookie path) of SPEC, waiting for a node's control-port file."""
    if os.path.isdir(spec):
        port_file = os.path.join(spec, 'control-port')
        cookie = os.path.join(spec, 'control_auth_cookie')
        while not stop.is_set():
            try:
                text = open(port_file).read()
                if 'PORT=' in text and os.path.getsize(cookie) == 32:
                    return int(text.split('PORT=')[1].split()[0]
                               .rsplit(':', 1)[1]), cookie
            except (OSError, ValueError, IndexError):
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f'{spec}: no control-port file')
            time.sleep(0.5)
        return None, None
    port, cookie = spec.split(':', 1)
    return int(port), cookie


def command(f, sock, line):
    """Sends one command and returns its reply lines (up to the final
    '250 ' or an error)."""
    sock.sendall(line.encode() + b'\r\n')
    reply = []
    while True:
        r = f.readline()
        if not r:
            raise RuntimeError(f'connection closed after {line.split()[0]}')
        r = r.decode(errors='replace').rstrip('\r\n')
        reply.append(r)
        if len(r) >= 4 and r[3] == ' ':
            return reply


def follow(name, spec, out_dir, events, deadline, dump_every):
    log = open(os.path.join(out_dir, f'{name}.log'), 'w', buffering=1)
    try:
        port, cookie = resolve(spec, deadline)
        if port is None:
            return
        while True:
            try:
                sock = socket.create_connection(('127.0.0.1', port), 5)
                break
            except OSError:
                if time.monotonic() > deadline or stop.is_set():
                    raise
                time.sleep(0.5)
        f = sock.makefile('rb')
        hex_cookie = open(cookie, 'rb').read().hex()
        for line in (f'AUTHENTICATE {hex_cookie}',
                     'SETCONF TestingEnableCellStatsEvent=1 '
                     'TestingEnableConnBwEvent=1',
                     'SETEVENTS ' + ' '.join(events)):
            reply = command(f, sock, line)
            log.write(f'{line.split()[0]}: {" | ".join(reply)}\n')
            if not reply[-1].startswith('250') and line.startswith('AUTH'):
                return
        sock.settimeout(0.2)
        with open(os.path.join(out_dir, f'{name}.events'), 'w') as out:
            buf = b''
            last_flush = time.monotonic()
            next_dump = last_flush + dump_every if dump_every else None
            dump_end = None
            while not stop.is_set():
                now = time.monotonic()
                if next_dump and now >= next_dump:
                    # tor's dumpstats (SIGNAL DUMP, SIGUSR1) logs every
                    # connection's inbuf and outbuf at info level: listened
                    # to for a second, as INFO events.
                    next_dump = now + dump_every
                    dump_end = now + 1
                    sock.sendall(('SETEVENTS ' + ' '.join(events + ['INFO'])
                                  + '\r\nSIGNAL DUMP\r\n').encode())
                elif dump_end and now >= dump_end:
                    dump_end = None
                    sock.sendall(('SETEVENTS ' + ' '.join(events)
                                  + '\r\n').encode())
                try:
                    chunk = sock.recv(65536)
                except socket.timeout:
                    chunk = None
                if chunk == b'':
                    log.write('control connection closed\n')
                    break
                now = time.monotonic()
                if chunk:
                    buf += chunk
                    *lines, buf = buf.split(b'\n')
                    stamp = f'{now:.3f} {time.time():.3f} '
                    for line in lines:
                        if line.startswith(b'650 INFO') and not (
                                b'Conn ' in line or b'Dumping' in line
                                or b'hannel ' in line):
                            continue
                        out.write(stamp + line.decode(errors='replace')
                                  .rstrip('\r') + '\n')
                if now - last_flush > 2:
                    out.flush()
                    last_flush = now
    except Exception as e:  # one tor's failure must not stop the others
        log.write(f'error: {e}\n')


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--out', required=True)
    p.add_argument('--tor', action='append', default=[], metavar='NAME=SPEC')
    p.add_argument('--events', default=DEFAULT_EVENTS)
    p.add_argument('--dump-every', type=float, default=0, metavar='S',
                   help="every S seconds, tor's SIGNAL DUMP: each "
                   "connection's inbuf and outbuf (INFO events 'Conn N: "
                   "... bytes waiting on outbuf'); 0: never")
    p.add_argument('--wait', type=float, default=120,
                   help='seconds to wait for a control port')
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    deadline = time.monotonic() + args.wait
    threads = []
    for t in args.tor:
        name, spec = t.split('=', 1)
        th = threading.Thread(target=follow, daemon=True,
                              args=(name, spec, args.out,
                                    args.events.split(','), deadline,
                                    args.dump_every))
        th.start()
        threads.append(th)
    while not stop.is_set() and any(th.is_alive() for th in threads):
        stop.wait(1)
    stop.set()
    for th in threads:
        th.join(3)


if __name__ == '__main__':
    sys.exit(main())
