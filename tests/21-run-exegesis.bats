#!/usr/bin/env bats
# sbx run on llvm-exegesis's own snippets: its benchmark YAML as input (made
# by llvm-exegesis 19 without a counter, --benchmark-phase=
# prepare-and-assemble-snippet), measured one document at a time, written
# back in its shape, read by llvm-exegesis 19's analysis mode. Accuracy bounds
# as wide as 20-run's: a loaded machine must not make them flake.

load test_helper

EX=$TOP/tests/data/exegesis

exegesis19() {
	local e
	e=$(llvm-config-19 --bindir 2>/dev/null)/llvm-exegesis
	[ -x "$e" ] || { echo "llvm-exegesis 19 is not installed (llvm-19)"; return 1; }
	echo "$e"
}

# Fail unless lo <= v <= hi.
in_range() {
	awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v != "" && v + 0 >= lo && v + 0 <= hi) }' ||
		{ echo "value '$1' is not within [$2, $3]"; return 1; }
}

# The latency of document N (from 1) of YAML on stdin.
doc_value() {
	awk -v n="$1" '/^---/ { d++ } d == n && /key: latency, value:/ {
		sub(/.*value: /, ""); sub(/,.*/, ""); print; exit }'
}

@test "exegesis YAML: every document measured as it says, its fields kept, errors per document" {
	run -1 --separate-stderr sbx run "$EX/snippets.yaml"
	# seven results (the last document is not a benchmark: an error, no result)
	[ "$(grep -c '^---$' <<< "$output")" -eq 7 ]
	# llvm-exegesis's own fields come back: its instructions, registers, CPU name, code
	assert_line "    - 'IMUL64rr R8 R8 RAX'"
	assert_line "    - 'R8=0x0'"
	assert_line "cpu_name:        'znver5'"
	assert_line "llvm_triple:     x86_64-pc-linux-gnu"
	assert_line "assembled_snippet: 49B8000000000000000048B800000000000000004C0FAFC04C0FAFC04C0FAFC04C0FAFC0C3"
	in_range "$(doc_value 1 <<< "$output")" 0.6 1.5	# ADD64rr
	in_range "$(doc_value 2 <<< "$output")" 2.2 4.5	# IMUL64rr
	in_range "$(doc_value 3 <<< "$output")" 2.2 4.5	# CRC32r64r64: after the pushes and pops
	in_range "$(doc_value 4 <<< "$output")" 0.6 1.5	# ADC16ri8: BP as RBP
	# EFLAGS=0x0 is set (popfq), MXCSR and FPCW are at their defaults: nothing is left unset
	refute_line --partial "not set, at the start state"
	# AX, R9B and XMM1 held what register_initial_values says: the check exited 0
	assert_line "error:           'the snippet exited with code 0 before it was measured'"
	assert_line --regexp "^error:           'SIGILL at address 0x[0-9a-f]+, snippet\+0x0: ud2'$"
	# uops: the PMU's retired micro-ops, which this machine has not (or a measurement)
	assert_line --regexp "^error:           '--mode uops counts the PMU''s retired micro-ops .*'$|^  - \{ key: NumMicroOps, "
	# on standard error, each failure with its document's line and instructions
	drop_drift_warnings
	[[ ${stderr_lines[0]} =~ ^"sbx run: error: $EX/snippets.yaml:107: TRAP: SIGILL at address" ]]
	[[ ${stderr_lines[1]} == "sbx run: error: $EX/snippets.yaml:122: ADD64rr R12 R12 RAX: --mode uops counts the PMU's retired micro-ops"* ]]
	assert_equal "${stderr_lines[2]}" "sbx run: error: $EX/snippets.yaml:137: not an llvm-exegesis benchmark: no mode"
	# and the closing line: what became of the documents, by reason
	assert_equal "${stderr_lines[3]}" "sbx run: $EX/snippets.yaml: 8 documents: 5 measured, 1 crashed, 2 failed otherwise"
	[ "${#stderr_lines[@]}" -eq 4 ]
}

