#!/usr/bin/env bash
# How steady the clock is for sbx run's TSC counter on this machine: a probe
# (scripts/bench/tsc-clock.c) that times add, imul and load chains the way
# sbx run's measuring child does, for S seconds (default 20), and reports
# the clock states, how often they change, and the spread sbx's method
# would show over 10 invocations, on all windows and on the steady ones.
#
#   scripts/bench/tsc-clock.sh [S]
set -eu
cd "$(dirname "$0")/../.."
case $(uname -m) in
x86_64) ;;
*) echo "tsc-clock.sh: x86-64 only" >&2; exit 1 ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"${CC:-cc}" -O2 -Wall -Wextra -o "$tmp/tsc-clock" scripts/bench/tsc-clock.c -lm
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"
echo
"$tmp/tsc-clock" "${1:-20}"
