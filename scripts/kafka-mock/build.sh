#!/usr/bin/env bash
# Builds librdkafka's shared library (the mock Kafka cluster lives in it) from the sources
# node-rdkafka@3.6.1 ships (librdkafka 2.12.0), once per machine, and caches it under
#   ${HTM_KAFKA_MOCK_CACHE:-~/.cache/htm-kafka-mock}/2.12.0/librdkafka.so.1
# Later runs find the cached file and exit at once. Prints the library's path as its last line.
# Needs gcc, make, python3 and npm (the registry), nothing else. Only what the mock needs is built:
# the C library's shared object (not the C++ wrapper or the static libraries), without SSL, SASL,
# zstd, lz4, curl or GSSAPI, and without optimisation (a test broker needs no speed): 25 CPU
# seconds against 64 for the full optimised `make libs` (about 15 s on 2 quiet cores).
# Debian's librdkafka1 (2.0.2 in bookworm) cannot stand in: it lacks rd_kafka_mock_broker_add,
# rd_kafka_mock_broker_decommission and rd_kafka_mock_group_initial_rebalance_delay_ms, which
# launch.py needs; no npm package ships a prebuilt librdkafka (they download one at install time).
set -euo pipefail
NODE_RDKAFKA_VERSION=3.6.1
LIBRDKAFKA_VERSION=2.12.0
cache_dir="${HTM_KAFKA_MOCK_CACHE:-$HOME/.cache/htm-kafka-mock}/$LIBRDKAFKA_VERSION"
lib="$cache_dir/librdkafka.so.1"
if [ -s "$lib" ]; then echo "$lib"; exit 0; fi

mkdir -p "$cache_dir"
# One build at a time on this machine: a second caller waits for the first, then reuses it.
exec 9>"$cache_dir/.build.lock"
flock 9
if [ -s "$lib" ]; then echo "$lib"; exit 0; fi

work=$(mktemp -d "${TMPDIR:-/tmp}/htm-kafka-mock-build.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
echo "[kafka-mock] building librdkafka $LIBRDKAFKA_VERSION (node-rdkafka@$NODE_RDKAFKA_VERSION sources) in $work" >&2
npm pack "node-rdkafka@$NODE_RDKAFKA_VERSION" --silent >/dev/null
tar -xzf "node-rdkafka-$NODE_RDKAFKA_VERSION.tgz" package/deps/librdkafka
cd package/deps/librdkafka
./configure --disable-ssl --disable-sasl --disable-zstd --disable-lz4-ext --disable-curl \
  --disable-gssapi --disable-optimization >../build-configure.txt 2>&1 ||
  { tail -40 ../build-configure.txt >&2; exit 1; }
make -j2 -C src librdkafka.so.1 >../build-make.txt 2>&1 || { tail -40 ../build-make.txt >&2; exit 1; }
# Copy to a temporary name first so a half-written file is never taken for a finished build.
cp src/librdkafka.so.1 "$lib.tmp"
cp src/rdkafka_mock.h "$cache_dir/rdkafka_mock.h"
mv "$lib.tmp" "$lib"
echo "[kafka-mock] cached $lib" >&2
echo "$lib"
