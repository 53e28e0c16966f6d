#!/usr/bin/env bats
# sbx report on files that Linux perf recorded, with perf report as the
# judge: the same top symbols and the same per-PID split (within 1
# percentage point on the same file), and every process of one PIE binary
# attributed to its own function.

load test_helper

setup_file() {
	command -v perf >/dev/null || return 0
	W=$BATS_FILE_TMPDIR
	# noploop: hot_a ≈ 2/3, hot_b ≈ 1/3 of the CPU time
	perf record -q -e cpu-clock -F 999 -o "$W/nl.data" -- "$WORKLOADS/noploop" 300 \
		>/dev/null 2>&1 || true
	# the same PIE binary as 4 concurrent processes, spin_<i> each, with call chains
	perf record -q -e cpu-clock -F 999 -g -o "$W/fk.data" -- "$WORKLOADS/forker" 4 300 \
		>"$W/fk.out" 2>/dev/null || true
	# pipe mode, saved
	perf record -q -e cpu-clock -F 999 -o - -- "$WORKLOADS/noploop" 200 \
		>"$W/pipe.data" 2>/dev/null || true
}

setup() {
	command -v perf >/dev/null || skip "perf is not installed"
	require_perf_events
	W=$BATS_FILE_TMPDIR
	[ -s "$W/nl.data" ] || skip "perf record could not record here"
}

# "KEY PERCENT" lines of perf report --stdio --no-children for one sort key
perf_rows() {	# $1 file, $2 sort key
	perf report --stdio --no-children -i "$1" -s "$2" 2>/dev/null |
		awk '/^#/ || NF < 2 { next } $1 ~ /%$/ { p = $1; sub(/%/, "", p);
			$1 = ""; sub(/^ +/, ""); print $0 "\t" p }' | sort
}

# Join two "KEY\tPCT" lists and fail when a key's percentages differ by > 1.
compare_rows() {	# $1 perf rows, $2 sbx rows
	python3 - "$1" "$2" <<-'EOF'
	import sys
	def load(path):
	    d = {}
	    for line in open(path):
	        k, _, v = line.rstrip("\n").rpartition("\t")
	        d[k] = d.get(k, 0.0) + float(v)
	    return d
	perf, sbx = load(sys.argv[1]), load(sys.argv[2])
	bad = 0
	for k in sorted(set(perf) | set(sbx)):
	    a, b = perf.get(k, 0.0), sbx.get(k, 0.0)
	    if abs(a - b) > 1.0:
	        print(f"{k!r}: perf {a:.2f}% sbx {b:.2f}%")
	        bad += 1
	top_perf = max(perf, key=perf.get) if perf else None
	top_sbx = max(sbx, key=sbx.get) if sbx else None
	if top_perf != top_sbx:
	    print(f"top differs: perf {top_perf!r} sbx {top_sbx!r}")
	    bad += 1
	sys.exit(1 if bad else 0)
	EOF
}

@test "report: noploop's top symbols match perf report within 1 point" {
	perf_rows "$W/nl.data" sym | sed 's/^\[[.k]\] //' > "$W/perf-sym"
	run -0 sbx report --json -i "$W/nl.data" -s sym
	echo "$output" | jq -r '.[] | .symbol + "\t" + (.percent|tostring)' | sort > "$W/sbx-sym"
	run -0 compare_rows "$W/perf-sym" "$W/sbx-sym"
	# and the known answer: hot_a first, hot_b second, together most of the time
	run -0 sbx report --json -i "$W/nl.data" -s sym
	a=$(echo "$output" | jq '[.[] | select(.symbol == "hot_a") | .percent] | add')
	b=$(echo "$output" | jq '[.[] | select(.symbol == "hot_b") | .percent] | add')
	top=$(echo "$output" | jq -r '.[0].symbol')
	[ "$top" = hot_a ]
	python3 -c "import sys; a, b = $a, $b; sys.exit(0 if a > b > 15 and a + b > 80 else 1)"
}

@test "report: text output has perf's columns and the hot functions" {
	run -0 sbx report -i "$W/nl.data"
	assert_line --partial "# Samples: "
	assert_line --partial "of event 'cpu-clock'"
	assert_line --regexp '^ +[0-9]+\.[0-9]+%  noploop +noploop +\[\.\] hot_a$'
	assert_line --regexp '^ +[0-9]+\.[0-9]+%  noploop +noploop +\[\.\] hot_b$'
}

@test "report: --json rows carry exactly the sort keys (dso with its path) and the counts" {
	run -0 sbx report --json -i "$W/nl.data" -s pid,dso
	echo "$output" | jq -e 'type == "array" and length > 0'
	echo "$output" | jq -e 'all(.[]; (keys | sort) == ["dso","dso_path","percent","period","pid","samples","thread_comm","tid"])'
	# percentages add up to 100 and samples to the file's sample count
	echo "$output" | jq -e '([.[].percent] | add) > 99.99 and ([.[].percent] | add) < 100.01'
	n=$(perf report --stdio -i "$W/nl.data" 2>/dev/null | sed -n "s/^# Samples: \([0-9]*\) .*/\1/p")
	[ "$(echo "$output" | jq '[.[].samples] | add')" -eq "$n" ]
	# the global --json works too
	run -0 "$SBX" --json report -i "$W/nl.data" -s comm
	echo "$output" | jq -e 'all(.[]; (keys | sort) == ["comm","percent","period","samples"])'
}

@test "report: the forker's per-PID split matches perf report within 1 point" {
	perf_rows "$W/fk.data" pid | sed 's/:.*\t/\t/' > "$W/perf-pid"
	run -0 sbx report --json -i "$W/fk.data" -s pid
	echo "$output" | jq -r '.[] | (.pid|tostring) + "\t" + (.percent|tostring)' | sort > "$W/sbx-pid"
	run -0 compare_rows "$W/perf-pid" "$W/sbx-pid"
}

@test "report: every forker process is attributed to its own function, none lost" {
	[ "$(wc -l < "$W/fk.out")" -eq 4 ]
	run -0 sbx report --json -i "$W/fk.data" -s pid,sym
	json=$output
	while read -r _ pid fn; do
		# this process's hottest symbol is its own spin function, with most of its samples
		top=$(echo "$json" | jq -r --argjson p "$pid" '[.[] | select(.pid == $p)] | .[0].symbol')
		[ "$top" = "$fn" ] || { echo "pid $pid: top $top, expected $fn"; false; }
		own=$(echo "$json" | jq --argjson p "$pid" --arg f "$fn" \
			'[.[] | select(.pid == $p and .symbol == $f) | .samples] | add')
		all=$(echo "$json" | jq --argjson p "$pid" '[.[] | select(.pid == $p) | .samples] | add')
		[ $((own * 100)) -ge $((all * 80)) ] || { echo "pid $pid: $own of $all in $fn"; false; }
		# and no other process has samples in it
		other=$(echo "$json" | jq --argjson p "$pid" --arg f "$fn" \
			'[.[] | select(.pid != $p and .symbol == $f)] | length')
		[ "$other" -eq 0 ]
	done < "$W/fk.out"
	# no sample dropped: sbx counts as many samples as perf
	n=$(perf report --stdio -i "$W/fk.data" 2>/dev/null | sed -n "s/^# Samples: \([0-9]*\) .*/\1/p")
	[ "$(echo "$json" | jq '[.[].samples] | add')" -eq "$n" ]
}

