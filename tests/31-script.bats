#!/usr/bin/env bats
# sbx script on files that Linux perf recorded, with perf script as the
# judge: the same samples in the same order with the same symbols, and the
# same tracepoint field values.

load test_helper

setup_file() {
	command -v perf >/dev/null || return 0
	W=$BATS_FILE_TMPDIR
	perf record -q -e cpu-clock -F 999 -o "$W/nl.data" -- "$WORKLOADS/noploop" 200 \
		>/dev/null 2>&1 || true
	perf record -q -e cpu-clock -F 999 -o - -- "$WORKLOADS/noploop" 200 \
		>"$W/pipe.data" 2>/dev/null || true
	perf record -q -e cpu-clock -F 999 -g -o "$W/g.data" -- "$WORKLOADS/forker" 2 400 \
		>/dev/null 2>&1 || true
	# tracepoints need tracefs
	if [ ! -e /sys/kernel/tracing/events ]; then
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true
	fi
	perf record -q -e sched:sched_switch -a -o "$W/tp.data" -- sleep 0.3 \
		>/dev/null 2>&1 || true
	perf record -q -e sched:sched_switch -a -o - -- sleep 0.3 \
		>"$W/tp-pipe.data" 2>/dev/null || true
}

setup() {
	command -v perf >/dev/null || skip "perf is not installed"
	require_perf_events
	W=$BATS_FILE_TMPDIR
	[ -s "$W/nl.data" ] || skip "perf record could not record here"
}

# "tid time ip sym" per sample, from perf script and from sbx script --json
perf_samples() {
	perf script -i "$1" -F tid,time,ip,sym 2>/dev/null |
		awk '{ t = $2; sub(/:$/, "", t); print $1, t, $3, $4 }'
}