@test "exegesis YAML: llvm-exegesis 19's analysis mode reads what sbx writes, clusters and sched classes" {
	E=$(exegesis19)
	cd "$BATS_TEST_TMPDIR"
	sbx run --benchmarks-file=out.yaml "$EX/snippets.yaml" 2>/dev/null || true
	run -0 "$E" -mode=analysis -benchmarks-file=out.yaml -analysis-numpoints=1 \
		-analysis-clusters-output-file=clusters.csv -analysis-inconsistencies-output-file=sched.html
	assert_output --partial "Parsed 7 benchmark points"
	# the measured latencies, by LLVM's scheduling classes of znver5
	# (the quoted opcode_name column has commas: the last two columns)
	add=$(awk -F, 'NF > 1 && $(NF - 1) == "WriteALU" { print $NF }' clusters.csv)
	imul=$(awk -F, 'NF > 1 && $(NF - 1) == "WriteIMul64Reg" { print $NF }' clusters.csv)
	crc=$(awk -F, 'NF > 1 && $(NF - 1) == "CRC32r64r64" { print $NF }' clusters.csv)
	in_range "$add" 0.6 1.5
	in_range "$imul" 2.2 4.5
	in_range "$crc" 2.2 4.5
	grep -q 'Cpu: znver5' <(sed 's/<[^>]*>/ /g' sched.html | tr -s ' \n' ' ')
}

@test "exegesis YAML: --format text and json label results with the instructions; stdin; --input-format" {
	run -1 --separate-stderr sbx run --format text - < "$EX/snippets.yaml"
	assert_line --index 0 --regexp '^SNIPPET +KEY +PER INSN +PER SNIPPET +COUNTER$'
	assert_line --index 1 --regexp '^ADD64rr R12 R12 RAX +latency +[0-9.]+ +[0-9.]+ +tsc-cycles|^ADD64rr R12 R12 RAX +latency +[0-9.]+ +[0-9.]+ +cycles'
	assert_line --regexp '^CMP64ri32 RAX i_0x1234; JCC_1 .* +exit\(0\) +- +-'
	drop_drift_warnings
	[[ ${stderr_lines[0]} == "sbx run: error: -:107: TRAP: SIGILL at address"* ]]
	run -1 --separate-stderr sbx run --json "$EX/snippets.yaml"
	assert_line --index 0 --regexp '^\{"snippet":"ADD64rr R12 R12 RAX","mode":"latency"'
	# read as assembly, it is not
	run -1 --separate-stderr sbx run --input-format asm "$EX/snippets.yaml"
	[[ $stderr == *"snippets.yaml:"*"Error:"* ]]
	# and an assembly file is not YAML
	run -1 --separate-stderr sbx run --input-format exegesis-yaml "$TOP/tests/data/snippets/add-chain.s"
	assert_equal "$stderr" "sbx run: error: $TOP/tests/data/snippets/add-chain.s:4: not an llvm-exegesis benchmark: not a mapping"
	run -2 --separate-stderr sbx run --input-format xml "$EX/snippets.yaml"
	assert_equal "${stderr_lines[0]}" "sbx run: error: --input-format must be asm or exegesis-yaml, not 'xml'"
}

@test "exegesis YAML: a syntax error names its line; an empty stream is an error" {
	printf -- '---\nmode: latency\nkey: { instructions: [ x }\n' > "$BATS_TEST_TMPDIR/bad.yaml"
	run -1 --separate-stderr sbx run "$BATS_TEST_TMPDIR/bad.yaml"
	assert_equal "$stderr" "sbx run: error: $BATS_TEST_TMPDIR/bad.yaml:3: not YAML: did not find expected ',' or ']'"
	printf -- '---\n...\n' > "$BATS_TEST_TMPDIR/empty.yaml"
	run -1 --separate-stderr sbx run --input-format exegesis-yaml "$BATS_TEST_TMPDIR/empty.yaml"
	assert_equal "$stderr" "sbx run: error: $BATS_TEST_TMPDIR/empty.yaml:2: not an llvm-exegesis benchmark: not a mapping"
}