@test "report: --pid, --comm and --dso filter" {
	read -r _ pid fn < "$W/fk.out"
	run -0 sbx report --json -i "$W/fk.data" -s pid,sym --pid "$pid"
	echo "$output" | jq -e --argjson p "$pid" 'length > 0 and all(.[]; .pid == $p)'
	[ "$(echo "$output" | jq -r '.[0].symbol')" = "$fn" ]
	# perf's default percentages are absolute: of all samples; relative: of those kept
	run -0 sbx report --json -i "$W/nl.data" -s comm,dso --dso noploop --percentage relative
	echo "$output" | jq -e 'length == 1 and .[0].dso == "noploop" and .[0].percent == 100'
	run -0 sbx report --json -i "$W/fk.data" -s comm --comm forker
	echo "$output" | jq -e 'length == 1 and .[0].comm == "forker"'
	run -0 sbx report -i "$W/nl.data" --comm no-such-comm
	assert_output --partial "no samples match"
	# a pid that is no number is a usage error, not an empty report
	run -2 --separate-stderr sbx report -i "$W/nl.data" --pid "$pid,abc"
	assert_equal "${stderr_lines[0]}" "sbx report: error: --pid takes process ids (numbers), not 'abc'"
	run -2 --separate-stderr sbx report -i "$W/nl.data" --pid 0123
	assert_equal "${stderr_lines[0]}" "sbx report: error: --pid takes process ids (numbers), not '0123'"
	# --tid: the thread's samples, as many as perf script --tid prints (--stdio: perf's word)
	run -0 sbx report --json --stdio -i "$W/fk.data" -s sym --tid "$pid"
	[ "$(echo "$output" | jq '[.[].samples] | add')" -eq \
		"$(perf script -F tid -G -i "$W/fk.data" --tid "$pid" 2>/dev/null | wc -l)" ]
	[ "$(echo "$output" | jq -r '.[0].symbol')" = "$fn" ]
	run -2 --separate-stderr sbx report -i "$W/nl.data" --tid -1
	assert_equal "${stderr_lines[0]}" "sbx report: error: --tid takes thread ids (numbers), not '-1'"
}

@test "report: pipe mode from stdin and from a saved stream" {
	[ -s "$W/pipe.data" ] || skip "perf record -o - could not record here"
	run -0 sbx report --json -i "$W/pipe.data" -s sym
	[ "$(echo "$output" | jq -r '.[0].symbol')" = hot_a ]
	run -0 bash -c "perf record -q -e cpu-clock -F 999 -o - -- '$WORKLOADS/noploop' 200 2>/dev/null |
		'$SBX' report --json -i - -s sym"
	[ "$(echo "$output" | jq -r '.[0].symbol')" = hot_a ]
	echo "$output" | jq -e '[.[] | select(.symbol == "hot_b")] | length == 1'
	# a file-mode perf.data through a pipe works too (read into memory)
	run -0 bash -c "cat '$W/nl.data' | '$SBX' report --json -i - -s sym"
	[ "$(echo "$output" | jq -r '.[0].symbol')" = hot_a ]
}

@test "report: samples in [vdso] resolve like perf's (this kernel's vdso image)" {
	cat > "$W/vd.c" <<-'EOF'
	#include <time.h>
	int main(void)
	{
		struct timespec ts;
		unsigned long s = 0;
		for (long i = 0; i < 10000000; i++) {
			clock_gettime(CLOCK_MONOTONIC, &ts);
			s += ts.tv_nsec;
		}
		return s == 1;
	}
	EOF
	# -fno-plt: no PLT stub to name (perf 6.1 calls an executable's PLT "_init", sbx "f@plt")
	cc -O1 -fno-plt -o "$W/vd" "$W/vd.c"
	perf record -q -e cpu-clock -F 999 -o "$W/vd.data" -- "$W/vd" >/dev/null 2>&1
	perf_rows "$W/vd.data" sym | sed 's/^\[[.k]\] //' > "$W/perf-vd"
	run -0 sbx report --json -i "$W/vd.data" -s sym
	echo "$output" | jq -r '.[] | .symbol + "\t" + (.percent|tostring)' | sort > "$W/sbx-vd"
	grep -q '__vdso_clock_gettime' "$W/sbx-vd"
	run -0 compare_rows "$W/perf-vd" "$W/sbx-vd"
}

@test "report: two events in one file, each with its own table and ids" {
	perf record -q -e cpu-clock,task-clock -F 999 -o "$W/two.data" -- "$WORKLOADS/noploop" 200 \
		>/dev/null 2>&1 || skip "perf cannot record two events here"
	run -0 sbx report -i "$W/two.data"
	assert_line --partial "of event 'cpu-clock'"
	assert_line --partial "of event 'task-clock'"
	run -0 sbx report --json -i "$W/two.data" -s sym
	for ev in cpu-clock task-clock; do
		# perf's share of hot_a for this event, and ours
		p=$(perf report --stdio --no-children -i "$W/two.data" -s sym 2>/dev/null |
			awk -v ev="'$ev'" '/^# Samples:/ { on = ($NF == ev) } on && / hot_a$/ { sub(/%/, "", $1); print $1 }')
		s=$(echo "$output" | jq --arg e "$ev" '.[] | select(.event == $e and .symbol == "hot_a") | .percent')
		python3 -c "import sys; sys.exit(0 if abs($p - $s) <= 1 else 1)" ||
			{ echo "$ev: perf $p sbx $s"; false; }
	done
}

@test "report: bad input gives one clear error and exit 1" {
	run -1 --separate-stderr sbx report -i "$W/no-such-file"
	assert_equal "$stderr" "sbx report: error: cannot open '$W/no-such-file': No such file or directory"
	printf 'this is not a perf.data file\n' > "$W/junk"
	run -1 --separate-stderr sbx report -i "$W/junk"
	[[ "$stderr" == *"not a perf.data file"* ]]
	[ "$(echo "$stderr" | wc -l)" -eq 1 ]
	# a file cut in the middle of its data section
	size=$(stat -c %s "$W/nl.data")
	head -c $((size / 2)) "$W/nl.data" > "$W/cut.data"
	run -1 --separate-stderr sbx report -i "$W/cut.data"
	[[ "$stderr" == *"truncated"* ]]
	# a pipe stream cut mid-record: what came before is read, then the error
	size=$(stat -c %s "$W/pipe.data")
	head -c $((size - 13)) "$W/pipe.data" > "$W/cut-pipe.data"
	run -1 --separate-stderr sbx report -i - < "$W/cut-pipe.data"
	[[ "$stderr" == *"truncated"* ]]
	run -1 --separate-stderr bash -c "cat '$W/cut-pipe.data' | '$SBX' report -i -"
	[[ "$stderr" == *"truncated"* ]]
}

# sbx report --json -s sym of $1 (a file or - for stdin) as "SYM\tPCT" lines in
# $2, and its sample count in $W/n; nothing on stderr but the warning of samples
# the recording lost (perf at -F 5000 on a busy machine loses some: a fact of the
# file, which sbx must say)
sbx_sym_rows() {
	local other
	run -0 --separate-stderr sbx report --json -i "$1" -s sym
	other=$(printf '%s\n' "$stderr" |
		grep -v '^sbx report: warning: [0-9]* samples were lost while recording$' || true)
	[ -z "$other" ] || { echo "stderr: $stderr"; false; }
	echo "$output" | jq -r '.[] | .symbol + "\t" + (.percent|tostring)' | sort > "$2"
	echo "$output" | jq '[.[].samples] | add' > "$W/n"
}

# the samples in $1 as perf counts them (perf report abbreviates: "15K")
perf_samples_n() {
	perf script -F time -i "$1" 2>/dev/null | wc -l
}

