#!/usr/bin/env bash
# What an sbx profgen profile is worth to clang, on a suite of programs of
# different shapes:
#   sortsearch  insertion sort, quicksort, binary searches (branchy loops)
#   interp      a bytecode interpreter's switch dispatch, calls and returns
#   hashstr     string building, a chained hash table, strcmp
#   compress    an LZ77 compressor and decompressor
#   sqlite      SQLite (the amalgamation that the better-sqlite3 npm package
#               ships), driven by scripts/bench/sqlite-workload.c
# the first four in scripts/bench/pgo-suite/, each built with clang 14 and 19,
# and with gcc 12 (sbx profgen --format gcov for gcc -fauto-profile).
#
#   scripts/bench/profgen-pgo.sh
#
# Set in the environment:
#   RUNS       timed runs of each build (default 5)
#   PROGRAMS   the programs (default "sortsearch interp hashstr compress sqlite")
#   COMPILERS  the compilers (default "clang-14 clang-19 gcc-12"; clang 19 is
#              $(llvm-config-19 --bindir)/clang)
#   SBX        the sbx to record and profile with (default build/default/sbx)
#   SBX_B      a second sbx (another commit's): its profile of the same
#              recordings makes the build sample-b, timed alongside, and a
#              second table compares the two
#   ORACLE=1   with clang, also the build oracle: sbx's profile with every
#              line's count replaced by the exact number of times it ran
#              (a coverage build's, by scripts/bench/pgo-oracle.py), the
#              profile a perfect sampler would write; its table shows what
#              sample PGO does with right counts, so the distance from it to
#              sample is what the samples lack
#
# Builds of each program with each compiler, all -O2 -g -gline-tables-only
# -fdebug-info-for-profiling (gcc: -O2 -g), in build/bench/pgo-suite/PROGRAM-COMPILER/:
#   base        no profile
#   sample      -fprofile-sample-use with sbx profgen's profile of three sbx
#               record runs of base, IP-only samples (no branch stacks: what a
#               VM gives); gcc: -fauto-profile with the --format gcov profile
#   instr       instrumented PGO (-fprofile-instr-generate, one run, merged by
#               the llvm-profdata of the same version, then -fprofile-instr-use;
#               gcc: -fprofile-generate, then -fprofile-use)
#   base-again  a copy of base: its distance from base is the noise of the
#               measurement, in the same units
# Every build must print what base prints. Then RUNS rounds run every build
# of every program once, in a new random order each round, so that the
# machine's drift hits every build alike, and the table gives the minimum
# time of each, how much slower sample is than the better of base and instr,
# instr's gain over base, and the share of that gain that sample recovers
# where instr gains at least 3%. The targets: no sample more than 3% slower
# than the better of base and instr; where instr gains at least 3%, sample
# recovers at least half of it, and three quarters on average. On a shared
# cloud host the run time of one binary can move by half between minutes:
# check base-again against base before reading anything into one figure.
set -eu
cd "$(dirname "$0")/../.."
export LC_ALL=C	# a decimal point in $EPOCHREALTIME
RUNS=${RUNS:-5}
PROGRAMS=${PROGRAMS:-sortsearch interp hashstr compress sqlite}
COMPILERS=${COMPILERS:-clang-14 clang-19 gcc-12}
SBX=${SBX:-$PWD/build/default/sbx}	# the optimized build: ./sbx is whichever build ran last
FLAGS="-O2 -g -gline-tables-only -fdebug-info-for-profiling"
me=${0##*/}
top=build/bench/pgo-suite
mkdir -p "$top"

die() {
	echo "$me: $*" >&2
	exit 1
}

[ -x "$SBX" ] || die "build sbx first (make)"
case $RUNS in '' | *[!0-9]* | 0) die "RUNS must be a count, not '$RUNS'" ;; esac

# cc and profdata of compiler $1
tools() {
	local bin
	case $1 in
	clang-14)
		cc=$(command -v clang-14 || true)
		profdata=$(command -v llvm-profdata-14 || true)
		llvmcov=$(command -v llvm-cov-14 || true)
		dwarfdump=$(command -v llvm-dwarfdump-14 || true)
		;;
	clang-19)
		bin=$(llvm-config-19 --bindir 2>/dev/null || true)
		cc=${bin:+$bin/clang}
		profdata=${bin:+$bin/llvm-profdata}
		llvmcov=${bin:+$bin/llvm-cov}
		dwarfdump=${bin:+$bin/llvm-dwarfdump}
		;;
	gcc-12)
		cc=$(command -v gcc-12 || true)
		profdata=$cc	# gcc reads its .gcda files itself
		;;
	*) die "unknown compiler '$1' (clang-14, clang-19, gcc-12)" ;;
	esac
	[ -x "$cc" ] || die "$1 is not installed (apt-get install $1 libclang-rt-${1#clang-}-dev)"
	[ -x "$profdata" ] || die "the llvm-profdata of $1 is not installed"
	if [ "${ORACLE:-0}" = 1 ] && [ "$1" != gcc-12 ]; then
		if [ ! -x "$llvmcov" ] || [ ! -x "$dwarfdump" ]; then
			die "ORACLE=1 needs the llvm-cov and llvm-dwarfdump of $1"
		fi
	fi
}

