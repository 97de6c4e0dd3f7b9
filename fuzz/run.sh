#!/usr/bin/env bash
# Builds and runs Tandem's libFuzzer targets for the wire and protocol layers.
#
#   fuzz/run.sh [RUNS] [TARGET...]     RUNS defaults to 100000; TARGETS to FrameFuzz HTTPFuzz ProtocolFuzz
#
# The sources a target exercises (TandemWire's, or TandemProtocol's) are compiled straight into the fuzzer with
# `-sanitize=fuzzer,address`, so libFuzzer's coverage instrumentation and AddressSanitizer
# reach the library code (modules from `swift build -c release` carry neither). Each target
# starts from its seed corpus in fuzz/corpus/<name>/ and adds what it finds to a working
# corpus in .build/fuzz/corpus/<name>/ (the seeds in git stay untouched). Crash inputs land
# in .build/fuzz/artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."

runs="${1:-100000}"
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(FrameFuzz HTTPFuzz ProtocolFuzz)

# The wire protocol's sources (no sockets, no TandemProtocol dependency).
wire_sources=(
    Sources/TandemWire/Crypto/*.swift
    Sources/TandemWire/HTTP/*.swift
    Sources/TandemWire/WebSocket/*.swift
)
# The protocol model's sources, and the invariants its target shares with the tests.
protocol_sources=(
    $(find Sources/TandemProtocol -name '*.swift' | sort)
    Tests/TandemTestSupport/ProtocolInvariants.swift
)

out=.build/fuzz
mkdir -p "$out/artifacts"
for target in "${targets[@]}"; do
    case "$target" in
        FrameFuzz) corpus=frame; sources=("${wire_sources[@]}") ;;
        HTTPFuzz) corpus=http; sources=("${wire_sources[@]}") ;;
        ProtocolFuzz) corpus=protocol; sources=("${protocol_sources[@]}") ;;
        *) echo "fuzz/run.sh: unknown target $target (FrameFuzz, HTTPFuzz, ProtocolFuzz)" >&2; exit 2 ;;
    esac
    echo "== building $target"
    rm -f "$out/$target"
    # ld.gold warns about sanitizer symbols it cannot export; those lines are noise.
    swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name "${target}Module" \
        -Xcc -fmodule-map-file=Sources/CCrypto/module.modulemap -lcrypto \
        "fuzz/$target.swift" "${sources[@]}" -o "$out/$target" 2>&1 \
        | grep -v "Cannot export local symbol" || true
    [ -x "$out/$target" ] || { echo "fuzz/run.sh: build of $target failed" >&2; exit 1; }

    mkdir -p "$out/corpus/$corpus"
    echo "== running $target for $runs executions"
    "$out/$target" -runs="$runs" -max_len=4096 -print_final_stats=1 \
        -artifact_prefix="$out/artifacts/$target-" \
        "$out/corpus/$corpus" "fuzz/corpus/$corpus"
done
