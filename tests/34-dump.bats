#!/usr/bin/env bats
# report -D / script -D (--dump-raw-trace): every record as perf 6.1 prints
# it, with perf as the judge, byte for byte, on files that perf and sbx
# recorded here (file and pipe mode, -z, call chains, dwarf stacks, group
# reads, READ records, switch events with CPUs, tracepoints, perf stat
# record) and on the real LBR recording in tests/data/lbr.

load test_helper

setup_file() {
	command -v perf >/dev/null || return 0
	W=$BATS_FILE_TMPDIR
	# tracepoints need tracefs
	if [ "$(id -u)" -eq 0 ] && [ -d /sys/kernel/tracing ] &&
	   [ -z "$(ls -A /sys/kernel/tracing)" ]; then
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true
	fi
	local nop="$WORKLOADS/noploop"
	perf record -q -e cpu-clock -F 499 -o "$W/plain.data" -- "$nop" 30 >/dev/null 2>&1 || true
	perf record -q -e cpu-clock -F 499 -g -o "$W/g.data" -- "$nop" 30 >/dev/null 2>&1 || true
	perf record -q -e cpu-clock -F 499 -z -o "$W/z.data" -- "$nop" 30 >/dev/null 2>&1 || true
	perf record -q -e cpu-clock -F 499 -o - -- "$nop" 30 >"$W/pipe.data" 2>/dev/null || true
	perf record -q -e cpu-clock -F 499 -g -z -o - -- "$nop" 30 >"$W/pipez.data" \
		2>/dev/null || true
	perf record -q -e '{cpu-clock,task-clock}:S' -o "$W/gs.data" -- "$nop" 30 \
		>/dev/null 2>&1 || true
	perf record -q -e cpu-clock -F 499 --call-graph dwarf,1024 -o "$W/dwarf.data" -- \
		"$nop" 30 >/dev/null 2>&1 || true
	perf record -q -e cpu-clock -F 499 -s -o "$W/read.data" -- sh -c \
		"'$nop' 20; '$nop' 20" >/dev/null 2>&1 || true
	perf record -q -e cpu-clock -F 499 -a --switch-events -o "$W/switch.data" -- \
		"$nop" 20 >/dev/null 2>&1 || true
	perf record -q -e sched:sched_switch -a -o "$W/tp.data" -- sleep 0.2 \
		>/dev/null 2>&1 || true
	perf stat record -o "$W/stat.data" -- "$nop" 10 >/dev/null 2>&1 || true
	"$SBX" record -q -F 499 -g -o "$W/sbx.data" -- "$nop" 30 >/dev/null 2>&1 || true
	"$SBX" record -q -F 499 -z -o - -- "$nop" 30 >"$W/sbx-pipe.data" 2>/dev/null || true
}

setup() {
	command -v perf >/dev/null || skip "perf is not installed"
	require_perf_events
	W=$BATS_FILE_TMPDIR
}

# same CMD FILE [OPTIONS]: sbx CMD prints what perf CMD prints, byte for byte (sbx's
# exit status 0); sbx's output stays in $W/sbx.txt
same() {
	local cmd=$1 f=$2
	shift 2
	[ -s "$f" ] || { echo "$f was not recorded"; return 1; }
	perf "$cmd" -i "$f" "$@" > "$W/perf.txt" 2>/dev/null
	"$SBX" "$cmd" -i "$f" "$@" > "$W/sbx.txt"
	diff "$W/perf.txt" "$W/sbx.txt"
}

# has REGEX: a whole line of $W/sbx.txt matches REGEX (grep -E); outputs of 10^5
# lines are read by grep, not by bats' run
has() {
	grep -qxE -- "$1" "$W/sbx.txt" || { echo "no line matches: $1"; return 1; }
}