# cut-feature IN OUT F: IN cut 4 bytes into the section of feature F (-1: the first one)
cut_feature() {
	python3 - "$@" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
want = int(sys.argv[3])
off, size = struct.unpack_from('<QQ', b, 40)
bits = struct.unpack_from('<4Q', b, 72)
feats = [f for f in range(256) if bits[f // 64] >> (f % 64) & 1]
sec = {f: struct.unpack_from('<QQ', b, off + size + 16 * i) for i, f in enumerate(feats)}
at = sec[feats[0] if want < 0 else want][0] + 4
open(sys.argv[2], 'wb').write(b[:at])
PY
}

@test "report: a file cut inside its feature sections is said to be; a cut HEADER_COMPRESSED named" {
	cut_feature "$W/nl.data" "$W/cut.data" -1
	run -0 --separate-stderr sbx report -i "$W/cut.data" -s sym
	[[ "$stderr" == *"cut.data: the "*"hostname"*" feature sections run past the end of the file (truncated?): ignored"* ]]
	# the samples are all there still
	assert_line --regexp 'hot_a'
	[ -s "$W/z.data" ] || perf record -q -z -e cpu-clock -F 999 -o "$W/z.data" -- \
		"$WORKLOADS/noploop" 50 >/dev/null 2>&1 || skip "perf record -z is not available here"
	cut_feature "$W/z.data" "$W/zcut.data" 27
	run -1 --separate-stderr sbx report -i "$W/zcut.data"
	[[ "$stderr" == *"the HEADER_COMPRESSED feature runs past the end of the file (truncated?)"* ]]
}

# damage SRC DST WHAT: a copy of a perf.data (file mode, one event) with one thing broken;
# prints the offset of the record it broke. WHAT: zero (the first SAMPLE's size 0), small
# (4), nr (its call chain claims 2^40 frames), feat (the first feature's offset and size
# 2^64-1)
damage() {
	python3 - "$@" <<'PY'
import struct, sys
src, dst, what = sys.argv[1:4]
b = bytearray(open(src, 'rb').read())
attrs_off = struct.unpack_from('<Q', b, 24)[0]
st = struct.unpack_from('<Q', b, attrs_off + 24)[0]
data_off, data_size = struct.unpack_from('<QQ', b, 40)
if what == 'feat':
    struct.pack_into('<QQ', b, data_off + data_size, 2**64 - 1, 2**64 - 1)
    print(data_off + data_size)
else:
    p = data_off
    while p < data_off + data_size:
        t, m, sz = struct.unpack_from('<IHH', b, p)
        if t == 9:
            break
        p += sz
    if what == 'zero':
        struct.pack_into('<H', b, p + 6, 0)
    elif what == 'small':
        struct.pack_into('<H', b, p + 6, 4)
    elif what == 'nr':
        # the fields before the chain: IDENTIFIER IP TID TIME ADDR ID STREAM_ID CPU PERIOD
        o = p + 8 + 8 * sum(1 for bit in (16, 0, 1, 2, 3, 6, 9, 7, 8) if st >> bit & 1)
        assert st >> 5 & 1 and not st >> 4 & 1
        struct.pack_into('<Q', b, o, 2**40)
    print(p)
open(dst, 'wb').write(b)
PY
}

@test "report: a damaged record is named by its offset; an absurd count allocates nothing" {
	local off
	# a record of 0 or 4 bytes: the reading stops there, with its place
	for what in zero small; do
		off=$(damage "$W/fk.data" "$W/bad.data" $what)
		run -1 --separate-stderr sbx report -i "$W/bad.data"
		assert_regex "$stderr" "truncated or corrupt record \(type 9, [04] bytes\) at offset $off"
		run -1 --separate-stderr sbx script -i "$W/bad.data"
		assert_regex "$stderr" "at offset $off"
	done
	# a call chain of 2^40 frames: that sample is left out, said with its offset, the rest read
	off=$(damage "$W/fk.data" "$W/bad.data" nr)
	# under 1 GB of address space (overcommit would hide a huge malloc that is never
	# touched; ASan's shadow needs more, so not in the sanitizer build)
	local lim='ulimit -v 1000000;'
	[[ $BUILD == */san ]] && lim=
	run -0 --separate-stderr bash -c "$lim /usr/bin/time -f '%M' '$SBX' report -i '$W/bad.data' -s comm"
	assert_regex "$stderr" "warning: 1 samples could not be parsed or named an unknown event, and were left out; the first, at offset $off: "
	assert_line --regexp '^ +[0-9.]+%  forker'
	# no allocation of what the count claims: well under 100 MB
	[ "$(tail -1 <<< "$stderr")" -lt 100000 ]
	# a feature section at 2^64-1, 2^64-1 bytes long: ignored, and said
	damage "$W/nl.data" "$W/bad.data" feat > /dev/null
	run -0 --separate-stderr sbx report -i "$W/bad.data" -s sym
	assert_regex "$stderr" 'feature sections? runs? past the end of the file \(truncated\?\): ignored'
	assert_line --regexp 'hot_a'
	# a pipe whose tracing data claims 4 GiB and holds 100 bytes: an error, not 4 GiB
	python3 -c 'import struct, sys; sys.stdout.buffer.write(b"PERFILE2" + struct.pack("<QIHHI",
		16, 66, 0, 16, 0xfffffff0) + bytes(4) + b"x" * 100)' > "$W/td.data"
	# under 1 GB of address space, as above
	run -1 --separate-stderr bash -c "$lim cat '$W/td.data' | /usr/bin/time -f '%M' '$SBX' report -i -"
	assert_regex "$stderr" 'error: truncated tracing data \(4294967280 bytes claimed, fewer there\)'
	[ "$(tail -1 <<< "$stderr")" -lt 100000 ]
	run -1 --separate-stderr "$SBX" report -i "$W/td.data"
	assert_regex "$stderr" 'error: truncated tracing data'
}

@test "report: perf record -z (zstd) files match perf report, in file and pipe mode" {
	perf record -q -z -e cpu-clock -F 999 -o "$W/z.data" -- "$WORKLOADS/noploop" 200 \
		>/dev/null 2>&1 || skip "perf record -z is not available here"
	# the data really is compressed
	perf report --header-only -i "$W/z.data" 2>/dev/null | grep -q '^# compressed : Zstd'
	perf_rows "$W/z.data" sym | sed 's/^\[[.k]\] //' > "$W/perf-zsym"
	sbx_sym_rows "$W/z.data" "$W/sbx-zsym"
	run -0 compare_rows "$W/perf-zsym" "$W/sbx-zsym"
	[ "$(cat "$W/n")" -eq "$(perf_samples_n "$W/z.data")" ]
	# about 170 samples here (noploop 200 at 999 Hz): 20 leaves a wide margin
	[ "$(head -1 "$W/n")" -gt 20 ]
	grep -q '^hot_a	' "$W/sbx-zsym"
	# pipe mode, read from a real pipe as perf writes it, and saved
	run -0 bash -c "perf record -q -z -e cpu-clock -F 999 -o - -- '$WORKLOADS/noploop' 200 \
		2>/dev/null | tee '$W/zpipe.data' | '$SBX' report --json -i - -s sym > '$W/zpipe.json'"
	perf_rows "$W/zpipe.data" sym | sed 's/^\[[.k]\] //' > "$W/perf-zpsym"
	jq -r '.[] | .symbol + "\t" + (.percent|tostring)' "$W/zpipe.json" | sort > "$W/sbx-zpsym"
	run -0 compare_rows "$W/perf-zpsym" "$W/sbx-zpsym"
	[ "$(jq '[.[].samples] | add' "$W/zpipe.json")" -eq "$(perf_samples_n "$W/zpipe.data")" ]
	sbx_sym_rows - "$W/sbx-zpsym2" < "$W/zpipe.data"
	diff "$W/sbx-zpsym" "$W/sbx-zpsym2"
}

