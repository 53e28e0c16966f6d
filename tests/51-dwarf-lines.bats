#!/usr/bin/env bats
# sbx's DWARF line-program reader (lib/symbol/dwarf-lines: profgen's lines
# and discriminators) with libdw as the judge: the same rows, in the same
# order, for every CU of what GCC and clang write.

load test_helper

ROWS=$BUILD/tests/tools/dwarf-rows

setup() {
	cd "$BATS_TEST_TMPDIR"
}

# every file: "same", with at least $1 sequences (a sort was needed) and $2
# discriminators in all
all_same() {
	local min=$1 min_disc=$2 seqs discs
	shift 2
	run "$ROWS" "$@"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c ', same$' <<< "$output")" -eq "$#" ]
	seqs=$(awk '{ n += $6 } END { print n }' <<< "$output")
	discs=$(awk '{ n += $8 } END { print n }' <<< "$output")
	[ "$seqs" -ge "$min" ]
	[ "$discs" -ge "$min_disc" ]
}

@test "dwarf lines: GCC, DWARF 2 to 5, -O2, function sections, compressed sections" {
	local src=$WORKLOADS/forker.c
	for v in 2 3 4 5; do
		gcc -O2 -g -gdwarf-$v -o "g$v" "$src"
	done
	# sequences that all start at 0 (a relocatable object), ends at a row's address
	gcc -O2 -g -ffunction-sections -I"$TOP/lib" -c -o gfs.o "$TOP/lib/profile/generate.c"
	gcc -O2 -g -gz -o gz "$src"
	all_same 10 1 g2 g3 g4 g5 gfs.o gz
}

@test "dwarf lines: clang, DWARF 2 to 5 and 64-bit, discriminators, function sections" {
	local src=$WORKLOADS/profgen-loops.c off
	for v in 2 3 4 5; do
		clang -O2 -g -gdwarf-$v -fdebug-info-for-profiling -ffunction-sections -o "c$v" "$src"
	done
	clang -O2 -g -ffunction-sections -I"$TOP/lib" -c -o cfs.o "$TOP/lib/profile/generate.c"
	# 64-bit DWARF (GCC leaves the line table to the assembler, which writes 32-bit)
	clang -O2 -g -gdwarf-5 -gdwarf64 -o c64 "$src"
	off=$(readelf -SW c64 | awk '{ for (i = 1; i < NF; i++) if ($i == ".debug_line") print $(i + 3) }')
	od -A n -t x1 -N 4 -j "$((0x$off))" c64 | grep -q 'ff ff ff ff'
	all_same 30 10 c2 c3 c4 c5 cfs.o c64
}

@test "dwarf lines: sbx itself and the test workloads (many CUs)" {
	all_same 10 1 "$BUILD/sbx" "$WORKLOADS/profgen-loops" "$WORKLOADS/cxxhot" "$WORKLOADS/tinyjit"
}