sbx_samples() {
	run -0 --separate-stderr "$SBX" script --json -i "$1"
	printf '%s\n' "${lines[@]}" | python3 -c '
import json, sys
for line in sys.stdin:
    o = json.loads(line)
    t = o["time"]
    print(o["tid"], "%d.%06d" % (t // 10**9, t % 10**9 // 1000), "%x" % o["ip"],
          o["symbol"] if o["symbol"] is not None else "[unknown]")'
}

@test "script: the same samples as perf script, in the same order, same symbols" {
	perf_samples "$W/nl.data" > "$W/perf.txt"
	sbx_samples "$W/nl.data" > "$W/sbx.txt"
	# about 170 samples here (noploop 200 at 999 Hz): 20 leaves a wide margin
	[ "$(wc -l < "$W/perf.txt")" -gt 20 ]
	diff "$W/perf.txt" "$W/sbx.txt"
	grep -q ' hot_a$' "$W/sbx.txt"
	grep -q ' hot_b$' "$W/sbx.txt"
}

@test "script: the text is perf script's, byte for byte: with and without call chains, CPUs, C++ names" {
	run -0 sbx script -i "$W/nl.data"
	assert_line --regexp '^ +noploop +[0-9]+ +[0-9]+\.[0-9]{6}: +[0-9]+ cpu-clock: +[0-9a-f]+ hot_a\+0x[0-9a-f]+ \(.*/tests/workloads/noploop\)$'
	cd "$BATS_TEST_TMPDIR"
	sbx record -q -F 999 -g -o sbx-g.data -- sh -c "$WORKLOADS/noploop 50; ls /usr/lib > /dev/null"
	perf record -q -e cpu-clock -F 999 -g -o cxx.data -- "$WORKLOADS/cxxhot" > /dev/null 2>&1
	for f in "$W/nl.data" "$W/g.data" sbx-g.data cxx.data; do
		perf script -i "$f" 2>/dev/null > perf.txt
		sbx script -i "$f" > sbx.txt
		[ "$(wc -l < perf.txt)" -gt 20 ]
		diff perf.txt sbx.txt
	done
	# and with perf's options: the fields, -G, --ns, a CPU, a symbol
	t0=$(perf script -F time -G -i sbx-g.data 2>/dev/null | sed -n '10{s/[: ]//g;p}')
	t1=$(perf script -F time -G -i sbx-g.data 2>/dev/null | sed -n '30{s/[: ]//g;p}')
	for o in "-F comm,pid,tid,time,ip,sym" "-G" "--ns" "-F tid,cpu,time,ip,dso" "-C 0" "-S hot_a" \
		"--time $t0,$t1" "--time $t1," "--time ,$t0 -G"; do
		# shellcheck disable=SC2086
		perf script -i sbx-g.data $o 2>/dev/null > perf.txt
		# shellcheck disable=SC2086
		sbx script -i sbx-g.data $o > sbx.txt
		diff perf.txt sbx.txt
	done
}

@test "script: a call chain that ends in 0xffffffffffffffff keeps its frames, where perf drops the whole chain" {
	cd "$BATS_TEST_TMPDIR"
	# some chains (a fifth of one CPU's samples) end as some kernels end user chains
	"$BUILD/scripts/gen-perf-data" -G G.data 2000
	perf script -F time,ip,sym -i G.data 2>/dev/null > perf.txt
	run -0 --separate-stderr sbx script -F time,ip,sym -i G.data
	printf '%s\n' "$output" > sbx.txt
	python3 - perf.txt sbx.txt <<-'EOF'
	import sys
	def samples(path):
	    out, cur = {}, None
	    for line in open(path):
	        line = line.rstrip("\n")
	        if line.startswith("\t"):
	            out[cur].append(line.split()[-1])
	        elif line.strip():
	            cur = line.split()[0]
	            out[cur] = []
	    return out
	perf, sbx = samples(sys.argv[1]), samples(sys.argv[2])
	assert perf.keys() == sbx.keys()
	dropped = [t for t, f in perf.items() if not f]
	# perf drops those chains whole; sbx keeps every frame but the end
	assert 100 <= len(dropped) <= 300, len(dropped)
	assert all(len(sbx[t]) >= 4 for t in dropped)
	# the others: the same frames
	assert all(sbx[t] == f for t, f in perf.items() if f)
	EOF
}

@test "script: --json prints one object per line with the documented keys" {
	run -0 sbx script --json -i "$W/nl.data"
	for l in "${lines[@]}"; do
		echo "$l" | jq -e 'type == "object"' >/dev/null
	done
	echo "${lines[0]}" | jq -e 'has("event") and has("pid") and has("tid") and has("time")
		and has("ip") and has("symbol") and has("dso") and .event == "cpu-clock"'
	run -0 "$SBX" --json script -i "$W/nl.data"
	echo "$output" | jq -s -e 'map(select(.symbol == "hot_a")) | length > 10'
	echo "$output" | jq -s -e 'map(select(.symbol == "hot_a")) | all(.dso | endswith("/noploop"))'
}

@test "script: -F selects the fields" {
	run -0 sbx script -F comm,sym -i "$W/nl.data"
	assert_line --regexp '^ +noploop hot_a $'
	refute_line --partial 'cpu-clock'
	run -0 sbx script --json -F tid,sym -i "$W/nl.data"
	echo "${lines[0]}" | jq -e 'keys == ["symbol", "tid"]'
	run -0 sbx script -F -dso,-ip -i "$W/nl.data"
	refute_line --partial '/noploop'
	assert_line --regexp 'cpu-clock: hot_a\+0x'
	run -2 --separate-stderr sbx script -F comm,nosuch -i "$W/nl.data"
	[[ "$stderr" == *"bad -F"* ]]
	# no field at all would print blank lines
	run -2 --separate-stderr sbx script -F '' -i "$W/nl.data"
	[[ "$stderr" == *"bad -F ''"* ]]
	run -2 --separate-stderr sbx script -F -comm,-pid,-tid,-cpu,-time,-event,-ip,-sym,-dso,-period,-callchain,-trace,-addr,-symoff -i "$W/nl.data"
	[[ "$stderr" == *"bad -F"* ]]
}

@test "script: call chains, frame by frame as perf script resolves them" {
	[ -s "$W/g.data" ] || skip "perf record -g could not record here"
	perf script -i "$W/g.data" -F ip,sym,symoff 2>/dev/null | awk 'NF >= 2 { print $2 }' \
		> "$W/perf-frames"
	run -0 --separate-stderr sbx script --json -i "$W/g.data"
	printf '%s\n' "${lines[@]}" | python3 -c '
import json, sys
for line in sys.stdin:
    for f in json.loads(line).get("callchain", []):
        print("[unknown]" if f["symbol"] is None else "%s+0x%x" % (f["symbol"], f["symoff"]))' \
		> "$W/sbx-frames"
	# about 400 frames here (two processes, forker 2 400): 50 leaves a wide margin
	[ "$(wc -l < "$W/perf-frames")" -gt 50 ]
	diff "$W/perf-frames" "$W/sbx-frames"
	grep -qE '^spin_[01]\+0x' "$W/sbx-frames"
	# text: the frames under each sample, as perf prints them; -G: one line a sample
	run -0 sbx script -G -i "$W/g.data"
	n=${#lines[@]}
	run -0 sbx script -i "$W/g.data"
	[ "${#lines[@]}" -gt "$n" ]
	assert_line --regexp $'^\t +[0-9a-f]+ spin_[01]\\+0x[0-9a-f]+ \\(.*/forker\\)$'
}

@test "script: --show-mmap-events and --show-task-events" {
	run -0 sbx script --show-mmap-events --show-task-events -i "$W/nl.data"
	assert_line --regexp 'PERF_RECORD_COMM exec: noploop:[0-9]+/[0-9]+$'
	assert_line --regexp 'PERF_RECORD_MMAP2 [0-9]+/[0-9]+: \[0x[0-9a-f]+\(0x[0-9a-f]+\) @ 0x[0-9a-f]+ [0-9a-f]+:[0-9a-f]+ [0-9]+ [0-9]+\]: r-xp .*/tests/workloads/noploop$'
	assert_line --regexp 'PERF_RECORD_EXIT\('
	# perf's lines exactly, in perf's columns (those of the samples: the name
	# unpadded where frames follow): a forking program's COMM, FORK, EXIT, MMAP
	# and MMAP2 records, each thread named as perf names it
	for f in "$W/nl.data" "$W/g.data"; do
		for fields in "" "-F comm,pid,time" "-F comm,pid,tid,time"; do
			# shellcheck disable=SC2086
			perf script --show-mmap-events --show-task-events $fields -i "$f" 2>/dev/null \
				> "$BATS_TEST_TMPDIR/perf.ev"
			# shellcheck disable=SC2086
			run -0 sbx script --show-mmap-events --show-task-events $fields -i "$f"
			printf '%s\n' "$output" > "$BATS_TEST_TMPDIR/sbx.ev"
			grep -q 'PERF_RECORD_MMAP2' "$BATS_TEST_TMPDIR/perf.ev"
			diff "$BATS_TEST_TMPDIR/perf.ev" "$BATS_TEST_TMPDIR/sbx.ev"
		done
		grep PERF_RECORD_ "$BATS_TEST_TMPDIR/sbx.ev" > "$BATS_TEST_TMPDIR/sbx.rec"
	done
	grep -q 'PERF_RECORD_FORK(' "$BATS_TEST_TMPDIR/sbx.rec"
	run -0 sbx script --json --show-mmap-events -i "$W/nl.data"
	echo "$output" | jq -s -e 'map(select(.event == "MMAP2" and (.filename | endswith("/noploop")))) | length >= 1'
	# without the options, only samples
	run -0 sbx script -i "$W/nl.data"
	refute_line --partial 'PERF_RECORD_'
}

@test "script: pipe mode from perf record -o -" {
	[ -s "$W/pipe.data" ] || skip "perf record -o - could not record here"
	run -0 bash -c "cat '$W/pipe.data' | '$SBX' script -i -"
	assert_line --regexp ' hot_a\+0x[0-9a-f]+ '
	run -0 bash -c "perf record -q -e cpu-clock -F 999 -o - -- '$WORKLOADS/noploop' 100 2>/dev/null |
		'$SBX' script --json -i -"
	echo "$output" | jq -s -e 'map(select(.symbol == "hot_a")) | length > 5'
}

@test "script: perf record -z (zstd): the same samples as perf script, file and pipe mode" {
	perf record -q -z -e cpu-clock -F 999 -o "$W/z.data" -- "$WORKLOADS/noploop" 200 \
		>/dev/null 2>&1 || skip "perf record -z is not available here"
	perf report --header-only -i "$W/z.data" 2>/dev/null | grep -q '^# compressed : Zstd'
	perf_samples "$W/z.data" > "$W/perf-z.txt"
	sbx_samples "$W/z.data" > "$W/sbx-z.txt"
	# about 170 samples here (noploop 200 at 999 Hz): 20 leaves a wide margin
	[ "$(wc -l < "$W/perf-z.txt")" -gt 20 ]
	diff "$W/perf-z.txt" "$W/sbx-z.txt"
	grep -q ' hot_a$' "$W/sbx-z.txt"
	# text: as many lines as perf script, and no warning
	run -0 --separate-stderr sbx script -i "$W/z.data"
	[ -z "$stderr" ]
	[ "${#lines[@]}" -eq "$(wc -l < "$W/perf-z.txt")" ]
	# pipe mode, from a real pipe
	bash -c "perf record -q -z -e cpu-clock -F 999 -o - -- '$WORKLOADS/noploop' 200 \
		2>/dev/null | tee '$W/zpipe.data' | '$SBX' script --json -i -" > "$W/zpipe.json"
	perf_samples "$W/zpipe.data" > "$W/perf-zp.txt"
	sbx_samples - < "$W/zpipe.data" > "$W/sbx-zp.txt"
	[ "$(wc -l < "$W/perf-zp.txt")" -gt 20 ]
	diff "$W/perf-zp.txt" "$W/sbx-zp.txt"
	[ "$(wc -l < "$W/zpipe.json")" -eq "$(wc -l < "$W/perf-zp.txt")" ]
}

@test "script: perf record -z -g, small buffers: call chains of records that straddle" {
	# -m 4: many small compressed flushes, so records cross their boundaries
	# (about 29 did in each run here; records must differ in size for that: stairs' call chains are 1 to 8
	# frames deep, so samples of every length land at every offset)
	perf record -q -z -m 4 -e cpu-clock -F 5000 -g -o "$W/zg.data" -- "$WORKLOADS/stairs" 1000 \
		>/dev/null 2>&1 || skip "perf record -z is not available here"
	perf script -i "$W/zg.data" -F ip,sym,symoff 2>/dev/null | awk 'NF >= 2 { print $2 }' \
		> "$W/perf-zframes"
	run -0 --separate-stderr sbx -v script --json -i "$W/zg.data"
	printf '%s\n' "${lines[@]}" > "$W/zg.json"
	# the case under test happened: some records straddled COMPRESSED records
	assert_regex "$stderr" 'COMPRESSED records decompressed; [1-9][0-9]* records straddled'
	python3 -c '
import json, sys
for line in open(sys.argv[1]):
    for f in json.loads(line).get("callchain", []):
        print("[unknown]" if f["symbol"] is None else "%s+0x%x" % (f["symbol"], f["symoff"]))' \
		"$W/zg.json" > "$W/sbx-zframes"
	# about 30,000 frames here; 500 leaves a wide margin for a slower timer
	[ "$(wc -l < "$W/perf-zframes")" -gt 500 ]
	diff "$W/perf-zframes" "$W/sbx-zframes"
}

@test "script: a perf record -z file cut short: the whole records before the cut, then the error" {
	# the feature table goes with the cut, HEADER_COMPRESSED with it: the
	# decompressed records must still be copied (they once were read after
	# the next COMPRESSED record had reused their buffer). The workload stays
	# on one CPU: with one CPU's buffer the file is in time order, and the text
	# of a cut file is then the start of the whole file's (a thread that moved
	# between CPUs leaves events after the cut that sort before some ahead of it)
	perf record -q -z -m 4 -e cpu-clock -F 5000 -g -o "$W/zc.data" -- \
		taskset -c 0 "$WORKLOADS/stairs" 300 >/dev/null 2>&1 ||
		skip "perf record -z is not available here"
	run -0 --separate-stderr sbx script -i "$W/zc.data"
	printf '%s\n' "${lines[@]}" > "$W/zc-full.txt"
	# cuts inside the data section (its offset and size at bytes 40 and 48
	# of the header): past it, the feature table is what is cut short
	local off size cut
	read -r off size < <(od -An -t u8 -j 40 -N 16 "$W/zc.data")
	for cut in $((off + size / 4)) $((off + size / 2)) $((off + size * 3 / 4)); do
		head -c "$cut" "$W/zc.data" > "$W/zc-cut.data"
		run -1 --separate-stderr sbx script -i "$W/zc-cut.data"
		assert_regex "$stderr" 'the file is cut short'
		# what it printed is the start of the whole file's text, less a last sample
		# whose chain the cut may have split
		[ "${#lines[@]}" -gt 10 ]
		diff <(printf '%s\n' "${lines[@]}" | head -n $(( ${#lines[@]} - 10 ))) \
			<(head -n $(( ${#lines[@]} - 10 )) "$W/zc-full.txt")
	done
}

@test "script: tracepoint fields equal perf script's, in text and JSON" {
	[ -s "$W/tp.data" ] || skip "perf cannot record sched:sched_switch here (tracefs)"
	perf script -i "$W/tp.data" -F event,trace 2>/dev/null | sed 's/^ *//' > "$W/perf-tp"
	run -0 sbx script -i "$W/tp.data" -F event,trace
	printf '%s\n' "${lines[@]}" | sed 's/^ *//' > "$W/sbx-tp"
	[ "$(wc -l < "$W/perf-tp")" -gt 0 ]
	run -0 diff "$W/perf-tp" "$W/sbx-tp"
	grep -q 'prev_comm=.* ==> next_comm=' "$W/sbx-tp"
	# JSON fields hold the same values as the text
	run -0 sbx script --json -i "$W/tp.data"
	first=$(sed -n 1p "$W/perf-tp")
	pid=$(echo "${lines[0]}" | jq -r '.fields.prev_pid')
	next=$(echo "${lines[0]}" | jq -r '.fields.next_comm')
	[[ "$first" == *"prev_pid=$pid "* ]]
	[[ "$first" == *"next_comm=$next "* ]]
	echo "${lines[0]}" | jq -e '.event == "sched:sched_switch" and (.fields | has("prev_state"))'
}

@test "script: tracepoints in pipe mode (tracing data in band)" {
	[ -s "$W/tp-pipe.data" ] || skip "perf cannot record sched:sched_switch here (tracefs)"
	perf script -i "$W/tp-pipe.data" -F event,trace 2>/dev/null | sed 's/^ *//' > "$W/perf-tpp"
	run -0 bash -c "cat '$W/tp-pipe.data' | '$SBX' script -i - -F event,trace"
	printf '%s\n' "${lines[@]}" | sed 's/^ *//' > "$W/sbx-tpp"
	[ "$(wc -l < "$W/perf-tpp")" -gt 0 ]
	run -0 diff "$W/perf-tpp" "$W/sbx-tpp"
}

@test "script: sbx record -e sched:sched_switch, decoded alike by sbx script and perf script" {
	[ -s "$W/tp.data" ] || skip "perf cannot record sched:sched_switch here (tracefs)"
	run -0 sbx record -e sched:sched_switch -a -o "$W/sbx-tp.data" -- sleep 0.2
	perf script -i "$W/sbx-tp.data" 2>/dev/null | sed 's/^.*sched:sched_switch: *//' > "$W/perf-own"
	run -0 sbx script -i "$W/sbx-tp.data" -F trace
	printf '%s\n' "${lines[@]}" | sed 's/^ *//' > "$W/sbx-own"
	[ "$(wc -l < "$W/perf-own")" -gt 0 ]
	diff "$W/perf-own" "$W/sbx-own"
}

@test "script: bad input gives one clear error and exit 1" {
	run -1 --separate-stderr sbx script -i "$W/no-such-file"
	assert_equal "$stderr" "sbx script: error: cannot open '$W/no-such-file': No such file or directory"
	run -1 --separate-stderr sbx script -i /dev/null
	[[ "$stderr" == *"not a perf.data"* ]]
	run -2 --separate-stderr sbx script extra-operand
	# a file cut in the middle of its data: the events before the cut, in order, then
	# the error (the page says so). Not a prefix of the whole file's events: when the
	# thread moved between CPUs, a round of the whole file also holds events written
	# after the cut (another CPU's buffer) that sort before some written ahead of it
	run -0 --separate-stderr sbx script -F tid,time,ip -i "$W/nl.data"
	printf '%s\n' "${lines[@]}" > "$BATS_TEST_TMPDIR/whole.txt"
	head -c $(( $(stat -c %s "$W/nl.data") / 2 )) "$W/nl.data" > "$BATS_TEST_TMPDIR/cut.data"
	run -1 --separate-stderr sbx script -F tid,time,ip -i "$BATS_TEST_TMPDIR/cut.data"
	[[ "${stderr_lines[-1]}" == "sbx script: error: the file is cut short: its data section ends at "*" bytes its header gives (truncated?); the records before were read" ]]
	[ "${#lines[@]}" -ge 10 ]
	printf '%s\n' "${lines[@]}" > "$BATS_TEST_TMPDIR/cut.txt"
	# each event of the cut file is one of the whole file's, in the same order
	run -0 awk 'NR == FNR { whole[++n] = $0; next }
		{ while (++j <= n && whole[j] != $0); if (j > n) { print "not in order: " $0; exit 1 } }' \
		"$BATS_TEST_TMPDIR/whole.txt" "$BATS_TEST_TMPDIR/cut.txt"
}

@test "script --folded: the stacks perf script prints, folded as stackcollapse-perf folds them" {
	cd "$BATS_TEST_TMPDIR"
	# C++ names with namespaces, templates and argument lists, a forking C program,
	# kernel frames: perf's call chains, and sbx record's
	perf record -q -e cpu-clock -F 2000 -g -o cxx.data -- "$WORKLOADS/cxxhot" >/dev/null 2>&1
	sbx record -q -e cpu-clock -F 2000 -g -o sbx.data -- "$WORKLOADS/cxxhot" >/dev/null 2>&1
	for f in cxx.data "$W/g.data" sbx.data; do
		perf script -F comm,ip,sym,dso -i "$f" 2>/dev/null |
			awk -f "$TOP/tests/tools/stackcollapse.awk" | LC_ALL=C sort > perf.folded
		run -0 --separate-stderr sbx script --folded -i "$f"
		LC_ALL=C sort <<< "$output" > sbx.folded
		# something to compare: stacks of several frames (forker's two spins
		# are comm;__libc_start_call_main;spin_N, and most recordings of it
		# have no other stack: a third, with kernel frames, comes now and then)
		[ "$(wc -l < perf.folded)" -ge 2 ]
		grep -q ';.*;' perf.folded
		diff perf.folded sbx.folded
	done
	# a C++ frame: argument lists cut, namespaces kept
	grep -q '^cxxhot;.*shapes::Square::area ' sbx.folded
	# the counts add up to the samples (perf script -G: a line per sample)
	[ "$(awk '{ s += $NF } END { print s }' sbx.folded)" -eq \
		"$(perf script -F comm -G -i sbx.data 2>/dev/null | wc -l)" ]
	run -2 --separate-stderr sbx script --folded -F ip -i sbx.data
	assert_equal "${stderr_lines[0]}" "sbx script: error: --folded prints stacks: no -F, --show-mmap-events or --show-task-events with it"
}

@test "script --pid, --tid, --comm, --dsos, -G: the samples perf script --pid, --tid, --comms, --dsos and -G print" {
	cd "$BATS_TEST_TMPDIR"
	# forker: a parent and its children, each with its own pid
	local pid tid
	pid=$(perf script -F pid -G -i "$W/g.data" 2>/dev/null | sort | uniq -c | sort -rn |
		awk 'NR == 2 { print $2 }')
	[ -n "$pid" ]
	perf script -F tid,time,ip -G --pid "$pid" -i "$W/g.data" 2>/dev/null |
		awk '{ sub(/:$/, "", $2); print }' > perf.txt
	run -0 --separate-stderr sbx script -F tid,time,ip -G --pid "$pid" -i "$W/g.data"
	awk '{ sub(/:$/, "", $2); print }' <<< "$output" > sbx.txt
	[ "$(wc -l < perf.txt)" -ge 5 ]
	diff perf.txt sbx.txt
	tid=$pid	# one thread each
	perf script -F tid,ip -G --tid "$tid" -i "$W/g.data" 2>/dev/null | awk '{ print $1, $2 }' > perf.txt
	run -0 --separate-stderr sbx script -F tid,ip -G --tid "$tid" -i "$W/g.data"
	[ "$(awk '{ print $1, $2 }' <<< "$output")" = "$(cat perf.txt)" ]
	# by name: the children are all "forker"
	perf script -F comm,tid -G --comms forker -i "$W/g.data" 2>/dev/null | awk '{ print $1, $2 }' > perf.txt
	run -0 --separate-stderr sbx script -F comm,tid -G --comm forker -i "$W/g.data"
	[ "$(awk '{ print $1, $2 }' <<< "$output")" = "$(cat perf.txt)" ]
	# perf's spellings, -c and --comms, and --dsos
	run -0 --separate-stderr sbx script -F comm,tid -G -c forker -i "$W/g.data"
	[ "$(awk '{ print $1, $2 }' <<< "$output")" = "$(cat perf.txt)" ]
	run -0 --separate-stderr sbx script -F comm,tid -G --comms forker -i "$W/g.data"
	[ "$(awk '{ print $1, $2 }' <<< "$output")" = "$(cat perf.txt)" ]
	for dso in forker "$(cd "$WORKLOADS" && pwd -P)/forker"; do	# its name, its path
		perf script -F tid,ip,dso -G --dsos "$dso" -i "$W/g.data" 2>/dev/null > perf.txt
		run -0 --separate-stderr sbx script -F tid,ip,dso -G --dsos "$dso" -i "$W/g.data"
		[ -s perf.txt ]
		diff perf.txt - <<< "$output"
	done
	# -G: no call chain, even when asked for
	run -0 --separate-stderr sbx script -F ip,callchain -G --pid "$pid" -i "$W/g.data"
	! grep -q $'^\t' <<< "$output"
	run -0 --separate-stderr sbx script -F ip,callchain --pid "$pid" -i "$W/g.data"
	grep -q $'^\t' <<< "$output"
	run -2 --separate-stderr sbx script --tid x1 -i "$W/g.data"
	assert_equal "${stderr_lines[0]}" "sbx script: error: --tid takes thread ids (numbers), not 'x1'"
}

@test "script and report --time: a malformed range is a usage error" {
	run -2 --separate-stderr sbx script -i "$W/nl.data" --time abc
	assert_equal "${stderr_lines[0]}" "sbx script: error: --time takes START,STOP in seconds, such as 20444.705,20444.708 (either may be left out), not 'abc'"
	run -2 --separate-stderr sbx report -i "$W/nl.data" --time 10%/2
	assert_equal "${stderr_lines[0]}" "sbx report: error: --time: perf's percent forms are not supported, only START,STOP in seconds ('10%/2')"
	run -2 --separate-stderr sbx script -i "$W/nl.data" --time 2,1
}

@test "script on a recording from another machine with no kernel map: perf's lines, its kernel addresses no one's" {
	local f="$BATS_TEST_DIRNAME/data/lbr/propeller_sample_1.perfdata"
	perf script -i "$f" > "$BATS_TEST_TMPDIR/perf.txt" 2>/dev/null
	"$SBX" script -i "$f" > "$BATS_TEST_TMPDIR/sbx.txt"
	diff "$BATS_TEST_TMPDIR/perf.txt" "$BATS_TEST_TMPDIR/sbx.txt"
	# the samples the CPU took in the kernel (cycles:u leaks) are there, unnamed
	grep -q ' ffffffffb1e00268 \[unknown\] (\[unknown\])$' "$BATS_TEST_TMPDIR/sbx.txt"
	run -0 --separate-stderr sbx report -i "$f" -s dso,sym
	assert_line --regexp '^ +0\.05% +\[unknown\] +\[k\] 0xffffffffb1e01eb0$'
}

@test "script on perf stat record files: perf script's count tables, byte for byte" {
	cd "$BATS_TEST_TMPDIR"
	local n=0 args
	# the global mode once and by interval; per CPU (deltas between rounds), per socket;
	# several events (a hardware one this machine cannot count: zeros)
	for args in "" "-I 100" "-a -A -I 100" "-a --per-socket -I 100" \
		"-e task-clock,page-faults,cycles -I 100"; do
		# shellcheck disable=SC2086
		perf stat record $args -o st.data -- "$WORKLOADS/forker" 1 1000 >/dev/null 2>&1
		perf script -i st.data > perf.out 2>/dev/null
		run -0 --separate-stderr sbx script -i st.data
		printf '%s\n' "$output" > sbx.out
		diff perf.out sbx.out
		[ "$(head -1 sbx.out)" = "CPU   THREAD             VAL             ENA             RUN            TIME EVENT" ]
		n=$((n + $(wc -l < sbx.out)))
		# per CPU, rounds after the first are deltas: at least two rounds (0.5 s or more)
		if [ "$args" = "-a -A -I 100" ]; then
			[ "$(awk 'NR > 1 { print $6 }' sbx.out | sort -u | wc -l)" -ge 2 ]
		fi
		# -D: the dump with the tables where perf prints them
		perf script -D -i st.data > perf.out 2>/dev/null
		run -0 --separate-stderr sbx script -D -i st.data
		printf '%s\n' "$output" > sbx.out
		diff perf.out sbx.out
	done
	[ "$n" -ge 50 ]
	# --json is of samples: none
	run -0 --separate-stderr sbx script --json -i st.data
	[ -z "$output" ]
}

@test "names are text: one line per event, whatever the comm or the file is called" {
	cd "$BATS_TEST_TMPDIR"
	name=$'np\n 99.99%  sshd\e[2J'
	cp "$WORKLOADS/noploop" "./$name"
	perf record -q -e cpu-clock -F 999 -o c.data -- "./$name" 100 > /dev/null 2>&1
	n=$(perf script -i c.data 2> /dev/null | grep -c 'cpu-clock:')
	run -0 --separate-stderr sbx script -i c.data
	assert_equal "${#lines[@]}" "$n"
	refute_output --partial $'\e'
	assert_line --regexp '^ *np\\n 99\.99%  ssh +[0-9]+ .* hot_a\+0x[0-9a-f]+ \(.*/np\\n 99\.99%  sshd\\x1b\[2J\)$'
}