@test "report: perf record -z, small ring buffers: records straddle COMPRESSED records" {
	# -m 4: many small compressed flushes, so records cross their boundaries
	# (about 29 did in each run here; records must differ in size for that: stairs' call chains are 1 to 8
	# frames deep, so samples of every length land at every offset)
	perf record -q -z -m 4 -e cpu-clock -F 5000 -g -o "$W/zs.data" -- "$WORKLOADS/stairs" 1000 \
		>/dev/null 2>&1 || skip "perf record -z is not available here"
	perf_rows "$W/zs.data" sym | sed 's/^\[[.k]\] //' > "$W/perf-zssym"
	sbx_sym_rows "$W/zs.data" "$W/sbx-zssym"
	# the case under test happened
	run -0 --separate-stderr sbx -v report -i "$W/zs.data"
	assert_regex "$stderr" 'COMPRESSED records decompressed; [1-9][0-9]* records straddled'
	run -0 compare_rows "$W/perf-zssym" "$W/sbx-zssym"
	[ "$(cat "$W/n")" -eq "$(perf_samples_n "$W/zs.data")" ]
}

@test "report: perf record -z data cut or corrupt: one clear error" {
	perf record -q -z -e cpu-clock -F 999 -o - -- "$WORKLOADS/noploop" 100 \
		>"$W/zc.data" 2>/dev/null || skip "perf record -z is not available here"
	# garbage over the first COMPRESSED record's zstd frame header
	off=$(python3 - "$W/zc.data" <<-'EOF'
	import struct, sys
	b = open(sys.argv[1], "rb").read()
	pos = 16
	while pos < len(b):
	    t, m, s = struct.unpack_from("<IHH", b, pos)
	    if t == 81:
	        print(pos + 8)
	        break
	    pos += s
	EOF
	)
	[ -n "$off" ]
	cp "$W/zc.data" "$W/zbad.data"
	printf '\xa5\xa5\xa5\xa5\xa5\xa5\xa5\xa5' | dd of="$W/zbad.data" bs=1 seek="$off" conv=notrunc 2>/dev/null
	run -1 --separate-stderr sbx report -i "$W/zbad.data"
	[[ "$stderr" == *"corrupt zstd data"* ]]
	[ "$(printf '%s\n' "$stderr" | grep -c error)" -eq 1 ]
	# cut inside its last COMPRESSED record
	size=$(stat -c %s "$W/zc.data")
	head -c $((size - 20)) "$W/zc.data" > "$W/zcut.data"
	run -1 --separate-stderr sbx report -i - < "$W/zcut.data"
	[[ "$stderr" == *"truncated"* ]]
}

@test "report: usage errors exit 2" {
	run -2 --separate-stderr sbx report -s nosuchkey -i "$W/nl.data"
	[[ "$stderr" == *"bad --sort"* ]]
	# a key twice counts once, as in perf
	run -0 --separate-stderr sbx report -s sym,sym -i "$W/nl.data"
	local twice=$output
	run -0 --separate-stderr sbx report -s sym -i "$W/nl.data"
	assert_equal "$twice" "$output"
	run -2 --separate-stderr sbx report --limit x -i "$W/nl.data"
	assert_equal "${stderr_lines[0]}" "sbx report: error: bad --limit 'x'"
	# -n is perf's: a flag, so a number after it is an operand
	run -2 --separate-stderr sbx report -n 3 -i "$W/nl.data"
	run -2 --separate-stderr sbx report extra-operand
}

@test "report --folded and --flamegraph: the stacks of script --folded; an SVG whose frames nest and add up" {
	cd "$BATS_TEST_TMPDIR"
	# every sample: the same stacks as sbx script --folded (whose judge is perf script)
	run -0 --separate-stderr sbx report --folded -i "$W/fk.data"
	echo "$output" > report.folded
	run -0 --separate-stderr sbx script --folded -i "$W/fk.data"
	[ "$output" = "$(cat report.folded)" ]
	# --comm and --pid filter by the sample, as for the rows
	local pid
	pid=$(perf script -F pid -G -i "$W/fk.data" 2>/dev/null | sort | uniq -c | sort -rn |
		awk 'NR == 1 { print $2 }')
	run -0 --separate-stderr sbx report --folded --pid "$pid" -i "$W/fk.data"
	[ "$(awk '{ s += $NF } END { print s }' <<< "$output")" -eq \
		"$(perf script -F pid -G -i "$W/fk.data" 2>/dev/null | awk -v p="$pid" '$1 == p' | wc -l)" ]
	# the flame graph: well-formed, deterministic, one frame per distinct prefix
	run -0 --separate-stderr sbx report --flamegraph fg.svg -i "$W/fk.data"
	[ -z "$output" ]
	xmllint --noout fg.svg
	sbx report --flamegraph fg2.svg -i "$W/fk.data"
	cmp fg.svg fg2.svg
	# frames: x, width in samples, depth; the root is every sample
	sed -n 's/.*data-x="\([0-9]*\)" data-w="\([0-9]*\)" data-d="\([0-9]*\)".*/\1 \2 \3/p' fg.svg > frames
	local total
	total=$(awk '{ s += $NF } END { print s }' report.folded)
	[ "$(awk '$3 == 0 { print $2 }' frames)" -eq "$total" ]
	# each frame lies inside one frame a level below, and the frames of a level
	# never overlap and add up to at most the level below
	python3 - frames <<-'PY'
	import sys, collections
	by = collections.defaultdict(list)
	for line in open(sys.argv[1]):
	    x, w, d = map(int, line.split())
	    by[d].append((x, w))
	for d in sorted(by):
	    row = sorted(by[d])
	    for (x1, w1), (x2, w2) in zip(row, row[1:]):
	        assert x1 + w1 <= x2, ("overlap", d, x1, w1, x2)
	    if d == 0:
	        continue
	    for x, w in row:
	        assert w > 0
	        assert any(px <= x and x + w <= px + pw for px, pw in by[d - 1]), ("orphan", d, x, w)
	    assert sum(w for _, w in row) <= sum(w for _, w in by[d - 1])
	PY
	# as many frames as distinct stack prefixes in the folded lines, plus the root
	[ "$(wc -l < frames)" -eq $(( $(awk '{ $NF = ""; n = split($0, f, ";"); p = "";
		for (i = 1; i <= n; i++) { p = p ";" f[i]; sub(/ $/, "", p); print p } }' report.folded |
		sort -u | wc -l) + 1 )) ]
	# a frame's title: its name, DSO, samples and share
	grep -q '<title>spin_[0-9] (.*forker): [0-9]* samples, [0-9.]*%</title>' fg.svg
	# one of them at a time
	run -2 --separate-stderr sbx report --folded --json -i "$W/fk.data"
	assert_equal "${stderr_lines[0]}" "sbx report: error: --json, --folded and --flamegraph exclude each other"
}