@test "exegesis YAML: an interrupted sweep keeps what it measured, written as it went" {
	cd "$BATS_TEST_TMPDIR"
	# an add, then a snippet that never ends: SIGINT comes while it runs
	{ sed -n '/^---$/,/^\.\.\.$/p' "$EX/snippets.yaml" | awk '/^---$/ { n++ } n == 1'
	  printf -- "---\nmode: latency\nkey:\n  instructions: [ 'JMP_1 i_0x0' ]\nassembled_snippet: EBFEEBFEC3\n...\n"
	} > sweep.yaml
	"$SBX" run --timeout 60 sweep.yaml > out.yaml 2> err.txt &	# its pid, not a shell's
	pid=$!
	for _ in $(seq 600); do
		grep -q 'key: latency' out.yaml && break
		sleep 0.1
	done
	grep -q 'key: latency' out.yaml
	sleep 0.5	# the loop's child is running
	kill -INT $pid
	st=0
	wait $pid || st=$?
	assert_equal "$st" 130
	[ "$(grep -c '^---$' out.yaml)" -eq 2 ]
	grep -q "^error:           'interrupted by SIGINT'" out.yaml
}

@test "--opcode-name: llvm-exegesis 19 generates the snippets, sbx measures them as they come" {
	exegesis19 >/dev/null
	run -0 --separate-stderr sbx run --opcode-name ADD64rr,IMUL64rr,MOV64rm --format json
	[ "${#lines[@]}" -eq 2 ]
	assert_line --index 0 --regexp '^\{"snippet":"ADD64rr [A-Z0-9]+ [A-Z0-9]+ [A-Z0-9]+","mode":"latency"'
	in_range "$(grep -o '"value":[-0-9.e+]*' <<< "${lines[0]}" | head -1 | cut -d: -f2)" 0.6 1.5
	in_range "$(grep -o '"value":[-0-9.e+]*' <<< "${lines[1]}" | head -1 | cut -d: -f2)" 2.2 4.5
	# what llvm-exegesis made no snippet for
	drop_drift_warnings
	assert_equal "${stderr_lines[*]}" "sbx run: warning: llvm-exegesis: MOV64rm: unsupported memory operand in latency measurements"
	# inverse throughput: exegesis's independent instructions, measured as such
	run -0 --separate-stderr sbx run --mode inverse_throughput --opcode-name ADD64rr --format yaml
	assert_line "mode:            inverse_throughput"
	assert_line --regexp '^  - \{ key: inverse_throughput, value: '
	run -1 --separate-stderr sbx run --opcode-name NOTANOPCODE
	assert_equal "$stderr" "sbx run: error: llvm-exegesis: llvm-exegesis error: unknown opcode NOTANOPCODE"
	run -1 --separate-stderr sbx run --exegesis /nonexistent/llvm-exegesis --opcode-name ADD64rr
	assert_equal "$stderr" "sbx run: error: cannot run '/nonexistent/llvm-exegesis': No such file or directory"
	run -2 --separate-stderr sbx run --opcode-index x
	assert_equal "${stderr_lines[0]}" "sbx run: error: --opcode-index must be an opcode number or -1 (every opcode), not 'x'"
}

