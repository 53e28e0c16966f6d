#!/usr/bin/env bats
# Demangled C++ names in sbx report and sbx script, with perf as the judge:
# the same names (perf shows "ns::Class::method", without parameters, by
# default), the same rows (overloads that show the same name stay apart)
# and the same percentages; --no-demangle gives the names in the file, as
# perf's --no-demangle does.

load test_helper

setup_file() {
	command -v perf >/dev/null || return 0
	W=$BATS_FILE_TMPDIR
	# cxxhot: area ≈ 2/5; spin(…, int), spin(…, long), twice<long> ≈ 1/5 each
	perf record -q -e cpu-clock -F 999 -o "$W/cx.data" -- "$WORKLOADS/cxxhot" 300 \
		>/dev/null 2>&1 || true
}

setup() {
	command -v perf >/dev/null || skip "perf is not installed"
	require_perf_events
	W=$BATS_FILE_TMPDIR
	[ -s "$W/cx.data" ] || skip "perf record could not record here"
}

teardown() {
	if [ -s "${W:-}/jit.pid" ]; then
		rm -f "/tmp/perf-$(cat "$W/jit.pid").map" "$W/jit.pid"
	fi
}

# "SYMBOL\tPERCENT" rows of perf report --stdio -s sym (extra options in $2…)
perf_sym_rows() {
	local file=$1
	shift
	perf report --stdio --no-children -i "$file" -s sym "$@" 2>/dev/null |
		awk '/^#/ || NF < 2 { next } $1 ~ /%$/ { p = $1; sub(/%/, "", p);
			$1 = ""; sub(/^ +\[[.k]\] /, ""); print $0 "\t" p }' | sort
}

# The same rows from sbx report --json (extra options in $2…)
sbx_sym_rows() {
	local file=$1
	shift
	run -0 --separate-stderr "$SBX" report --json -i "$file" -s sym "$@"
	printf '%s\n' "$output" | jq -r '.[] | .symbol + "\t" + (.percent|tostring)' | sort
}

# Rows of two "SYMBOL\tPCT" files pair up name by name (as many rows of
# each name, the percentages in order within 1 point); prints what differs.
same_rows() {
	python3 - "$1" "$2" <<-'EOF'
	import sys
	def load(path):
	    d = {}
	    for line in open(path):
	        k, _, v = line.rstrip("\n").rpartition("\t")
	        d.setdefault(k, []).append(float(v))
	    return {k: sorted(v) for k, v in d.items()}
	perf, sbx = load(sys.argv[1]), load(sys.argv[2])
	bad = 0
	for k in sorted(set(perf) | set(sbx)):
	    a, b = perf.get(k, []), sbx.get(k, [])
	    if len(a) != len(b) or any(abs(x - y) > 1.0 for x, y in zip(a, b)):
	        print(f"{k!r}: perf {a} sbx {b}")
	        bad += 1
	sys.exit(1 if bad else 0)
	EOF
}

@test "demangle: sbx report shows perf report's demangled names, rows and percentages" {
	perf_sym_rows "$W/cx.data" > "$W/perf-rows"
	sbx_sym_rows "$W/cx.data" > "$W/sbx-rows"
	same_rows "$W/perf-rows" "$W/sbx-rows"	# its differing rows, if any, show in the failure
	# the known answer, in perf's spelling: no parameters, no return type
	run -0 sbx report --json -i "$W/cx.data" -s sym
	area=$(echo "$output" | jq '[.[] | select(.symbol == "shapes::Square::area") | .percent] | add')
	twice=$(echo "$output" | jq '[.[] | select(.symbol == "shapes::twice<long>") | .percent] | add')
	# the two overloads of shapes::spin stay two rows, as in perf
	[ "$(echo "$output" | jq '[.[] | select(.symbol == "shapes::spin")] | length')" -eq 2 ]
	spin=$(echo "$output" | jq '[.[] | select(.symbol == "shapes::spin") | .percent] | min')
	[ "$(echo "$output" | jq -r '.[0].symbol')" = shapes::Square::area ]
	python3 -c "import sys; a, s, t = $area, $spin, $twice
sys.exit(0 if 30 < a < 50 and 12 < s < 28 and 12 < t < 28 else 1)"
}