@test "report --children: perf report --children's columns, top 20 rows within 0.5 points" {
	cd "$BATS_TEST_TMPDIR"
	# several processes with call chains: the forker's children and a C++ program
	perf record -q -e cpu-clock -F 2000 -g -o mp.data -- \
		sh -c "'$WORKLOADS/forker' 3 300 & '$WORKLOADS/cxxhot'; wait" >/dev/null 2>&1
	# "comm dso sym<TAB>children<TAB>self" of each, resolved rows only (perf labels
	# unresolved addresses, and frames outside every map, its own way)
	perf report --stdio --children -g none -i mp.data -s comm,dso,sym 2>/dev/null |
		awk '/^#/ || NF < 5 || $1 !~ /%$/ { next }
		     { c = $1; s = $2; sub(/%/, "", c); sub(/%/, "", s); $1 = $2 = ""
		       sub(/^ +/, ""); gsub(/ +/, " "); print $0 "\t" c "\t" s }' |
		grep -v -e ' 0x[0-9a-f]*	' -e ' \[unknown\] ' > perf.rows
	run -0 --separate-stderr sbx report --children -i mp.data -s comm,dso,sym
	awk '/^#/ || NF < 5 || $1 !~ /%$/ { next }
	     { c = $1; s = $2; sub(/%/, "", c); sub(/%/, "", s); $1 = $2 = ""
	       sub(/^ +/, ""); gsub(/ +/, " "); print $0 "\t" c "\t" s }' <<< "$output" > sbx.rows
	[ "$(wc -l < perf.rows)" -ge 20 ]
	python3 - perf.rows sbx.rows <<-'PY'
	import sys
	def load(path):
	    rows = {}
	    for line in open(path):
	        k, c, s = line.rstrip("\n").split("\t")
	        rows[k] = (float(c), float(s))
	    return rows
	perf, sbx = load(sys.argv[1]), load(sys.argv[2])
	top = sorted(perf, key=lambda k: -perf[k][0])[:20]
	bad = [k for k in top if k not in sbx or abs(perf[k][0] - sbx[k][0]) > 0.5
	       or abs(perf[k][1] - sbx[k][1]) > 0.5]
	for k in bad:
	    print(repr(k), perf[k], sbx.get(k))
	sys.exit(1 if bad else 0)
	PY
	# sorted by children, heaviest first
	run -0 sbx report --children --json -i mp.data -s sym
	echo "$output" | jq -e '[.[].children_percent] | . == (sort | reverse)'
	echo "$output" | jq -e 'all(.[]; .children_period >= .period)'
}

@test "report --children on a file without call chains: off, as perf turns it off" {
	cd "$BATS_TEST_TMPDIR"
	perf record -q -e cpu-clock -F 999 -o flat.data -- "$WORKLOADS/forker" 2 100 >/dev/null 2>&1
	# perf's header line and rows (sorted: ties of a sample may come in either order)
	perf report --stdio --children -i flat.data 2>/dev/null | grep -v '^#' | grep . | sort > perf.out
	perf report --stdio --children -i flat.data 2>/dev/null | grep -m1 '^# *Overhead' > perf.head
	run -0 --separate-stderr sbx report --children -i flat.data
	grep -v '^#' <<< "$output" | grep . | sort > sbx.out
	grep -m1 '^# *Overhead' <<< "$output" > sbx.head
	diff perf.head sbx.head
	diff perf.out sbx.out
	run -0 sbx report --children --json -i flat.data
	echo "$output" | jq -e 'all(.[]; has("children_percent") | not)'
}

# The blocks (a row and its call graph) of the top 20 rows of perf report
# --stdio ARGS that have a label both resolve; each must be in sbx report ARGS,
# byte for byte. perf orders equal branches of two DSOs by their addresses in
# its memory: a threshold of 2% keeps such ties (of a few samples) out. perf
# names the fractal's remainder "[...] (inlined)" when the symbol it mallocs for
# it has that bit set by chance; sbx prints "[...]".
same_graph_blocks() {	# $1 file, ARGS...
	local f=$1
	shift
	perf report --stdio -i "$f" "$@" 2>/dev/null |
		sed 's/--\[\.\.\.\] (inlined)$/--[...]/' > perf.out
	run -0 --separate-stderr sbx report -i "$f" "$@"
	printf '%s\n' "$output" > sbx.out
	python3 - perf.out sbx.out <<-'PY'
	import re, sys
	def blocks(path):
	    # a row's line starts with its share; graph lines (folded: no indent), after
	    out, cur = [], []
	    for line in open(path):
	        line = line.rstrip("\n")
	        if line.startswith("#") or not line.strip():
	            continue
	        if re.match(r" {1,8}[0-9.]+%", line) and cur:
	            out.append("\n".join(cur))
	            cur = []
	        cur.append(line)
	    if cur:
	        out.append("\n".join(cur))
	    return out
	perf, sbx = blocks(sys.argv[1]), set(blocks(sys.argv[2]))
	top = [b for b in perf[:20] if not any(x in b.split("\n")[0] for x in
	       ("[unknown]", " 0x", "0000000000000000"))]
	graphs = sum(1 for b in top if "\n" in b)
	bad = [b for b in top if b not in sbx]
	for b in bad:
	    print("perf's block is not in sbx's output:\n" + b)
	print(len(top), "blocks,", graphs, "with a graph")
	sys.exit(1 if bad or graphs < 5 else 0)
	PY
}

@test "report -g: perf report -g's call graphs, byte for byte, in every mode and order" {
	cd "$BATS_TEST_TMPDIR"
	# processes with deep and shallow stacks: the forker's children and a C++ program
	perf record -q -e cpu-clock -F 2000 -g -o cg.data -- \
		sh -c "'$WORKLOADS/forker' 3 300 & '$WORKLOADS/cxxhot'; wait" >/dev/null 2>&1
	# --children (what -g turns on), callers first
	same_graph_blocks cg.data -g graph,2
	same_graph_blocks cg.data -g fractal,2
	same_graph_blocks cg.data -g flat,2
	same_graph_blocks cg.data -g folded,2
	same_graph_blocks cg.data -g callee,2,count
	same_graph_blocks cg.data -s sym -g graph,2,period
	same_graph_blocks cg.data --max-stack 3 -g graph,2
	# --no-children: the row's own chains; -s sym leaves out the row's frame
	same_graph_blocks cg.data --no-children -g graph,2
	same_graph_blocks cg.data --no-children -s sym -g callee,2
	same_graph_blocks cg.data --no-children -G -g 2
	same_graph_blocks cg.data --no-children -g fractal,2,callee,count
	same_graph_blocks cg.data --no-children -g flat,2,,2
}

@test "report -g address, -g srcline: perf's keys, byte for byte, with and without --children" {
	cd "$BATS_TEST_TMPDIR"
	# stairs (built with -g): deep recursion, each frame with its line; ld.so and libc
	# frames with theirs from their debug files, the kernel's without
	perf record -q -e cpu-clock -F 2000 -g -o st.data -- "$WORKLOADS/stairs" 300 \
		>/dev/null 2>&1
	local k c
	for k in address srcline; do
		for c in --children --no-children; do
			# perf 6.1 has its lines from binutils' addr2line, which names libc's
			# libc_start_call_main.h:74 (so llvm-dwarfdump) libc-start.c:74: see
			# sbx-report(1); perf's closing blank lines and tip are left out
			perf report --stdio -i st.data -g $k $c 2>/dev/null | grep -v '^#' |
				sed 's/ libc-start\.c:\([0-9]*\)/ LIBC:\1/' > perf.out
			"$SBX" report -i st.data -g $k $c | grep -v '^#' |
				sed 's/ libc_start_call_main\.h:\([0-9]*\)/ LIBC:\1/' > sbx.out
			diff <(sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' perf.out) \
			     <(sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' sbx.out)
		done
	done
	# what the keys are about: frames with their lines
	run -0 sbx report -i st.data -g srcline --no-children
	assert_line --regexp -- '--spin stairs\.c:[0-9]+$'
	run -0 sbx report -i st.data -g address --no-children
	assert_line --regexp -- '--step stairs\.c:[0-9]+$'
}

