#!/usr/bin/env bats
# The header info of perf.data files (report/script --header, --header-only,
# -I), perf report's -F/--fields and -T/--threads, with perf as the judge,
# byte for byte, on files that perf and sbx recorded here.

load test_helper

setup_file() {
	command -v perf >/dev/null || return 0
	W=$BATS_FILE_TMPDIR
	perf record -q -e cpu-clock -F 999 -o "$W/plain.data" -- "$WORKLOADS/noploop" 100 \
		>/dev/null 2>&1 || true
	perf record -q -e cpu-clock -F 999 -g -z -o "$W/gz.data" -- "$WORKLOADS/noploop" 100 \
		>/dev/null 2>&1 || true
	perf record -q -e '{cpu-clock,task-clock}' -k mono -o "$W/group.data" -- \
		"$WORKLOADS/noploop" 100 >/dev/null 2>&1 || true
	perf record -q -e cpu-clock --call-graph dwarf -o "$W/dwarf.data" -- \
		"$WORKLOADS/noploop" 50 >/dev/null 2>&1 || true
	perf record -q -e cpu-clock -F 999 -o - -- "$WORKLOADS/noploop" 100 \
		>"$W/pipe.data" 2>/dev/null || true
	"$SBX" record -q -F 999 -o "$W/sbx.data" -- "$WORKLOADS/noploop" 100 \
		>/dev/null 2>&1 || true
	"$SBX" record -q -F 999 -g -z -o - -- "$WORKLOADS/noploop" 100 \
		>"$W/sbx-pipe.data" 2>/dev/null || true
	# several processes, kernel and user samples: for -F and -T
	"$SBX" record -q -s -F 999 -o "$W/sbx-multi.data" -- sh -c \
		"for i in 1 2 3; do '$WORKLOADS/noploop' 30; cat /usr/bin/perf | md5sum; done" \
		>/dev/null 2>&1 || true
	perf record -q -s -e cpu-clock -F 999 -o "$W/multi.data" -- sh -c \
		"for i in 1 2 3; do '$WORKLOADS/noploop' 30; cat /usr/bin/perf | md5sum; done" \
		>/dev/null 2>&1 || true
}

setup() {
	command -v perf >/dev/null || skip "perf is not installed"
	require_perf_events
	W=$BATS_FILE_TMPDIR
	[ -s "$W/plain.data" ] || skip "perf record could not record here"
}

@test "report --header-only and -I: perf's header block, byte for byte, on perf's and sbx's files" {
	local f n=0
	for f in plain gz group dwarf pipe sbx sbx-pipe; do
		[ -s "$W/$f.data" ] || { echo "$f.data was not recorded"; return 1; }
		for I in "" -I; do
			perf report -i "$W/$f.data" --header-only $I > "$W/perf.txt" 2>/dev/null
			run -0 --separate-stderr "$SBX" report -i "$W/$f.data" --header-only $I
			diff "$W/perf.txt" <(printf '%s\n' "${lines[@]}")
			n=$((n + 1))
		done
	done
	# what the files hold was printed: a group, a clock, compression, the topology
	run -0 "$SBX" report -i "$W/group.data" --header-only -I
	assert_line '# group: {cpu-clock,task-clock}'
	assert_line '# clockid: monotonic (1)'
	assert_line --regexp '^# CPU 0: Core ID [0-9]+, '
	assert_line --regexp '^# node0 cpu list : '
	run -0 "$SBX" report -i "$W/gz.data" --header-only
	assert_line --regexp '^# compressed : Zstd, level = 1, ratio = [0-9]+$'
	assert_line '# CPU_TOPOLOGY info available, use -I to display'
	run -0 "$SBX" report -i "$W/sbx.data" --header-only
	assert_line --regexp '^# cmdline : .*sbx record -q -F 999 -o .*noploop 100 $'
	assert_line --regexp '^# missing features: .*CPU_TOPOLOGY'
	[ "$n" = 14 ]
}