@test "demangle: text rows name the C++ functions as perf does, the file's names in JSON" {
	run -0 sbx report -i "$W/cx.data" -s dso,sym
	assert_line --regexp '^ +[0-9.]+%  cxxhot +\[\.\] shapes::Square::area$'
	assert_line --regexp '^ +[0-9.]+%  cxxhot +\[\.\] shapes::twice<long>$'
	refute_output --partial '_ZN'
	# JSON: "mangled" is the name in the file, only where demangling changed it
	run -0 sbx report --json -i "$W/cx.data" -s sym
	[ "$(echo "$output" | jq -r '.[] | select(.symbol == "shapes::Square::area") | .mangled')" = \
		_ZNK6shapes6Square4areaEm ]
	[ "$(echo "$output" | jq -r '[.[] | select(.symbol == "shapes::spin") | .mangled] | sort | join(" ")')" = \
		"_ZN6shapes4spinEmi _ZN6shapes4spinEml" ]
	[ "$(echo "$output" | jq '[.[] | select(.mangled != null and (.symbol | startswith("_Z")))] | length')" -eq 0 ]
	[ "$(echo "$output" | jq '[.[] | select(.mangled == .symbol)] | length')" -eq 0 ]
}

@test "demangle: sbx report --no-demangle shows the names of perf report --no-demangle" {
	perf_sym_rows "$W/cx.data" --no-demangle > "$W/perf-raw"
	sbx_sym_rows "$W/cx.data" --no-demangle > "$W/sbx-raw"
	same_rows "$W/perf-raw" "$W/sbx-raw"	# its differing rows, if any, show in the failure
	grep -q '^_ZNK6shapes6Square4areaEm	' "$W/sbx-raw"
	grep -q '^_ZN6shapes5twiceIlEET_m	' "$W/sbx-raw"
	run -0 sbx report --no-demangle --json -i "$W/cx.data" -s sym
	[ "$(echo "$output" | jq '[.[] | select(.mangled != null)] | length')" -eq 0 ]
	run -0 sbx report --no-demangle -i "$W/cx.data"
	assert_output --partial '[.] _ZN6shapes4spinEmi'
	refute_output --partial 'shapes::'
}

# "IP SYMBOL" per sample (the symbol may hold spaces), perf script vs sbx script
perf_ip_sym() {
	local file=$1
	shift
	perf script -i "$file" -F ip,sym "$@" 2>/dev/null | sed -E 's/^ *([0-9a-f]+) +/\1 /'
}

sbx_ip_sym() {
	local file=$1
	shift
	run -0 --separate-stderr "$SBX" script -i "$file" -F ip,sym "$@"
	printf '%s\n' "${lines[@]}" | sed -E 's/^ *([0-9a-f]+) +/\1 /; s/ +$//'
}

@test "demangle: sbx script names every sample as perf script does, and with --no-demangle" {
	perf_ip_sym "$W/cx.data" > "$W/perf-s"
	sbx_ip_sym "$W/cx.data" > "$W/sbx-s"
	# about 170 samples of area here (cxxhot 300 at 999 Hz): 20 leaves a wide margin
	[ "$(grep -c ' shapes::Square::area$' "$W/sbx-s")" -gt 20 ]
	grep -q ' shapes::twice<long>$' "$W/sbx-s"
	diff "$W/perf-s" "$W/sbx-s"
	perf_ip_sym "$W/cx.data" --no-demangle > "$W/perf-sr"
	sbx_ip_sym "$W/cx.data" --no-demangle > "$W/sbx-sr"
	grep -q ' _ZNK6shapes6Square4areaEm$' "$W/sbx-sr"
	diff "$W/perf-sr" "$W/sbx-sr"
	# JSON: the shown name in "symbol", the file's in "mangled"
	run -0 sbx script --json -i "$W/cx.data"
	echo "$output" | jq -e -s '[.[] | select(.symbol == "shapes::Square::area")] |
		length > 20 and all(.mangled == "_ZNK6shapes6Square4areaEm")'
	run -0 sbx script --json --no-demangle -i "$W/cx.data"
	echo "$output" | jq -e -s '[.[] | select(.mangled != null)] | length == 0'
}

@test "demangle: names from /tmp/perf-PID.map stay as they are, as in perf" {
	# the workload names its anonymous code in /tmp/perf-PID.map (removed in teardown)
	perf record -q -e cpu-clock -F 999 -o "$W/jit.data" -- "$WORKLOADS/jitmap" _ZN3jit4spinEv \
		>"$W/jit.pid" 2>/dev/null
	run -0 sbx report --json -i "$W/jit.data" -s sym
	perf_sym_rows "$W/jit.data" > "$W/perf-jit"
	echo "$output" | jq -r '.[] | .symbol + "\t" + (.percent|tostring)' | sort > "$W/sbx-jit"
	grep -q '^_ZN3jit4spinEv	' "$W/perf-jit"
	same_rows "$W/perf-jit" "$W/sbx-jit"	# its differing rows, if any, show in the failure
}