@test "report -g: the value as perf takes it; what -g refuses" {
	cd "$BATS_TEST_TMPDIR"
	# -g alone is graph,0.5,caller; the value attached, or the next word
	run -0 sbx report -i "$W/fk.data" -g
	local bare=$output
	run -0 sbx report -i "$W/fk.data" -g graph,0.5,caller
	assert_equal "$output" "$bare"
	run -0 sbx report -i "$W/fk.data" -gcaller --children
	assert_equal "$output" "$bare"
	run -0 sbx report -i "$W/fk.data" --call-graph=gr,0.5,caller
	assert_equal "$output" "$bare"
	# the workers' rows: spin_N under __libc_start_call_main, in caller order
	assert_line --regexp '^ +[0-9.]+% +[0-9.]+% +forker +forker +\[\.\] spin_1$'
	assert_line '            ---__libc_start_call_main'
	# none: no graph; the columns as --children gives them
	run -0 sbx report -i "$W/fk.data" -g none --children
	local none=$output
	run -0 sbx report -i "$W/fk.data" --children
	assert_equal "$output" "$none"
	run -2 --separate-stderr sbx report -i "$W/fk.data" -g fast
	assert_equal "${stderr_lines[0]}" "sbx report: error: bad -g 'fast': 'fast' is not a mode, order, key, value or threshold"
	run -2 --separate-stderr sbx report -i "$W/fk.data" -g branch
	assert_equal "${stderr_lines[0]}" "sbx report: error: bad -g 'branch': the key 'branch' is not supported (LBR branch call graphs)"
	run -2 --separate-stderr sbx report -i "$W/fk.data" -g --folded
	assert_equal "${stderr_lines[0]}" "sbx report: error: -g and -G print graphs under rows: not with --folded, --flamegraph or --stats"
	run -2 --separate-stderr sbx report -i "$W/fk.data" --max-stack x
	assert_equal "${stderr_lines[0]}" "sbx report: error: bad --max-stack 'x'"
	# a file without call chains: perf refuses -g too
	run -1 --separate-stderr sbx report -i "$W/nl.data" -g
	assert_equal "$stderr" "sbx report: error: $W/nl.data: -g, but no call chains in the file (record with -g)"
	run perf report --stdio -i "$W/nl.data" -g
	assert_output --partial "But no callchain or branch data."
}

@test "report -g --json: each row's graph as a tree whose totals add up" {
	cd "$BATS_TEST_TMPDIR"
	run -0 --separate-stderr sbx report -i "$W/fk.data" -s sym -g graph,0 --json
	printf '%s\n' "$output" > g.json
	# every node: its total is its own chains' plus its children's (no threshold)
	jq -e '[.. | objects | select(has("children") and has("self")) |
		.total == .self + ([.children[].total] | add // 0)] | length > 10 and all' g.json
	# a row's graph holds each stack through it once: its Children
	jq -e 'all(.[]; ([.callgraph[].total] | add // 0) == .children_period)' g.json
	# the workers: spin_1's one chain, from __libc_start_call_main, in the forker
	jq -e '.[] | select(.symbol == "spin_1") | .callgraph[0] |
		.name == "__libc_start_call_main" and (.dso | endswith("libc.so.6")) and
		.children[0].name == "spin_1" and (.children[0].dso | endswith("/forker"))' g.json
}

@test "report: addresses no symbol holds labelled as perf labels them, every row" {
	cd "$BATS_TEST_TMPDIR"
	# a stripped non-PIE program: perf labels its sample rows relative to the map
	# (0x1139), the rows its call chains make with the address as sampled
	# (0x401139), a 0 address without 0x, and a frame outside every map with
	# the [k]/[.] of the frame before it
	cc -O1 -fno-omit-frame-pointer -no-pie -s -o np "$TOP/tests/workloads/noploop.c"
	perf record -q -e cpu-clock -F 2000 -g -o np.data -- sh -c "./np 200; ./np 100" \
		>/dev/null 2>&1
	for mode in --children --no-children; do
		perf report --stdio $mode -g none -i np.data -s comm,dso,sym 2>/dev/null |
			grep -v -e '^#' -e '^$' | sort > perf.rows
		run -0 --separate-stderr sbx report $mode -i np.data -s comm,dso,sym
		grep -v '^#' <<< "$output" | sort > sbx$mode.rows
		diff perf.rows sbx$mode.rows
	done
	# the program's own rows are unresolved, in both forms
	grep -Eq '[1-9][0-9.]*% +np +np +\[\.\] 0x0000000000001[0-9a-f]{3}$' sbx--children.rows
	grep -Eq ' 0\.00% +np +np +\[\.\] 0x0000000000401[0-9a-f]{3}$' sbx--children.rows
	# in JSON, the address of the label as a number, with the DSO's path
	run -0 --separate-stderr sbx report --json -i np.data -s dso,sym
	python3 -c '
import json, sys
rows = [r for r in json.load(sys.stdin) if r["dso"] == "np" and "address" in r]
assert rows, "no unresolved row of np"
for r in rows:
    assert r["symbol"] == "0x%016x" % r["address"], r
    assert r["dso_path"].endswith("/np") and r["kernel"] is False, r
' <<< "$output"
}

@test "report --json: rows carry the DSO's path, [k] or [.], and unresolved addresses as numbers" {
	cd "$BATS_TEST_TMPDIR"
	run -0 --separate-stderr sbx report --json -s dso,sym -i "$W/fk.data"
	printf '%s\n' "$output" > rows.json
	# the workers' functions: user symbols of the forker binary, by path
	jq -e '[.[] | select(.symbol == "spin_1")][0] |
		(.dso_path | endswith("/forker")) and .kernel == false and (has("address") | not)' rows.json
	# every row's dso_path names its dso
	jq -e 'all(.[]; . as $r | $r.dso_path == null or ($r.dso_path | endswith($r.dso)) or
		$r.dso == "[kernel.kallsyms]")' rows.json
	# kernel rows say so: a recording that certainly has kernel samples (fk.data's come only
	# from the moments its processes start and end, and a timer may miss them all), two
	# million system calls, most of their time in the kernel
	perf record -q -e cpu-clock -F 999 -o sys.data -- "$WORKLOADS/sysloop" 2000000 \
		>/dev/null 2>&1
	run -0 --separate-stderr sbx report --json -s dso,sym -i sys.data
	jq -e 'any(.[]; .kernel == true and .dso == "[kernel.kallsyms]")' <<< "$output"
	jq -e 'all(.[]; . as $r | $r.dso_path == null or ($r.dso_path | endswith($r.dso)) or
		$r.dso == "[kernel.kallsyms]")' <<< "$output"
}

@test "report -s srcline: perf's Source:Line rows" {
	cd "$BATS_TEST_TMPDIR"
	# the rows of 1% or more, byte for byte: the workers' loop lines, from DWARF
	perf report --stdio --no-children -g none -s srcline -i "$W/fk.data" 2>/dev/null |
		grep -v -e '^#' -e '^$' | sed 's/ *$//' |
		awk '{ p = $1; sub(/%/, "", p) } p >= 1' | sort > perf.rows
	run -0 --separate-stderr sbx report -s srcline -i "$W/fk.data"
	grep -v '^#' <<< "$output" | sed 's/ *$//' |
		awk '{ p = $1; sub(/%/, "", p) } p >= 1' | sort > sbx.rows
	diff perf.rows sbx.rows
	grep -Eq '^ +[0-9.]+%  forker\.c:[0-9]+$' sbx.rows
	grep -q '^# Overhead  Source:Line' <<< "$output"
	# with other keys, and in JSON
	run -0 --separate-stderr sbx report -s comm,srcline --json -i "$W/fk.data"
	jq -e 'all(.[]; has("srcline") and has("comm")) and
		any(.[]; .srcline | test("^forker\\.c:[0-9]+$"))' <<< "$output"
}