@test "script --header, --header-only: perf script's, header and samples" {
	local f
	for f in plain group pipe sbx; do
		perf script -i "$W/$f.data" --header > "$W/perf.txt" 2>/dev/null
		run -0 --separate-stderr "$SBX" script -i "$W/$f.data" --header
		diff "$W/perf.txt" <(printf '%s\n' "${lines[@]}")
		perf script -i "$W/$f.data" --header-only > "$W/perf.txt" 2>/dev/null
		run -0 --separate-stderr "$SBX" script -i "$W/$f.data" --header-only
		diff "$W/perf.txt" <(printf '%s\n' "${lines[@]}")
	done
	# pipe mode: the features follow the block, as their records pass
	run -0 "$SBX" script -i "$W/pipe.data" --header
	assert_line --index 7 '#'
	assert_line --index 8 --regexp '^# hostname : '
	# two events: the names right-aligned to the longer one, as perf script aligns them
	run -0 "$SBX" script -i "$W/group.data"
	assert_line --regexp '^ .* cpu-clock: '
}

@test "report --header: the block, then the report; misuse is a usage error" {
	run -0 --separate-stderr "$SBX" report -i "$W/plain.data" --header
	assert_line --index 0 '# ========'
	assert_line --regexp '^# missing features: '
	assert_line --regexp '^ +[0-9.]+%  noploop +noploop +\[\.\] hot_a$'
	# the block comes first: the rows after it
	local end rows
	end=$(printf '%s\n' "${lines[@]}" | grep -n '^# ========$' | sed -n 2p | cut -d: -f1)
	rows=$(printf '%s\n' "${lines[@]}" | grep -n '%' | head -1 | cut -d: -f1)
	[ "$end" -lt "$rows" ]
	run -2 --separate-stderr "$SBX" report -i "$W/plain.data" --header --json
	assert_equal "${stderr_lines[0]}" "sbx report: error: --header and --header-only print text: not with --json, --folded or --flamegraph"
	run -2 --separate-stderr "$SBX" script -i "$W/plain.data" --header-only --json
	assert_equal "${stderr_lines[0]}" "sbx script: error: --header and --header-only print text: not with --json or --folded"
}

# perf report's column header and rows (its preamble and tip left out), and sbx's
fields_table() {	# perf|sbx FILE ARGS...
	local who=$1 f=$2
	shift 2
	if [ "$who" = perf ]; then
		perf report --stdio -i "$f" "$@" 2>/dev/null
	else
		"$SBX" report -i "$f" "$@"
	fi | awk '/^# [A-Za-z ]/ && !/Samples:|Event count|Total Lost|To display|Tip/ { print; next }
		/^#/ || /^$/ { next } { print }'
}

@test "report -F/--fields and -s with perf's numbers: perf's columns, rows and order" {
	local args n=0
	[ -s "$W/multi.data" ] || { echo "multi.data was not recorded"; return 1; }
	while IFS= read -r args; do
		# shellcheck disable=SC2086
		diff <(fields_table perf "$W/multi.data" $args) <(fields_table sbx "$W/multi.data" $args)
		n=$((n + 1))
	done <<-EOF
		-F overhead,comm
		-F comm,overhead
		-F overhead,sample,period,comm
		-F +sample
		-F +dso
		-F overhead,comm -s dso
		-F +comm -s dso
		-F overhead -s dso
		-F comm -s sample
		-F overhead_sys,overhead_us,comm
		-F overhead_guest_sys,overhead_guest_us,overhead,comm
		-F overhead
		-F overhead_children,comm
		-F pid,overhead
		-F over,sam,per,co
		-F dso,comm -s comm
		-F comm,dso,overhead
		-F +period,pid -s comm
		-s comm,sample
		-s period,comm
		-F +sym -n
	EOF
	[ "$n" = 21 ]
	# the numbers themselves: sys and usr add up to the overhead of each row
	run -0 "$SBX" report -q -i "$W/multi.data" -F overhead,overhead_sys,overhead_us,comm
	printf '%s\n' "${lines[@]}" | awk '{ o = $1; s = $2; u = $3; gsub(/%/, "", o); gsub(/%/, "", s);
		gsub(/%/, "", u); if (s + u - o > 0.015 || o - s - u > 0.015) bad = 1 } END { exit bad }'
	run -2 --separate-stderr "$SBX" report -i "$W/multi.data" -F comm,weight
	assert_regex "${stderr_lines[0]}" "^sbx report: error: bad --fields 'comm,weight': perf's key 'weight' is not supported"
	run -2 --separate-stderr "$SBX" report -i "$W/multi.data" -s xyz
	assert_equal "${stderr_lines[0]}" "sbx report: error: bad --sort 'xyz': unknown key 'xyz'"
}