@test "exegesis YAML: hostile documents are bounded: aliases, size, depth, code; each a clear error, the sweep goes on" {
	cd "$BATS_TEST_TMPDIR"
	good=$(sed -n '/^---$/,/^\.\.\.$/p' "$EX/snippets.yaml" | awk '/^---$/ { n++ } n == 1')
	python3 - <<-'EOF'
	big = 'x' * 100000
	head = '---\nmode: latency\nkey:\n  instructions: '
	tail = '\nassembled_snippet: 4801C04801C0C3\n...\n'
	# 100 KB that its aliases make 100 MB
	open('alias.yaml', 'w').write(head + '[&a "' + big + '"' + ', *a' * 1000 + ']' + tail)
	# 9 MB of hex: 4.5 MiB of code
	open('code.yaml', 'w').write(head + '[ADD]\nassembled_snippet: ' + '48' * 4500000 + '\n...\n')
	# 20 MB in one document
	open('long.yaml', 'w').write(head + '[ADD]\ninfo: ' + 'y' * 20000000 + tail)
	# 200,000 levels of flow nesting (libyaml's scanner is quadratic in them)
	open('deep.yaml', 'w').write(head + '[' * 200000 + ']' * 200000 + tail)
	# 200,000 anchors and 400,000 aliases of them (found by name, not by a scan)
	n = 200000
	open('anchors.yaml', 'w').write(head + '[' + ', '.join('&a%d x' % i for i in range(n)) + ', '
	    + ', '.join('*a%d' % (i % n) for i in range(2 * n)) + ']' + tail)
	# 2 million one-letter items: more nodes than a document may have
	open('nodes.yaml', 'w').write(head + '[' + ','.join(['x'] * 2000000) + ']' + tail)
	EOF
	# a document's own error: the next one is measured
	{ cat alias.yaml; echo "$good"; } > a.yaml
	run -1 --separate-stderr timeout 60 "$SBX" run --format json a.yaml
	drop_drift_warnings
	assert_equal "${stderr_lines[*]}" "sbx run: error: a.yaml:2: key: its aliases expand the document past 16 MiB sbx run: a.yaml: 2 documents: 1 measured, 1 failed otherwise"
	assert_equal "${#lines[@]}" 1
	assert_regex "${lines[0]}" '"value":'
	{ cat code.yaml; echo "$good"; } > c.yaml
	run -1 --separate-stderr timeout 60 "$SBX" run --format json c.yaml
	drop_drift_warnings
	assert_equal "${stderr_lines[*]}" "sbx run: error: c.yaml:2: assembled_snippet: more than 4 MiB of code sbx run: c.yaml: 2 documents: 1 measured, 1 failed otherwise"
	assert_equal "${#lines[@]}" 1
	run -0 --separate-stderr timeout 60 "$SBX" run --benchmark-phase prepare-and-assemble-snippet anchors.yaml
	assert_line --regexp '^  instructions:'
	# too long, too deep or too big to read on: the stream ends there, with what came before it measured
	local closing="sbx run: s.yaml: 2 documents: 1 measured, 1 failed otherwise"
	for f in long deep nodes; do
		{ echo "$good"; cat $f.yaml; echo "$good"; } > s.yaml
		run -1 --separate-stderr timeout 60 "$SBX" run --format json s.yaml
		assert_equal "${#lines[@]}" 1
		drop_drift_warnings
		stderr=${stderr_lines[*]}
		case $f in
		long) assert_equal "$stderr" "sbx run: error: s.yaml: a document of more than 16 MiB (llvm-exegesis writes a few KiB) $closing" ;;
		deep) assert_equal "$stderr" "sbx run: error: s.yaml:21: nested more than 32 levels deep (llvm-exegesis writes 3) $closing" ;;
		nodes) assert_equal "$stderr" "sbx run: error: s.yaml:21: more than 1048576 nodes in one document (llvm-exegesis writes a few dozen) $closing" ;;
		esac
	done
}