@test "report -s srcline without DWARF: addr2line's FILE:0 and ??:0, and SYM+OFF where it finds nothing, as perf prints them" {
	cd "$BATS_TEST_TMPDIR"
	# a static function (binutils names its file from the symbol table) and a
	# library with no DWARF and few symbols (liblzma), built and run here
	cat > st.c <<-'EOF'
	static __attribute__((noinline)) void spin(unsigned long n)
	{
		for (unsigned long i = 0; i < n; i++)
			__asm__ volatile("");
	}
	int main(void)
	{
		spin(300000000UL);
		return 0;
	}
	EOF
	cc -O2 -o st st.c
	perf record -q -e cpu-clock -F 999 -o nd.data -- \
		sh -c "./st; head -c 8000000 /dev/urandom | xz -1 > /dev/null" >/dev/null 2>&1
	for k in srcline dso,srcline comm,dso,srcline; do
		perf report --stdio -q --no-children -g none -s "$k" -i nd.data 2>/dev/null |
			grep -v '^$' | sed 's/ *$//' > perf.rows
		sbx report -q -s "$k" -i nd.data | sed 's/ *$//' > sbx.rows
		# line for line; perf may cut a line to its column (the width of the
		# lines it had looked up when it measured), sbx prints it whole. A
		# sample the loader took in its start-up falls where libc6-dbg has
		# DWARF, whose inlined lines perf's addr2line names by the caller's
		# file: rows with a line number are counted alike, not compared
		python3 - perf.rows sbx.rows <<-'EOF'
		import re, sys
		perf, sbx = (open(p).read().splitlines() for p in sys.argv[1:3])
		dwarf = re.compile(r':[1-9][0-9]*$')
		assert len(perf) == len(sbx), (len(perf), len(sbx))
		assert sum(bool(dwarf.search(r)) for r in perf) == sum(bool(dwarf.search(r)) for r in sbx), (perf, sbx)
		perf, sbx = ([r for r in rows if not dwarf.search(r)] for rows in (perf, sbx))
		assert len(perf) > 2, perf
		for a, b in zip(perf, sbx):
		    assert a == b or b.startswith(a), (a, b)
		EOF
	done
	run -0 sbx report -q -s dso,srcline -i nd.data
	assert_line --regexp '^ +[0-9.]+%  st +st\.c:0$'
	assert_line --regexp '^ +[0-9.]+%  liblzma[^ ]* +\?\?:0$'
}

@test "report -n: perf report -n's Samples column; --limit N rows" {
	cd "$BATS_TEST_TMPDIR"
	perf report --stdio --no-children -n -g none -i "$W/fk.data" -s comm,sym 2>/dev/null |
		awk '/^#/ || NF < 4 || $1 !~ /%$/ { next } { print }' > perf.rows
	run -0 --separate-stderr sbx report -n -i "$W/fk.data" -s comm,sym
	awk '/^#/ || NF < 4 || $1 !~ /%$/ { next } { print }' <<< "$output" > sbx.rows
	# the header as perf's, the symbol column padded to the longest row
	assert_equal "$(grep '^# Overhead' <<< "$output")" \
		"$(perf report --stdio --no-children -n -g none -i "$W/fk.data" -s comm,sym 2>/dev/null |
			grep '^# Overhead')"
	# the same lines, byte for byte, on the rows both resolve (perf orders ties its own way)
	[ "$(wc -l < perf.rows)" -ge 3 ]
	diff <(grep -v '\[unknown\]\| 0x' perf.rows | sort) <(grep -v '\[unknown\]\| 0x' sbx.rows | sort)
	run -0 --separate-stderr sbx report -n --limit 2 -i "$W/fk.data" -s comm,sym
	[ "$(grep -c '%' <<< "$output")" -eq 2 ]
}

@test "report without a perf.data says how to make one; -vv is -v -v" {
	cd "$BATS_TEST_TMPDIR"
	run -1 --separate-stderr sbx report
	assert_equal "$stderr" "sbx report: error: cannot open 'perf.data': No such file or directory (try 'sbx record -- COMMAND' first)"
	run -0 --separate-stderr sbx -vv report -i "$W/nl.data" --limit 1
	run -0 --separate-stderr sbx -v -v report -i "$W/nl.data" --limit 1
	run -2 --separate-stderr sbx -vx report -i "$W/nl.data"
}

# The rows of perf report --stdio and of sbx report, options $2..., on file $1:
# the same lines, in the same order (header lines and trailing blanks aside).
same_rows() {
	local f=$1
	shift
	diff <(perf report --stdio -i "$f" "$@" 2>/dev/null | grep -v '^#' | grep -v '^$' | sed 's/ *$//') \
		<(sbx report -i "$f" "$@" | grep -v '^#' | grep -v '^$' | sed 's/ *$//')
}

@test "report: DSOs of one name are one row, as in perf, and their symbols one where their bounds agree" {
	cd "$BATS_TEST_TMPDIR"
	mkdir a b c
	# a and c: one build in two folders (the same bounds); b: another build,
	# run shorter, so that no two rows tie (hot_a takes twice hot_b's time)
	cc -O2 -o a/noploop "$WORKLOADS/noploop.c"
	cp a/noploop c/noploop
	cc -O1 -fno-omit-frame-pointer -o b/noploop "$WORKLOADS/noploop.c"
	perf record -q -e cpu-clock -F 2000 -o dup.data -- \
		sh -c "a/noploop 40; b/noploop 25; c/noploop 40" >/dev/null 2>&1
	# perf's one row of the three files
	[ "$(perf report --stdio -q -s dso -i dup.data 2>/dev/null | grep -c ' noploop *$')" -eq 1 ]
	same_rows dup.data -s dso
	same_rows dup.data
	same_rows dup.data -s dso,sym
	same_rows dup.data -s sym
	run -0 sbx report -q -s dso -i dup.data
	[ "$(grep -c ' noploop *$' <<< "$output")" -eq 1 ]
}

@test "report: --comm, --dso and --symbols filter the samples, not rows made by their first sample (perf report 6.1)" {
	cd "$BATS_TEST_TMPDIR"
	# 8 processes of 4 comms, all in the same functions of libc: with -s sym or -s comm, a
	# row gathers the samples of several comms (or DSOs, or symbols)
	"$BUILD/scripts/gen-perf-data" g.data 20000
	want=$(perf script -i g.data --comms worker0 2>/dev/null | wc -l)
	[ "$want" -ge 4000 ]
	run -0 --separate-stderr sbx report -i g.data -c worker0 -s sym -n -q
	assert_equal "$(awk '{ s += $2 } END { print s }' <<< "$output")" "$want"
	# row for row what perf prints where the filtered key is a key of the rows
	diff <(perf report --stdio -i g.data -c worker0 -s comm,sym -n -q 2>/dev/null |
		grep -v '^#' | grep -v '^$' | sed 's/ *$//') <(sed 's/ *$//' <<< "$output")
	# the top function of worker0 (whichever the host's libc makes it), by comm
	sym=$(awk 'NR == 1 { print $4 }' <<< "$output")
	[ -n "$sym" ]
	run -0 --separate-stderr sbx report -i g.data -d libc.so.6 -S "$sym" -s comm -n -q
	diff <(perf report --stdio -i g.data -d libc.so.6 -S "$sym" -s comm,dso,sym -n -q \
		2>/dev/null | grep -v '^#' | grep -v '^$' | sed 's/ *$//') <(sed 's/ *$//' <<< "$output")
	[ "${#lines[@]}" -eq 4 ]
}

