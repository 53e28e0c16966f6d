#!/usr/bin/env bash
# make demo: the main jobs of sbx on bundled inputs.
set -eu
cd "$(dirname "$0")/.."
say() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }
say ./sbx help
./sbx help