@test "exegesis YAML: SIGTERM ends a stream that is still being parsed" {
	cd "$BATS_TEST_TMPDIR"
	mkfifo in.yaml
	# a document that never ends, written slowly
	{ printf -- '---\nmode: latency\nkey:\n  instructions: ['
	  while printf '"x", ' 2> /dev/null; do sleep 0.01; done; } > in.yaml &
	writer=$!
	"$SBX" run in.yaml > out 2> err &
	pid=$!
	sleep 1
	kill -TERM $pid
	st=0
	for _ in $(seq 100); do kill -0 $pid 2> /dev/null || break; sleep 0.05; done
	kill -0 $pid 2> /dev/null && { kill -KILL $pid; kill $writer; false; }
	wait $pid || st=$?
	kill $writer 2> /dev/null || true
	assert_equal "$st" 143
	assert_equal "$(cat err)" ""
}

@test "exegesis YAML: names are text: no instruction name becomes assembly, an error line or a YAML line" {
	cd "$BATS_TEST_TMPDIR"
	# an ADD chain whose name tries to include a file and to add a DEFREG
	printf -- '---\nmode: latency\nkey:\n  instructions:\n    - "ADD64rr RAX RAX RAX\\n.include \\"/etc/passwd\\"\\n# LLVM-EXEGESIS-DEFREG RAX 1\\x1b[2J"\n  config: %s\n  register_initial_values: [ "X\\nY=0x1" ]\ncpu_name: znver5\nllvm_triple: x86_64-pc-linux-gnu\nmin_instructions: 10000\nassembled_snippet: 4801C04801C04801C04801C0C3\n...\n' "''" > n.yaml
	run -0 --separate-stderr sbx run --format yaml n.yaml
	refute_output --partial root:
	# one line each, escaped: the document's instruction, and the register sbx left alone
	assert_line '    - "ADD64rr RAX RAX RAX\n.include \"/etc/passwd\"\n# LLVM-EXEGESIS-DEFREG RAX 1\x1b[2J"'
	assert_line --regexp "^info: +\"sbx: counter [^\"]*; not set, at the start state: X\\\\nY\"$"
	assert_line --regexp 'key: latency, value: [0-9.]+'
	# llvm-exegesis 19 reads the YAML back, and the name as it was: its assembler then
	# refuses the operand 'RAX<newline>.include', as it should
	e=$(exegesis19)
	printf '%s\n' "$output" > n.out
	run -1 "$e" --mode=analysis --benchmarks-file=n.out --analysis-clusters-output-file=c.csv \
		--analysis-inconsistencies-output-file=/dev/null
	assert_output --partial "$(printf "No register with name 'RAX\n.include'")"
	# in text, the label is one escaped line too
	run -0 --separate-stderr sbx run --format text n.yaml
	assert_equal "${#lines[@]}" 2
	assert_line --index 1 --regexp '^ADD64rr RAX RAX RAX\\n\.include "/etc/passwd"\\n# LLVM-EXEGESIS-DEFREG RAX 1\\x1b\[2J +latency +[0-9.]+'
	# and an error about it is one line on standard error
	sed 's/^assembled_snippet: .*/assembled_snippet: 0F0BC3/' n.yaml > ud.yaml
	run -1 --separate-stderr sbx run --format text ud.yaml
	assert_equal "${#stderr_lines[@]}" 1
	assert_regex "$stderr" '^sbx run: error: ud\.yaml:2: ADD64rr RAX RAX RAX\\n\.include "/etc/passwd"\\n# LLVM-EXEGESIS-DEFREG RAX 1\\x1b\[2J: '
	# 300,000 instructions in a document: read and labelled in linear time
	python3 -c 'print("---\nmode: latency\nkey:\n  instructions: [" + ", ".join(["ADD64rr RAX RAX RAX"] * 300000) + "]\nassembled_snippet: 4801C04801C0C3\n...")' > many.yaml
	run -0 --separate-stderr timeout 60 "$SBX" run --benchmark-phase prepare-and-assemble-snippet many.yaml
}