@test "report -T/--threads: perf's table of the READ records of record -s; sbx record -s" {
	local f
	for f in multi sbx-multi plain; do
		[ -s "$W/$f.data" ] || { echo "$f.data was not recorded"; return 1; }
		perf report -i "$W/$f.data" -T --stdio 2>/dev/null | sed -n '/^# *PID/,$p' > "$W/perf.txt"
		run -0 --separate-stderr "$SBX" report -i "$W/$f.data" -T
		diff "$W/perf.txt" <(printf '%s\n' "${lines[@]}" | sed -n '/^# *PID/,$p')
	done
	# sbx's own -s recording: a row per thread that ended, counts that are cpu-clock's ns
	run -0 "$SBX" report -i "$W/sbx-multi.data" -T -q
	assert_line --regexp '^# +PID +TID +cpu-clock$'
	[ "$(printf '%s\n' "${lines[@]}" | grep -cE '^ +[0-9]+ +[0-9]+ +[0-9]+$')" -ge 3 ]
	# no READ records: the header line alone, as in perf
	run -0 "$SBX" report -i "$W/plain.data" -T
	assert_line --index $(( ${#lines[@]} - 1 )) '# PID  TID'
	run -2 --separate-stderr "$SBX" report -i "$W/multi.data" -T --json
	assert_equal "${stderr_lines[0]}" "sbx report: error: -T prints a table after the rows: not with --json, --folded, --flamegraph or --stats"
}

@test "report -s symoff: a row per symbol and offset, the shares of perf script's sym+off" {
	# perf 6.1 has no symoff key (newer perf's label): perf script's sym+off counts judge it
	# (by DSO too: two DSOs may each have a _start+0x0)
	perf script -i "$W/multi.data" -F ip,sym,symoff,dso 2>/dev/null |
		awk '{ d = $NF; gsub(/[()]/, "", d); sub(/.*\//, "", d) }
			$2 != "[unknown]" { n[d "|" $2]++ } { t++ }
			END { for (k in n) printf "%s %.2f\n", k, 100 * n[k] / t }' |
		sort > "$W/perf-symoff"
	run -0 "$SBX" report -q -i "$W/multi.data" -s dso,symoff
	printf '%s\n' "${lines[@]}" | awk '$4 ~ /\+0x/ { p = $1; sub(/%/, "", p); print $2 "|" $4, p }' |
		sort > "$W/sbx-symoff"
	[ "$(wc -l < "$W/sbx-symoff")" -ge 5 ]
	# every named row of sbx is perf script's, share for share
	join "$W/sbx-symoff" "$W/perf-symoff" | awk '$2 != $3 { print; bad = 1 } END { exit bad }'
	[ "$(join "$W/sbx-symoff" "$W/perf-symoff" | wc -l)" = "$(wc -l < "$W/sbx-symoff")" ]
	run -0 "$SBX" report -i "$W/multi.data" -s symoff --json
	jq -e 'all(.[]; has("symoff")) and any(.[]; .symoff | test("\\+0x[0-9a-f]+$"))' <<< "$output"
}

@test "report --header-only: a file of the other byte order, a group past the events, a node without CPUs" {
	# a perf.data made here, little- and big-endian alike: perf reads both the same way
	cat > "$W/mk.py" <<-'PY'
	import struct, sys
	out, order = sys.argv[1], sys.argv[2]
	E = '<' if order == 'le' else '>'
	def u32(v): return struct.pack(E + 'I', v)
	def u64(v): return struct.pack(E + 'Q', v)
	def pstr(s):
	    b = s.encode() + b'\0'
	    b += b'\0' * (-len(b) % 64)
	    return u32(len(b)) + b
	def attr():
	    # type 1 (software), size 128, config 0 (cpu-clock), freq 4000, IP|TID|TIME|PERIOD,
	    # read_format ID; flags: disabled, inherit, mmap, comm, freq, sample_id_all, precise_ip 2
	    flags = 1 | 2 | 1 << 8 | 1 << 9 | 1 << 10 | 2 << 15 | 1 << 18
	    fb = struct.pack('<Q', flags)
	    if order == 'be':	# perf's bit-fields: each byte's bits mirrored, the bytes in place
	        fb = bytes(int('{:08b}'.format(x)[::-1], 2) for x in fb)
	    a = u32(1) + u32(128) + u64(0) + u64(4000) + u64(0x107) + u64(4) + fb
	    a += u32(0) + u32(0) + u64(0) * 4 + u32(0) + struct.pack(E + 'i', 0) + u64(0)
	    a += u32(0) + struct.pack(E + 'H', 0) + b'\0\0' + u32(0) + u32(0) + u64(0)
	    assert len(a) == 128
	    return a
	feats = {
	    3: pstr('host-' + order),
	    12: u32(1) + u32(128) + attr() + u32(1) + pstr('cpu-clock:ppp') + u64(7),
	    14: u32(1) + u32(0) + u64(100) + u64(50) + pstr(''),	# a NUMA node without CPUs
	    17: u32(1) + pstr('{anon_group}') + u32(0) + u32(0xffffffff),	# a group past the events
	}
	hdr_size, attrs_off = 104, 104
	ids_off = attrs_off + 144
	data_off = ids_off + 8
	data = u32(68) + struct.pack(E + 'HH', 0, 8)	# one FINISHED_ROUND
	feat_off = data_off + len(data)
	table, body, at = b'', b'', feat_off + 16 * len(feats)
	for f in sorted(feats):
	    table += u64(at + len(body)) + u64(len(feats[f]))
	    body += feats[f]
	bits = sum(1 << f for f in feats)
	h = u64(0x32454c4946524550) + u64(104) + u64(144) + u64(attrs_off) + u64(144)
	h += u64(data_off) + u64(len(data)) + u64(0) + u64(0) + u64(bits) + u64(0) * 3
	open(out, 'wb').write(h + attr() + u64(ids_off) + u64(8) + u64(7) + data + table + body)
	PY
	python3 "$W/mk.py" "$W/le.data" le
	python3 "$W/mk.py" "$W/be.data" be
	touch -r "$W/le.data" "$W/be.data"
	for f in le be; do
		perf report -i "$W/$f.data" --header-only -I > "$W/perf.txt" 2>/dev/null
		run -0 --separate-stderr timeout 20 "$SBX" report -i "$W/$f.data" --header-only -I
		diff "$W/perf.txt" <(printf '%s\n' "${lines[@]}")
	done
	# the big-endian event decoded: its bit-fields too
	assert_line '# event : name = cpu-clock:ppp, , id = { 7 }, type = 1, size = 128, { sample_period, sample_freq } = 4000, sample_type = IP|TID|TIME|PERIOD, read_format = ID, disabled = 1, inherit = 1, mmap = 1, comm = 1, freq = 1, precise_ip = 2, sample_id_all = 1'
	assert_line '# node0 cpu list : -1'
	refute_line --partial '# group:'
}