for c in $COMPILERS; do tools "$c"; done
for p in $PROGRAMS; do
	case $p in
	sortsearch | interp | hashstr | compress | sqlite) ;;
	*) die "unknown program '$p' (sortsearch interp hashstr compress sqlite)" ;;
	esac
done

work=$top
# shellcheck source=scripts/bench/sqlite.sh
. scripts/bench/sqlite.sh
case " $PROGRAMS " in *" sqlite "*) sqlite_fetch ;; esac

# build NAME EXTRA-FLAGS...: $dir/NAME of program $p with compiler $cc
build() {
	local name=$1 s
	shift
	echo "$me: building $dir/$name" >&2
	if [ "$c" = gcc-12 ]; then
		# objects at one path in every build: -fprofile-use finds the .gcda
		# that -fprofile-generate wrote by the object's name
		mkdir -p "$dir/obj"
		rm -f "$dir"/obj/*.o
		if [ "$p" = sqlite ]; then
			set -- -DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION -I"$top" "$@"
			for s in "$top/sqlite3.c" scripts/bench/sqlite-workload.c; do
				"$cc" -O2 -g "$@" -c -o "$dir/obj/$(basename "$s" .c).o" "$s"
			done
		else
			"$cc" -O2 -g "$@" -c -o "$dir/obj/$p.o" "scripts/bench/pgo-suite/$p.c"
		fi
		"$cc" "$@" -o "$dir/$name" "$dir"/obj/*.o -lm
	elif [ "$p" = sqlite ]; then
		work=$dir CC=$cc sqlite_build "$name" -gline-tables-only "$@"
	else
		# shellcheck disable=SC2086
		"$cc" $FLAGS "$@" -o "$dir/$name" "scripts/bench/pgo-suite/$p.c"
	fi
}

# same FILE: FILE prints what base printed
same() {
	cmp -s "$1" "$dir/base.out" ||
		die "$1 differs from $dir/base.out: the builds of $p with $c disagree"
}

entries=
for p in $PROGRAMS; do
	for c in $COMPILERS; do
		tools "$c"
		dir=$top/$p-$c
		mkdir -p "$dir"
		[ "$p" = sqlite ] && ln -sf ../sqlite3.c ../sqlite3.h "$dir/"
		build base
		for i in 1 2 3; do
			"$SBX" record -q -F 10000 -o "$dir/ip$i.data" -- "$dir/base" >"$dir/base.out"
		done
		if [ "$c" = gcc-12 ]; then
			fmt=(--format gcov) use=-fauto-profile=
		else
			fmt=() use=-fprofile-sample-use=
		fi
		"$SBX" profgen --binary "$dir/base" "${fmt[@]}" -o "$dir/$p.prof" "$dir"/ip[123].data
		build sample "$use$dir/$p.prof"
		if [ -n "${SBX_B:-}" ]; then
			"$SBX_B" profgen --binary "$dir/base" "${fmt[@]}" -o "$dir/$p.b.prof" \
				"$dir"/ip[123].data
			build sample-b "$use$dir/$p.b.prof"
			entries="$entries $p-$c/sample-b"
		fi
		if [ "$c" = gcc-12 ]; then
			rm -rf "$dir/gcda"
			build instr-gen -fprofile-generate="$dir/gcda"
			"$dir/instr-gen" >"$dir/instr-gen.out"
			same "$dir/instr-gen.out"
			build instr -fprofile-use="$dir/gcda" -Wno-missing-profile
		else
			build instr-gen -fprofile-instr-generate="$dir/instr-%p.profraw"
			rm -f "$dir"/instr-*.profraw
			"$dir/instr-gen" >"$dir/instr-gen.out"
			same "$dir/instr-gen.out"
			"$profdata" merge -o "$dir/instr.profdata" "$dir"/instr-*.profraw
			build instr -fprofile-instr-use="$dir/instr.profdata"
		fi
		if [ "${ORACLE:-0}" = 1 ] && [ "$c" != gcc-12 ]; then
			build cov -fprofile-instr-generate -fcoverage-mapping
			rm -f "$dir"/cov-*.profraw
			LLVM_PROFILE_FILE="$dir/cov-%p.profraw" "$dir/cov" >"$dir/cov.out"
			same "$dir/cov.out"
			"$profdata" merge -o "$dir/cov.profdata" "$dir"/cov-*.profraw
			"$llvmcov" export -format=text -instr-profile="$dir/cov.profdata" "$dir/cov" \
				>"$dir/cov.json"
			"$dwarfdump" --debug-info "$dir/base" >"$dir/base.dwarf"
			python3 scripts/bench/pgo-oracle.py "$dir/$p.prof" "$dir/cov.json" \
				"$dir/base.dwarf" >"$dir/oracle.prof"
			build oracle "$use$dir/oracle.prof"
			entries="$entries $p-$c/oracle"
		fi
		cp "$dir/base" "$dir/base-again"
		entries="$entries $p-$c/base $p-$c/sample $p-$c/instr $p-$c/base-again"
	done
done

# interleaved runs in a new order each round; the minimum of each, in microseconds
# shellcheck disable=SC2086
echo "$me: timing $(printf '%s\n' $entries | wc -l) builds, $RUNS rounds" >&2
declare -A best
for ((r = 0; r < RUNS; r++)); do
	# shellcheck disable=SC2086
	for e in $(printf '%s\n' $entries | shuf); do
		s=$EPOCHREALTIME
		"$top/$e" >"$top/$e.out"
		t=$EPOCHREALTIME
		t=$((${t/./} - ${s/./}))
		[ "${best[$e]:-$t}" -lt "$t" ] || best[$e]=$t
		p=${e%%-*} c=${e#*-} c=${c%/*} dir=$top/${e%/*}
		same "$top/$e.out"
	done
done

# table [VARIANT [COMPILERS]]: the targets, for the sample build (or sample-b, oracle)
table() {
for p in $PROGRAMS; do
	for c in ${2:-$COMPILERS}; do
		echo "$p $c ${best[$p-$c/base]} ${best[$p-$c/${1:-sample}]} ${best[$p-$c/instr]}" \
			"${best[$p-$c/base-again]}"
	done
done | awk -v name="${1:-sample}" '
BEGIN {
	print "| program | compiler | base s | " name " s | instr s | base-again s " \
		"| " name " vs better | instr gain | " name " recovers | targets |"
	print "|---|---|---:|---:|---:|---:|---:|---:|---:|---|"
}
{
	base = $3; sample = $4; instr = $5; again = $6
	better = base < instr ? base : instr
	vs = 100 * (sample - better) / better
	gain = 100 * (base - instr) / base
	ok = vs <= 3
	share = "-"
	if (gain >= 3) {
		rec = 100 * (base - sample) / (base - instr)
		share = sprintf("%.0f%%", rec)
		ok = ok && rec >= 50
		sum += rec
		gained++
	}
	rows++
	passed += ok
	printf "| %s | %s | %.3f | %.3f | %.3f | %.3f | %+.1f%% | %+.1f%% | %s | %s |\n", \
		$1, $2, base / 1e6, sample / 1e6, instr / 1e6, again / 1e6, vs, gain, share, \
		(ok ? "PASS" : "FAIL")
}
END {
	print ""
	if (gained) {
		avg = sum / gained
		printf "sbx recovers %.0f%% of instr'\''s gain on average where instr gains 3%% or " \
			"more (%d rows; target 75%%: %s); ", avg, gained, \
			(avg >= 75 ? "PASS" : "FAIL")
	} else {
		avg = 100
		printf "instr gains 3%% or more on no row, so no average; "
	}
	printf "%d of %d rows meet the targets: %s\n", passed, rows, \
		(passed == rows && avg >= 75 ? "all targets met" : "targets missed")
}'
}
table
clangs=
for c in $COMPILERS; do [ "$c" = gcc-12 ] || clangs="$clangs $c"; done
if [ "${ORACLE:-0}" = 1 ] && [ -n "$clangs" ]; then
	echo
	echo "With exact counts (ORACLE=1: sbx's profiles, each line's count the number of times it ran):"
	echo
	table oracle "$clangs"
fi
if [ -n "${SBX_B:-}" ]; then
	echo
	echo "With SBX_B ($SBX_B), from the same recordings:"
	echo
	table sample-b
	echo
	echo "| program | compiler | sample s | sample-b s | sample-b / sample |"
	echo "|---|---|---:|---:|---:|"
	for p in $PROGRAMS; do
		for c in $COMPILERS; do
			awk -v p="$p" -v c="$c" -v a="${best[$p-$c/sample]}" -v b="${best[$p-$c/sample-b]}" \
				'BEGIN { printf "| %s | %s | %.3f | %.3f | %.3f |\n", p, c, a / 1e6, b / 1e6, b / a }'
		done
	done
fi