@test "report: perf's filters and percentages, row for row: --percentage, --percent-limit, -q, -C, --symbols, and ties in perf's order" {
	cd "$BATS_TEST_TMPDIR"
	# several processes and comms (sh, then noploop and ls after exec), hundreds of rows with ties
	perf record -q -e cpu-clock -F 4000 -o s.data -- sh -c \
		"$WORKLOADS/noploop 40; $WORKLOADS/noploop 40; ls -R /usr/lib > /dev/null" >/dev/null 2>&1
	[ "$(perf report --stdio -i s.data 2>/dev/null | grep -c '%')" -ge 20 ]
	same_rows s.data
	same_rows s.data -s dso,sym
	same_rows s.data -s comm,dso
	# filters: absolute shares by default (of all samples), relative on request; a filter of
	# one comm, dso or symbol leaves its column out, as perf does
	same_rows s.data --comm ls
	same_rows s.data --comm noploop --percentage relative
	same_rows s.data --dso libc.so.6 -s sym
	same_rows s.data --symbols hot_a,hot_b
	# perf's own spellings (comm and dso stay keys: perf report keeps or drops a row by the
	# first sample that made it, so a -s sym row of sh and ls would be all or nothing in perf)
	same_rows s.data -c ls -d libc.so.6 -s comm,dso,sym
	same_rows s.data --comms noploop --dsos noploop
	same_rows s.data -S hot_a
	same_rows s.data --percent-limit 1
	same_rows s.data -q
	run -0 sbx report -q -i s.data
	refute_line --regexp '^#'
	# -C: the other CPUs' samples are not there at all (percentages of those taken here)
	same_rows s.data -C 0
	same_rows s.data -C 1 -s comm
	# --time: the samples of a slice, percentages of them
	t0=$(perf script -F time -i s.data 2>/dev/null | sed -n '100{s/[: ]//g;p}')
	t1=$(perf script -F time -i s.data 2>/dev/null | sed -n '900{s/[: ]//g;p}')
	same_rows s.data --time "$t0,$t1"
	same_rows s.data --time "$t1,"
	# -s cpu (the samples of this file have no CPU: perf's -001)
	same_rows s.data -s cpu,comm
	sbx record -q -o cpu.data -- "$WORKLOADS/forker" 2 50 >/dev/null
	same_rows cpu.data -s cpu
	same_rows cpu.data -s comm,cpu,sym
	run -2 --separate-stderr sbx report -i s.data -C x1
	assert_equal "${stderr_lines[0]}" "sbx report: error: --cpu takes a list of CPUs such as 0,2-3 (below 4096), not 'x1'"
	run -2 --separate-stderr sbx report -i s.data --percentage half
	assert_equal "${stderr_lines[0]}" "sbx report: error: --percentage must be absolute or relative, not 'half'"
}

@test "report: -s pid is per thread, shown as perf shows it (tid:comm, the thread's last name), of processes and of threads" {
	cd "$BATS_TEST_TMPDIR"
	perf record -q -e cpu-clock -F 4000 -o s.data -- sh -c \
		"$WORKLOADS/noploop 40; $WORKLOADS/noploop 40" >/dev/null 2>&1
	same_rows s.data -s pid
	same_rows s.data -s pid,comm,dso
	same_rows s.data -s pid,sym
	# a name longer than perf's column
	cp "$WORKLOADS/noploop" ./a-longer-name
	perf record -q -e cpu-clock -o l.data -- ./a-longer-name 30 >/dev/null 2>&1
	same_rows l.data -s pid
	run -0 sbx report --json -s pid -i l.data
	echo "$output" | jq -e 'length == 1 and .[0].thread_comm == "a-longer-name" and .[0].tid == .[0].pid'
	# one process of four threads, three named by the program: a row each
	perf record -q -e cpu-clock -F 2000 -o th.data -- "$WORKLOADS/threads" 40 >/dev/null 2>&1
	same_rows th.data -s pid
	same_rows th.data -s pid,sym
	run -0 sbx report -q -s pid -i th.data
	[ "${#lines[@]}" -eq 4 ]
	for k in 1 2 3; do
		assert_line --regexp "^ +[0-9.]+% +[0-9]+:worker-$k *$"
	done
	# --tid of one worker: its samples (by thread: perf report filters its rows,
	# which the default keys may share between threads)
	tid=$(sed -n 's/^ *[0-9.]*% *\([0-9]*\):worker-2 *$/\1/p' <<< "$output")
	[ -n "$tid" ]
	same_rows th.data --tid "$tid" -s pid
	same_rows th.data --tid "$tid" -s pid,sym
}

@test "report --stats: perf report --stats's tables, line for line (file and pipe mode, -z, sbx's own files)" {
	cd "$BATS_TEST_TMPDIR"
	perf record -q -e cpu-clock -o - -- "$WORKLOADS/noploop" 30 2>/dev/null > pipe.data
	perf record -q -z -e cpu-clock -o z.data -- "$WORKLOADS/noploop" 30 >/dev/null 2>&1
	sbx record -q -g -o sbx.data -- "$WORKLOADS/forker" 2 50 >/dev/null
	for f in "$W/nl.data" "$W/fk.data" pipe.data z.data sbx.data; do
		diff <(perf report --stats -i "$f" 2>/dev/null) <(sbx report --stats -i "$f")
	done
	run -0 sbx report --stats -i z.data
	assert_line --regexp '^ +COMPRESSED events: +[0-9]+ '
}

@test "names are text: a comm and a file named with a newline and an escape sequence forge no row" {
	cd "$BATS_TEST_TMPDIR"
	name=$'np\n 99.99%  sshd\e[2J'
	cp "$WORKLOADS/noploop" "./$name"
	perf record -q -e cpu-clock -F 999 -o c.data -- "./$name" 100 > /dev/null 2>&1
	# the same shares as perf's, and every line a header line or a row
	run -0 --separate-stderr sbx report -i c.data -s comm,dso,sym
	refute_output --partial $'\n 99.99%'
	refute_output --partial $'\e'
	assert_line --regexp '^ +[0-9.]+%  np\\n 99\.99%  ssh  np\\n 99\.99%  sshd\\x1b\[2J +\[\.\] hot_a$'
	for l in "${lines[@]}"; do [[ $l == '#'* || -z $l || $l =~ ^\ +[0-9.]+% ]] || { echo "not a row: $l"; false; }; done
	perf_rows c.data sym > perf.rows
	sbx report -i c.data -s sym | awk '/^#/ || NF < 2 { next } $1 ~ /%$/ { p = $1; sub(/%/, "", p);
		$1 = ""; sub(/^ +/, ""); print $0 "\t" p }' | sort > sbx.rows
	compare_rows perf.rows sbx.rows
	# JSON carries them escaped the same way
	run -0 --separate-stderr sbx report --json -i c.data -s comm
	run -0 jq -r '.[0].comm' <<< "$output"
	assert_output 'np\n 99.99%  ssh'
	# (the kernel keeps 15 bytes of a comm, so the file's name shows the escape)
	run -0 --separate-stderr sbx report --json -i c.data -s dso
	run -0 jq -r '.[0].dso' <<< "$output"
	assert_output 'np\n 99.99%  sshd\x1b[2J'
}
