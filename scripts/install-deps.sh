#!/usr/bin/env bash
# Installs with apt-get exactly what sbx's build, tests and demo need and the
# machine lacks. Idempotent; silent when everything is there.
set -eu

packages=(
	build-essential pkg-config binutils	# cc, make, as, objdump
	libpfm4-dev				# event names to perf_event_attr
	libelf-dev libdw-dev			# ELF symbols, build-ids; DWARF lines
	libtraceevent-dev			# tracepoint formats
	libjson-c-dev				# --json output
	libcapstone-dev				# the faulting instruction of a crashed snippet
	libzstd-dev				# perf record -z data: perf's own compression, zstd
	libyaml-dev				# sbx run: llvm-exegesis's benchmark YAML as input
	scdoc man-db groff-base			# man pages: build and read
	bats bats-support bats-assert		# CLI tests
	linux-perf				# the judge: perf report/script read what we write
	llvm-14 clang				# peers: llvm-exegesis, llvm-profdata, clang
	llvm-19					# peers: llvm-profgen and llvm-profdata 19, llvm-jitlink
	llvm-19-dev				# make examples: the LLVM ORC JIT using libsbx-jit
	bash-completion zsh			# the completion tests
	libxml2-utils				# xmllint: the flame graph test
	jq python3				# the tests read JSON and compare profiles
	bc time					# scripts/bench: ratios, peak RSS
)

# node --perf-prof writes the real jitdump of the jit-inject tests; the
# machine's own node will do, else Debian's
command -v node >/dev/null || packages+=(nodejs)

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >/dev/null
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