@test "report -D, script -D: perf's dump byte for byte on 11 perf recordings and 2 of sbx" {
	local f
	for f in plain g z pipe pipez gs read switch tp sbx sbx-pipe; do
		same report "$W/$f.data" -D
		same script "$W/$f.data" -D
	done
	# without perf's two header lines (-q), or with the header before the records
	same report "$W/plain.data" -D -q
	same report "$W/pipe.data" -D --header
	same report "$W/stat.data" -D --header
	# dwarf stacks: the sample lines of script differ where perf's unwinder gives up
	# (see sbx-script(1)), so script without its chains
	same script "$W/dwarf.data" -D -G
	# the files held what the test is about, and sbx printed it
	same report "$W/gs.data" -D
	has '\.\.\.\.\. id [0-9a-f]{16}, value [0-9a-f]{16}, lost 0'
	has 'task-clock stats:'
	same report "$W/dwarf.data" -D
	has '\.\.\. user regs: mask 0xff0fff ABI 64-bit'
	has '\.\.\. ustack: size [0-9]+, offset 0x[0-9a-f]+'
	same report "$W/z.data" -D
	has ' *COMPRESSED events: +[0-9]+  \( *[0-9.]+%\)'
	same script "$W/read.data" -D
	has '[0-9]+ 0x[0-9a-f]+ \[0x[0-9a-f]+\]: PERF_RECORD_READ: .*'
	same report "$W/switch.data" -D
	has '[0-9]+ [0-9]+ 0x[0-9a-f]+ \[0x[0-9a-f]+\]: PERF_RECORD_SWITCH_CPU_WIDE (IN|OUT) .*'
	same report "$W/pipez.data" -D
	has '0@pipe \[0x[0-9a-f]+\]: event: 64'
	has '-1 -1 0 \[0x[0-9a-f]+\]: PERF_RECORD_ATTR'
}

@test "report -D, script -D on a real LBR recording: branch stacks and perf's branch-mode counts" {
	same script "$BATS_TEST_DIRNAME/data/lbr/propeller_sample_1.perfdata" -D
	same report "$BATS_TEST_DIRNAME/data/lbr/propeller_sample_1.perfdata" -D
	has '\.\.\. branch stack: nr:32'
	has '\.\.\.\.\.  0: [0-9a-f]{16} -> [0-9a-f]{16} [0-9]+ cycles [ M][ P][ A][ T] 0 '
	# one per branch of every stack, as perf report counts in branch mode
	has '          SAMPLE events:     119424'
}

@test "report -D on perf stat record: unordered, with perf's warning and the counts" {
	same report "$W/stat.data" -D
	head -1 "$W/sbx.txt" | grep -qx 'WARNING: No sample_id_all support, falling back to unordered processing'
	has '\.\.\. value [0-9]+, enabled [0-9]+, running [0-9]+'
	has '-1 -1 0x[0-9a-f]+ \[0x18\]: PERF_RECORD_STAT_ROUND'
}

@test "report -D, script -D with -C and --time: the samples perf leaves out, as perf does" {
	local t
	# script: no thread and DSO lines for them; report: not in the closing counts
	same report "$W/switch.data" -D -C 0
	# the system-wide file had samples on another CPU too: the counts differ
	[ "$(grep -E '^ +SAMPLE events:' "$W/sbx.txt" | awk '{ print $3 }' | sort -u | wc -l)" -eq 2 ]
	same script "$W/switch.data" -D -C 0
	# from a quarter to three quarters of the samples' times
	t=$(perf script -i "$W/switch.data" -F time 2>/dev/null | awk '{ sub(":", "", $1); v[NR] = $1 }
		END { print v[int(NR / 4) + 1] "," v[int(3 * NR / 4)] }')
	same report "$W/switch.data" -D --time "$t"
	same script "$W/switch.data" -D --time "$t"
	same report "$W/switch.data" -D -C 1 --time "$t"
}

@test "script --dump-unsorted-raw-trace: the records in file order, as perf's" {
	local f
	for f in plain pipe z; do
		same script "$W/$f.data" --dump-unsorted-raw-trace
	done
	has '.*: PERF_RECORD_FINISHED_ROUND: unhandled!'
}

@test "-D misuse and damage: one line and exit 2; a cut file's records, then the error" {
	run -2 "$SBX" report -D --json -i "$W/plain.data"
	assert_output --partial '-D prints every record'
	run -2 "$SBX" script -D --folded -i "$W/plain.data"
	assert_output --partial '-D prints every record as text'
	# cut inside the last record of the data: the records before it, then the error
	local last
	last=$(perf report -D -i "$W/plain.data" 2>/dev/null | grep -E '^0x[0-9a-f]+@' | tail -1)
	head -c $(( ${last%%@*} + 4 )) "$W/plain.data" > "$W/cut.data"
	run -1 --separate-stderr "$SBX" report -D -i "$W/cut.data"
	[[ "$stderr" == *"cut short"* ]]
	assert_line --regexp '^[0-9]+ 0x[0-9a-f]+ \[0x[0-9a-f]+\]: PERF_RECORD_SAMPLE'
	refute_line --partial 'Aggregated stats'
}