@test "exegesis YAML: llvm-exegesis 19's loop-mode documents are read (the body's copy, not its jne)" {
	E=$(exegesis19)
	cd "$BATS_TEST_TMPDIR"
	"$E" -mode=latency -opcode-name=ADD64rr,IMUL64rr -repetition-mode=loop \
		--benchmark-phase=prepare-and-assemble-snippet > loop.yaml 2>/dev/null
	[ "$(grep -c '^mode:' loop.yaml)" -eq 2 ]
	run -0 --separate-stderr sbx run --json loop.yaml
	assert_equal "$stderr" ""
	# one instruction each, measured as such: 1 cycle and 3
	[ "$(grep -c '"instruction_count":1,' <<< "$output")" -eq 2 ]
	in_range "$(sed -n 1p <<< "$output" | grep -o '"value":[-0-9.e+]*' | cut -d: -f2)" 0.6 1.5
	in_range "$(sed -n 2p <<< "$output" | grep -o '"value":[-0-9.e+]*' | cut -d: -f2)" 2.2 4.5
	assert_line --partial '"instructions":["addq '
	assert_line --partial '"instructions":["imulq '
}

@test "exegesis YAML: a copy's instructions are key.instructions, also where capstone cannot decode them" {
	E=$(exegesis19)
	cd "$BATS_TEST_TMPDIR"
	# AVX-512 mask moves (-mcpu=znver4), which capstone 4 does not decode: two instructions.
	# exegesis picks the second at random, about half the time an APX form (KMOVDrk_EVEX),
	# which an AVX-512 CPU without APX cannot run: drawn again until it is not one
	local try
	for try in $(seq 30); do
		"$E" -mode=latency -mcpu=znver4 -opcode-name=KMOVDkr \
			--benchmark-phase=prepare-and-assemble-snippet > k.yaml 2>/dev/null
		grep -q "^    - 'KMOV.*_EVEX" k.yaml || break
	done
	! grep -q "^    - 'KMOV.*_EVEX" k.yaml
	[ "$(grep -c "^    - 'KMOV" k.yaml)" -eq 2 ]
	run -0 --separate-stderr sbx run --benchmark-phase=assemble-measured-code --json k.yaml
	assert_output --partial '"instruction_count":2,'
	# where the CPU has them (hardware), value is per_snippet_value / 2
	grep -qw avx512bw /proc/cpuinfo || return 0
	run -0 --separate-stderr sbx run --json k.yaml
	local v p
	v=$(grep -o '"value":[-0-9.e+]*' <<< "$output" | cut -d: -f2)
	p=$(grep -o '"per_snippet_value":[-0-9.e+]*' <<< "$output" | cut -d: -f2)
	in_range "$(awk -v v="$v" -v p="$p" 'BEGIN { print v * 2 / p }')" 0.999 1.001
}

@test "exegesis YAML: a sweep's closing line sums up what became of its documents, by reason" {
	grep -qw apx_f /proc/cpuinfo && skip "hardware: this CPU has APX"
	E=$(exegesis19)
	cd "$BATS_TEST_TMPDIR"
	# an APX form (ADC32ri_ND) this CPU lacks, and one that runs
	"$E" -mode=latency -opcode-name=ADC32ri_ND,ADD64rr \
		--benchmark-phase=prepare-and-assemble-snippet > s.yaml 2>/dev/null
	[ "$(grep -c '^mode:' s.yaml)" -eq 2 ]
	run -1 --separate-stderr sbx run --format json s.yaml
	drop_drift_warnings
	assert_regex "${stderr_lines[0]}" "^sbx run: error: s.yaml:2: ADC32ri_ND [^:]*: this CPU lacks the instruction, which needs APX \(an EVEX-promoted form: _EVEX, _ND, _NF\): SIGILL"
	assert_equal "${stderr_lines[1]}" "sbx run: s.yaml: 2 documents: 1 measured, 1 not on this CPU"
	# with --measurements-print-progress, done/total on the way and the line at the end
	run -1 --separate-stderr sbx run --measurements-print-progress --format json s.yaml
	assert_regex "$stderr" 'sbx run: 1/2: 0 measured, 1 not on this CPU, 0m[0-9]{2}s left: ADD64rr'
}
