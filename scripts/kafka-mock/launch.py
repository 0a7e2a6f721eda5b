#!/usr/bin/env python3
"""A Kafka-protocol broker for tests: librdkafka's mock cluster on a real TCP port.

Usage: launch.py <path to librdkafka.so.1> [--as-is]   (scripts/kafka-mock/build.sh prints the path)

--as-is leaves the mock as librdkafka makes it (brokers from 1, no fixes below): kafkajs' idempotent
producer cannot start against it, which the tests use as "a broker that refuses the producer".

Prints one line, `KAFKA_MOCK_BROKERS=127.0.0.1:<port>`, once the broker listens, then serves
until stdin closes (its parent went away) or SIGTERM/SIGINT arrives.

What kafkajs needs from the mock (measured with librdkafka 2.12.0):
- a broker with id 0: the mock reports controller id 0 whatever its brokers are called, and
  kafkajs sends InitProducerId and admin calls to the controller ("Broker 0 not found in the
  cached metadata" otherwise). rd_kafka_mock_cluster_new numbers brokers from 1, so broker 0
  is added and broker 1 decommissioned;
- no initial rebalance delay (the mock waits 3 s before the first join completes otherwise);
- LeaveGroup (api key 13) capped at v0-2: the mock advertises v4 but parses only v0-2, so a
  kafkajs leave would be lost and the next join would wait out a session timeout.
"""
import ctypes
import os
import re
import signal
import sys
import threading

LEAVE_GROUP_API_KEY = 13
RD_KAFKA_PRODUCER = 0


def listening_ports():
    """TCP ports this process listens on (state 0A), from /proc: the mock does not name broker 0's."""
    inodes = set()
    for fd in os.listdir('/proc/self/fd'):
        try:
            m = re.match(r'socket:\[(\d+)\]', os.readlink(f'/proc/self/fd/{fd}'))
        except OSError:
            continue
        if m:
            inodes.add(m.group(1))
    ports = []
    for table in ('/proc/self/net/tcp', '/proc/self/net/tcp6'):
        try:
            with open(table) as f:
                rows = f.readlines()[1:]
        except OSError:
            continue
        for row in rows:
            cols = row.split()
            if cols[3] == '0A' and cols[9] in inodes:
                ports.append(int(cols[1].split(':')[1], 16))
    return ports


def main():
    if len(sys.argv) not in (2, 3) or (len(sys.argv) == 3 and sys.argv[2] != '--as-is'):
        sys.exit('usage: launch.py <librdkafka.so.1> [--as-is]')
    as_is = len(sys.argv) == 3
    lib = ctypes.CDLL(sys.argv[1])
    lib.rd_kafka_conf_new.restype = ctypes.c_void_p
    lib.rd_kafka_conf_set.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]
    lib.rd_kafka_new.restype = ctypes.c_void_p
    lib.rd_kafka_new.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
    lib.rd_kafka_mock_cluster_new.restype = ctypes.c_void_p
    lib.rd_kafka_mock_cluster_new.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.rd_kafka_mock_broker_add.argtypes = [ctypes.c_void_p, ctypes.c_int32]
    lib.rd_kafka_mock_broker_decommission.argtypes = [ctypes.c_void_p, ctypes.c_int32]
    lib.rd_kafka_mock_group_initial_rebalance_delay_ms.argtypes = [ctypes.c_void_p, ctypes.c_int32]
    lib.rd_kafka_mock_group_initial_rebalance_delay_ms.restype = None
    lib.rd_kafka_mock_set_apiversion.argtypes = [ctypes.c_void_p, ctypes.c_int16, ctypes.c_int16, ctypes.c_int16]
    lib.rd_kafka_mock_cluster_destroy.argtypes = [ctypes.c_void_p]
    lib.rd_kafka_destroy.argtypes = [ctypes.c_void_p]

    errstr = ctypes.create_string_buffer(512)
    conf = lib.rd_kafka_conf_new()
    # The handle only hosts the mock cluster; keep it quiet.
    lib.rd_kafka_conf_set(conf, b'log_level', b'3', errstr, 512)
    rk = lib.rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, 512)
    if not rk:
        sys.exit(f'rd_kafka_new failed: {errstr.value.decode()}')
    before = set(listening_ports())
    mc = lib.rd_kafka_mock_cluster_new(rk, 1)
    if not mc:
        sys.exit('rd_kafka_mock_cluster_new failed')
    broker1_ports = set(listening_ports()) - before
    if as_is:
        broker0_ports = sorted(broker1_ports)
        broker1_ports = set()
    lib.rd_kafka_mock_group_initial_rebalance_delay_ms(mc, 0)
    for name, err in () if as_is else (
        ('broker_add(0)', lib.rd_kafka_mock_broker_add(mc, 0)),
        ('set_apiversion(LeaveGroup, 0, 2)', lib.rd_kafka_mock_set_apiversion(mc, LEAVE_GROUP_API_KEY, 0, 2)),
        ('broker_decommission(1)', lib.rd_kafka_mock_broker_decommission(mc, 1)),
    ):
        if err:
            sys.exit(f'rd_kafka_mock_{name} failed: error {err}')
    if not as_is:
        broker0_ports = [p for p in listening_ports() if p not in before and p not in broker1_ports]
    if len(broker0_ports) != 1:
        sys.exit(f'could not tell the port of the broker: {broker0_ports}')

    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())

    def watch_stdin():
        try:
            while sys.stdin.buffer.read(4096):
                pass
        except (OSError, ValueError):
            pass
        stop.set()

    threading.Thread(target=watch_stdin, daemon=True).start()
    print(f'KAFKA_MOCK_BROKERS=127.0.0.1:{broker0_ports[0]}', flush=True)
    while not stop.wait(1):
        pass
    lib.rd_kafka_mock_cluster_destroy(mc)
    lib.rd_kafka_destroy(rk)


if __name__ == '__main__':
    main()
