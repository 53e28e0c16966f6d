#!/usr/bin/env bats
# sbx run: snippets measured in a supervised child. The accuracy checks use
# wide bounds (a loaded machine must not make them flake: a busy SMT sibling
# slows the one-cycle add chain of the TSC calibration by up to ~30% and
# not every snippet alike); they still tell 1 cycle from 3. The precise
# figures are scripts/bench/run.sh's job.

load test_helper

SN=$TOP/tests/data/snippets

# The first "value" of a JSON line (per instruction).
json_value() {
	grep -o '"value":[-0-9.e+]*' <<<"$1" | head -1 | cut -d: -f2
}

# Fail unless lo <= v <= hi.
in_range() {
	awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v != "" && v + 0 >= lo && v + 0 <= hi) }' ||
		{ echo "value '$1' is not within [$2, $3]"; return 1; }
}

@test "a dependent add chain takes about 1 cycle per add" {
	run -0 --separate-stderr sbx run --json "$SN/add-chain.s"
	assert_output --regexp '^\{"snippet":"[^"]*add-chain.s","mode":"latency","counter":"(cycles|tsc-cycles)"'
	assert_output --partial '"error":""'
	in_range "$(json_value "$output")" 0.6 1.5
}

@test "a dependent imul chain takes about 3 cycles per imul" {
	run -0 --separate-stderr sbx run --json "$SN/imul-chain.s"
	in_range "$(json_value "$output")" 2.2 4.5
	assert_output --partial '"instructions":["imulq %rax, %rax","imulq %rax, %rax"]'
}

@test "without a PMU the counter is core cycles estimated from the TSC, with its ratio" {
	events_probe=$(perf stat -e cycles -x, true 2>&1 || true)
	[[ $events_probe == *"not supported"* ]] || skip_hw "this machine counts hardware cycles"
	run -0 --separate-stderr sbx run "$SN/add-chain.s"
	assert_line --index 0 --regexp '^SNIPPET +KEY +PER INSN +PER SNIPPET +COUNTER$'
	assert_line --index 1 --regexp '^.*add-chain.s +latency +[0-9.]+ +[0-9.]+ +tsc-cycles \([0-9.]+ TSC ticks/cycle\), \+-[0-9.]+%(: unsteady)?$'
}

@test "--cycle-counter task-clock measures nanoseconds and says so" {
	require_perf_events
	run -0 --separate-stderr sbx run --json --cycle-counter task-clock "$SN/imul-chain.s"
	assert_output --partial '"counter":"task-clock","unit":"ns"'
	in_range "$(json_value "$output")" 0.01 100
}

@test "pointer chasing through MEM-DEF/MEM-MAP memory measures the load-to-use latency" {
	run -0 --separate-stderr sbx run --json "$SN/pointer-chase.s"
	in_range "$(json_value "$output")" 2.5 12
}

@test "MEM-MAP memory holds the MEM-DEF value at the MEM-MAP address" {
	# load the word at 0x10000 (0x1230 repeated) and use it as an address: the
	# fault address shows what was loaded
	run -1 --separate-stderr sbx run --asm $'# LLVM-EXEGESIS-MEM-DEF blk 4096 00001230\n# LLVM-EXEGESIS-MEM-MAP blk 65536\nmovq $0x10000, %rbx\nmovl (%rbx), %ecx\nmovq (%rcx), %rax'
	assert_equal "$stderr" "sbx run: error: <asm>: SIGSEGV at address 0x1230, snippet+0x9: movq (%rcx), %rax"
}

@test "independent adds: inverse throughput well under one cycle" {
	run -0 --separate-stderr sbx run --json --mode inverse_throughput "$SN/add-independent.s"
	assert_output --partial '"mode":"inverse_throughput"'
	assert_output --partial '"key":"inverse_throughput"'
	in_range "$(json_value "$output")" 0.1 0.7
}

@test "a DEFREG of an XMM register sets it (the value reaches the fault address)" {
	run -0 --separate-stderr sbx run --json "$SN/xmm-defreg.s"
	in_range "$(json_value "$output")" 1 6
	run -1 --separate-stderr sbx run --asm $'# LLVM-EXEGESIS-DEFREG XMM1 1230\nmovq %xmm1, %rbx\nmovq (%rbx), %rax'
	assert_equal "$stderr" "sbx run: error: <asm>: SIGSEGV at address 0x1230, snippet+0x5: movq (%rbx), %rax"
}

@test "DEFREG widens a value as llvm-exegesis does: general registers with zeros, vector registers with the sign" {
	# RSI B is 11 (a MOV of the zero extension), not -5: the load faults at 0xb
	run -1 --separate-stderr sbx run --asm $'# LLVM-EXEGESIS-DEFREG RSI B\nmovq (%rsi), %rax'
	assert_equal "$stderr" "sbx run: error: <asm>: SIGSEGV at address 0xb, snippet+0x0: movq (%rsi), %rax"
	run -1 --separate-stderr sbx run --asm $'# SBX-DEFREG RBX 80\nmovq (%rbx), %rax'
	assert_equal "$stderr" "sbx run: error: <asm>: SIGSEGV at address 0x80, snippet+0x0: movq (%rbx), %rax"
	# the FS base too (RSI of the arch_prctl): 8000 is 0x8000
	run -1 --separate-stderr sbx run --asm $'# LLVM-EXEGESIS-DEFREG FS 8000\nmovq %fs:0, %rax'
	assert_equal "$stderr" "sbx run: error: <asm>: SIGSEGV at address 0x8000, snippet+0x0: movq %fs:0, %rax"
	# XMM1 f80 is sign-extended to 128 bits: its upper quadword is all ones
	run -1 --separate-stderr sbx run --asm $'# LLVM-EXEGESIS-DEFREG XMM1 f80\npextrq $1, %xmm1, %rbx\nandq $-256, %rbx\nmovq (%rbx), %rax'
	assert_equal "$stderr" "sbx run: error: <asm>: SIGSEGV at address 0xffffffffffffff00, snippet+0xe: movq (%rbx), %rax"
	# the scratch buffer is readable and writable: 1 MiB
	run -0 --separate-stderr sbx run --asm $'movq %rax, 0xffff8(%rdi)\nmovq 0xffff8(%rdi), %rax'
}

@test "a snippet starts from a defined state: flags, MXCSR, x87, MMX, vector and general registers" {
	grep -qw avx /proc/cpuinfo || skip "hardware: no AVX on this CPU"
	run -0 --separate-stderr sbx run "$SN/start-state.s"
	assert_output --regexp 'start-state\.s +exit\(0\) +- +- +the snippet exited with code 0 before it was measured'
	assert_equal "$stderr" ""
	# EFLAGS takes the status flags and DF only: TF (0x100) and AC (0x40000) would trap
	{ echo "# LLVM-EXEGESIS-DEFREG EFLAGS 40100"; cat "$SN/start-state.s"; } > "$BATS_TEST_TMPDIR/t.s"
	run -0 --separate-stderr sbx run "$BATS_TEST_TMPDIR/t.s"
	assert_output --partial 'the snippet exited with code 0 before it was measured'
	# a DEFREG still sets its register: the check that sees it fails, by number
	# (CF, DF; YMM15's upper half only)
	for d in 'EFLAGS 1|1' 'EFLAGS 400|1' 'RCX 1|3' 'XMM1 1|22' "YMM15 1$(printf '0%.0s' {1..32})|36"; do
		{ echo "# LLVM-EXEGESIS-DEFREG ${d%|*}"; cat "$SN/start-state.s"; } > "$BATS_TEST_TMPDIR/d.s"
		run -1 --separate-stderr sbx run "$BATS_TEST_TMPDIR/d.s"
		assert_equal "$stderr" "sbx run: error: $BATS_TEST_TMPDIR/d.s: exited with code ${d#*|}"
	done
}

@test "AVX-512 registers start at zero: K0-7 and ZMM0-31" {
	grep -qw avx512f /proc/cpuinfo || skip "hardware: no AVX-512F on this CPU"
	run -0 --separate-stderr sbx run "$SN/start-state-avx512.s"
	assert_output --partial 'the snippet exited with code 0 before it was measured'
	{ echo "# LLVM-EXEGESIS-DEFREG ZMM20 1"; cat "$SN/start-state-avx512.s"; } > "$BATS_TEST_TMPDIR/d.s"
	run -1 --separate-stderr sbx run "$BATS_TEST_TMPDIR/d.s"
	assert_equal "$stderr" "sbx run: error: $BATS_TEST_TMPDIR/d.s: exited with code 31"
}

@test "an FP multiply chain without DEFREGs measures what it measures from 1.0 (no leftover denormals)" {
	run -0 --separate-stderr sbx run --json --asm 'mulsd %xmm1, %xmm0' \
		--asm $'# LLVM-EXEGESIS-DEFREG XMM0 3ff0000000000000\n# LLVM-EXEGESIS-DEFREG XMM1 3ff0000000000000\nmulsd %xmm1, %xmm0'
	local zero one
	zero=$(sed -n 1p <<<"$output" | grep -o '"value":[-0-9.e+]*' | head -1 | cut -d: -f2)
	one=$(sed -n 2p <<<"$output" | grep -o '"value":[-0-9.e+]*' | head -1 | cut -d: -f2)
	# one latency, the same within 20% (harness leftovers made the first 40-55% slower)
	in_range "$(awk -v a="$zero" -v b="$one" 'BEGIN { print a / b }')" 0.8 1.2
}

@test "a segfault is reported with its address and the faulting instruction" {
	run -1 --separate-stderr sbx run "$SN/segv.s"
	assert_equal "$stderr" "sbx run: error: $SN/segv.s: SIGSEGV at address 0x10, snippet+0x4: movq (%rbx), %rax"
	assert_output ''
}

@test "a snippet that calls exit(1) is reported as such" {
	run -1 --separate-stderr sbx run "$SN/exit1.s"
	assert_equal "$stderr" "sbx run: error: $SN/exit1.s: exited with code 1"
}

@test "an infinite loop is ended by --timeout" {
	run -1 --separate-stderr sbx run --timeout 1 "$SN/infinite-loop.s"
	assert_equal "$stderr" "sbx run: error: $SN/infinite-loop.s: timed out after 1 s"
}

@test "a forbidden system call is named; --allow-syscalls lets it through" {
	run -1 --separate-stderr sbx run "$SN/forbidden-syscall.s"
	assert_equal "$stderr" "sbx run: error: $SN/forbidden-syscall.s: forbidden system call write (1), snippet+0x12: syscall"
	# getpid is harmless: allowed, it is measured
	run -1 --separate-stderr sbx run --asm $'movl $39, %eax\nsyscall'
	assert_equal "$stderr" "sbx run: error: <asm>: forbidden system call getpid (39), snippet+0x5: syscall"
	run -0 --separate-stderr sbx run --allow-syscalls --min-instructions 100 --asm $'movl $39, %eax\nsyscall'
	assert_line --index 1 --regexp '^<asm> +latency +[0-9.]+'
	# every x86-64 call has its name (from the kernel headers), not only the common ones
	run -1 --separate-stderr sbx run --asm $'movl $110, %eax\nsyscall'
	assert_equal "$stderr" "sbx run: error: <asm>: forbidden system call getppid (110), snippet+0x5: syscall"
	# a 32-bit call is killed by the filter without a number: say what it was;
	# a kernel without IA-32 emulation refuses it first, with a SIGSEGV
	run -1 --separate-stderr sbx run --asm 'int $0x80'
	# (the judge: a program of our own making a 32-bit getpid)
	printf 'int main(void) { int r; __asm__ volatile("int $0x80" : "=a"(r) : "a"(20)); return r <= 0; }\n' \
		> "$BATS_TEST_TMPDIR/int80.c"
	cc -o "$BATS_TEST_TMPDIR/int80" "$BATS_TEST_TMPDIR/int80.c"
	if "$BATS_TEST_TMPDIR/int80"; then
		assert_equal "$stderr" "sbx run: error: <asm>: a 32-bit system call (int \$0x80 or sysenter), which the seccomp filter refuses: killed by SIGSYS"
	else
		assert_equal "$stderr" "sbx run: error: <asm>: a 32-bit system call (int \$0x80), which this kernel does not run (no IA-32 emulation): SIGSEGV, snippet+0x0: int \$0x80"
	fi
}

@test "SIGINT and SIGTERM end sbx run at once, with the results so far (exit 130, 143)" {
	printf 'loop:\njmp loop\n' > "$BATS_TEST_TMPDIR/loop.s"
	for sig in INT TERM; do
		local rc=0 t0 t1
		"$SBX" run --timeout 60 "$SN/add-chain.s" "$BATS_TEST_TMPDIR/loop.s" "$SN/add-chain.s" \
			> "$BATS_TEST_TMPDIR/out" 2> "$BATS_TEST_TMPDIR/err" &
		local pid=$!
		# once the first snippet's result is out, the loop is being measured
		for _ in $(seq 400); do grep -q latency "$BATS_TEST_TMPDIR/out" && break; sleep 0.05; done
		sleep 0.3
		t0=$(date +%s%N)
		kill -"$sig" "$pid"
		wait "$pid" || rc=$?
		t1=$(date +%s%N)
		[ "$rc" -eq $((128 + $(kill -l "$sig"))) ]
		# at once: not the 60 s of the timeout (100 ms here; 5 s leaves a busy machine room)
		[ $(( (t1 - t0) / 1000000 )) -lt 5000 ]
		[ "$(grep -c latency "$BATS_TEST_TMPDIR/out")" -eq 1 ]
		grep -qx "sbx run: error: $BATS_TEST_TMPDIR/loop.s: interrupted by SIG$sig" "$BATS_TEST_TMPDIR/err"
	done
}

@test "what a snippet forks ends with it; a hanging assembler ends at --timeout" {
	# sbx under a name of its own, to count its processes (a fork of the child is one)
	local tag=sbx-t$RANDOM
	ln -s "$SBX" "$BATS_TEST_TMPDIR/$tag"
	printf 'mov $57, %%eax\nsyscall\nloop:\njmp loop\n' > "$BATS_TEST_TMPDIR/fork.s"
	run -1 --separate-stderr "$BATS_TEST_TMPDIR/$tag" run --allow-syscalls --timeout 1 \
		"$BATS_TEST_TMPDIR/fork.s"
	assert_equal "$stderr" "sbx run: error: $BATS_TEST_TMPDIR/fork.s: timed out after 1 s"
	run -1 pgrep -x "$tag"
	# the assembler (a script whose sleep would outlive it) runs under the same timeout
	local st=9$RANDOM
	printf '#!/bin/sh\nsleep %s\n' "$st" > "$BATS_TEST_TMPDIR/slow-as"
	chmod +x "$BATS_TEST_TMPDIR/slow-as"
	run -1 --separate-stderr sbx run --timeout 1 --assembler "$BATS_TEST_TMPDIR/slow-as" \
		"$SN/add-chain.s"
	assert_equal "$stderr" "sbx run: error: $SN/add-chain.s: the assembler '$BATS_TEST_TMPDIR/slow-as' timed out after 1 s"
	run -1 pgrep -f "sleep $st"
}

@test "SIGKILL of sbx run: what a snippet forked ends too; --max-pids caps a fork bomb, --max-memory a hog" {
	[ "$(id -u)" -eq 0 ] || skip "making a cgroup needs root or a delegated cgroup"
	# sbx under a name of its own, to count its processes by name (a snippet's child
	# may have no command line to match: its memory is the snippet's)
	local tag=sbx-k$RANDOM
	ln -s "$SBX" "$BATS_TEST_TMPDIR/$tag"
	live() { pgrep -c -r R,S,D,T,t -x "$tag" || true; }	# not zombies
	# fork, then both spin: the fork is a copy of sbx run's child, outside its ptrace
	printf 'mov $57, %%eax\nsyscall\nloop:\njmp loop\n' > "$BATS_TEST_TMPDIR/fork.s"
	"$BATS_TEST_TMPDIR/$tag" run --allow-syscalls --timeout 60 "$BATS_TEST_TMPDIR/fork.s" \
		2> "$BATS_TEST_TMPDIR/err" &
	local pid=$!
	# sbx run, the snippet's child and its fork (the watchdog has a name of its own)
	for _ in $(seq 200); do [ "$(live)" -ge 3 ] && break; sleep 0.05; done
	[ "$(live)" -ge 3 ] || { cat "$BATS_TEST_TMPDIR/err"; false; }
	kill -KILL "$pid"
	wait "$pid" || true
	for _ in $(seq 100); do [ "$(live)" -eq 0 ] && break; sleep 0.05; done
	[ "$(live)" -eq 0 ]
	# a fork bomb (each copy forks on) under --max-pids 20: at most 20 at any time
	printf 'loop:\nmov $57, %%eax\nsyscall\njmp loop\n' > "$BATS_TEST_TMPDIR/bomb.s"
	"$BATS_TEST_TMPDIR/$tag" run --allow-syscalls --timeout 3 --max-pids 20 \
		"$BATS_TEST_TMPDIR/bomb.s" 2> "$BATS_TEST_TMPDIR/err" &
	pid=$!
	local most=0 n
	while kill -0 "$pid" 2> /dev/null; do
		n=$(live)
		[ "$n" -le "$most" ] || most=$n
		sleep 0.1
	done
	wait "$pid" || true
	assert_equal "$(cat "$BATS_TEST_TMPDIR/err")" "sbx run: error: $BATS_TEST_TMPDIR/bomb.s: timed out after 3 s"
	# 20 in the cgroup, and sbx run outside it
	[ "$most" -ge 10 ] && [ "$most" -le 21 ]
	for _ in $(seq 100); do [ "$(live)" -eq 0 ] && break; sleep 0.05; done
	[ "$(live)" -eq 0 ]
	# 256 MiB touched under --max-memory 64M: the kernel's kill, named
	printf '%s\n' 'mov $9, %eax' 'xor %edi, %edi' 'mov $0x10000000, %esi' 'mov $3, %edx' \
		'mov $0x22, %r10d' 'mov $-1, %r8' 'xor %r9d, %r9d' 'syscall' 'mov %rax, %rdi' \
		'mov $0x10000000, %rcx' '1: movb $1, (%rdi)' 'add $4096, %rdi' 'sub $4096, %rcx' \
		'jnz 1b' > "$BATS_TEST_TMPDIR/hog.s"
	run -1 --separate-stderr sbx run --allow-syscalls --max-memory 64M "$BATS_TEST_TMPDIR/hog.s"
	assert_equal "$stderr" "sbx run: error: $BATS_TEST_TMPDIR/hog.s: killed by the kernel (SIGKILL): it went past the memory --max-memory allows"
	run -2 --separate-stderr sbx run --max-pids -3 "$SN/add-chain.s"
	assert_equal "${stderr_lines[0]}" "sbx run: error: --max-pids must be a number above 0, not '-3'"
}

@test "big snippets: more than 1 MiB of code is refused; the assembler's memory is bounded" {
	printf '.fill 0x400000, 1, 0x90\n' > "$BATS_TEST_TMPDIR/fill.s"
	run -1 --separate-stderr sbx run "$BATS_TEST_TMPDIR/fill.s"
	assert_equal "$stderr" "sbx run: error: $BATS_TEST_TMPDIR/fill.s: the snippet's code is 4194304 bytes; sbx run takes at most 1048576 (1 MiB)"
	# 100 million nops: the assembler runs out of its 1 GiB, and says so
	printf '.rept 100000000\nnop\n.endr\n' > "$BATS_TEST_TMPDIR/rept.s"
	run -1 --separate-stderr sbx run --timeout 60 "$BATS_TEST_TMPDIR/rept.s"
	[[ "$stderr" == "sbx run: error: $BATS_TEST_TMPDIR/rept.s: the assembler failed: "*"out of memory"* ]]
	# half a MiB is measured
	printf '.fill 0x80000, 1, 0x90\n' > "$BATS_TEST_TMPDIR/half.s"
	run -0 sbx run --repetition-mode loop --min-instructions 100 "$BATS_TEST_TMPDIR/half.s"
	assert_line --regexp '^.*half.s +latency +[0-9.]+'
}

@test "a directory as snippet and a timeout past a day get messages that say so" {
	run -1 --separate-stderr sbx run "$BATS_TEST_TMPDIR"
	assert_equal "$stderr" "sbx run: error: cannot read '$BATS_TEST_TMPDIR': Is a directory"
	run -2 --separate-stderr sbx run --timeout 1e9 --asm nop
	assert_equal "${stderr_lines[0]}" "sbx run: error: --timeout is at most 86400 seconds (a day), not '1e9'"
}

@test "a malformed annotation names the file, the line and what was expected" {
	run -1 --separate-stderr sbx run "$SN/bad-annotation.s"
	assert_equal "$stderr" "sbx run: error: $SN/bad-annotation.s:2: invalid annotation 'LLVM-EXEGESIS-DEFREG RAX': expected two parameters <REG> <HEX_VALUE>"
	run -1 --separate-stderr sbx run --asm $'nop\n# SBX-DEFREG XMM99 1'
	assert_equal "$stderr" "sbx run: error: <asm>:2: invalid annotation 'SBX-DEFREG XMM99 1': expected a register name (RAX..R15, EAX.., XMM0..31, YMM, ZMM, K0..7, FS, GS, EFLAGS)"
	run -1 --separate-stderr sbx run --asm $'# SBX-MEM-MAP nope 65536\nnop'
	assert_equal "$stderr" "sbx run: error: <asm>:1: invalid annotation 'SBX-MEM-MAP nope 65536': expected <NAME> to be the name of an earlier MEM-DEF"
	run -1 --separate-stderr sbx run --asm $'# SBX-MEM-DEF a 4096 1\n# SBX-MEM-MAP a 1000\nnop'
	assert_equal "$stderr" "sbx run: error: <asm>:2: invalid annotation 'SBX-MEM-MAP a 1000': expected <ADDRESS>: a decimal, non-zero multiple of the page size below 0x7ff000000000 (140668768878592)"
	# the bound the message names, in both spellings: the page at it is refused, the one below taken
	run -1 --separate-stderr sbx run --asm $'# SBX-MEM-DEF a 4096 1\n# SBX-MEM-MAP a 140668768878592\nnop'
	assert_regex "$stderr" "invalid annotation 'SBX-MEM-MAP a 140668768878592'"
	run -0 --separate-stderr sbx run --asm $'# SBX-MEM-DEF a 4096 1\n# SBX-MEM-MAP a 140668768874496\nnop'
	# loop mode counts trips in %r8: a snippet that writes it would never end: not run, told why
	# (a --timeout of a day: waiting it out would fail the test)
	run -1 --separate-stderr timeout 60 "$SBX" run --repetition-mode loop --timeout 86400 --asm $'movq $5, %r8\naddq %rax, %rax'
	assert_equal "$stderr" "sbx run: error: <asm>: not run: in loop mode %r8 counts the trips, and snippet+0x0 (movq \$5, %r8) writes it; name another with LOOP-REGISTER"
	run -0 sbx run --repetition-mode loop --timeout 5 --asm $'# SBX-LOOP-REGISTER R9\nmovq $5, %r8\naddq %rax, %rax'
	# one that only reads it runs; in min mode a snippet that writes it keeps its duplicate figure
	run -0 --separate-stderr sbx run --repetition-mode loop --asm $'cmpq $1, %r8\ntestq %r8, %r8\npushq %r8\npopq %rax\nbtq $1, %r8'
	run -1 --separate-stderr timeout 60 "$SBX" run --repetition-mode loop --timeout 86400 --asm 'btsq $1, %r8'
	assert_equal "$stderr" "sbx run: error: <asm>: not run: in loop mode %r8 counts the trips, and snippet+0x0 (btsq \$1, %r8) writes it; name another with LOOP-REGISTER"
	run -0 --separate-stderr sbx run --json --repetition-mode min --asm 'incq %r8'
	assert_output --regexp '"measurements":\[\{"key":"latency","value":[0-9.]+'
	run -1 --separate-stderr sbx run --asm $'# LLVM-EXEGESIS-FROB x\nnop'
	assert_equal "$stderr" "sbx run: error: <asm>:1: unknown annotation 'LLVM-EXEGESIS-FROB' (expected DEFREG, LIVEIN, MEM-DEF, MEM-MAP, SNIPPET-ADDRESS, LOOP-REGISTER or INSTRUCTIONS)"
}

@test "a batch mixing good and bad snippets measures the good ones and exits 1" {
	run -1 --separate-stderr sbx run --json "$SN/add-chain.s" "$SN/segv.s" "$SN/exit1.s" "$SN/imul-chain.s"
	assert_equal "${#lines[@]}" 4
	assert_line --index 0 --partial '"error":""'
	assert_line --index 1 --partial '"measurements":[],"error":"'"$SN"'/segv.s: SIGSEGV at address 0x10, snippet+0x4: movq (%rbx), %rax"'
	assert_line --index 2 --partial '"error":"'"$SN"'/exit1.s: exited with code 1"'
	assert_line --index 3 --partial '"error":""'
	in_range "$(json_value "${lines[3]}")" 2.2 4.5
	[[ $stderr == *"segv.s: SIGSEGV"*"exit1.s: exited with code 1"* ]]
}

@test "--json objects carry the settings used" {
	run -0 --separate-stderr sbx --json run --min-instructions 2000 --repeat 5 --aggregate median \
		--repetition-mode loop --cpu 0 --timeout 3 "$SN/add-chain.s"
	assert_output --regexp '"measurements":\[\{"key":"latency","value":[0-9.e+-]+,"per_snippet_value":[0-9.e+-]+,"unit":"cycles","uncertainty":[0-9.e+-]+\}\]'
	assert_output --partial '"repetition_mode":"loop","min_instructions":2000,"benchmark_repeat_count":5,"result_aggregation_mode":"median","diff":true,"cpu":0,"timeout":3.0,"num_repetitions":500'
}

@test "llvm-exegesis command lines work, single-dash long options included" {
	run -0 --separate-stderr sbx run -mode=latency -repetition-mode=loop -min-instructions=1000 \
		-benchmark-repeat-count=5 -result-aggregation-mode=min -snippets-file="$SN/imul-chain.s" --json
	assert_output --partial '"repetition_mode":"loop","min_instructions":1000,"benchmark_repeat_count":5'
	run -0 --separate-stderr sbx run --mode=inverse_throughput --snippets-file="$SN/add-independent.s" \
		--benchmark-process-cpu=0 --execution-mode=subprocess --repetition-mode=middle-half-loop \
		--benchmarks-file=- --json
	assert_output --partial '"mode":"inverse_throughput"'
	assert_output --partial '"repetition_mode":"loop"'
	run -0 --separate-stderr sbx run -execution-mode=subprocess -benchmarks-file=- "$SN/add-chain.s"
	assert_line 'mode:            latency'
}

@test "--benchmarks-file writes YAML to a file, complete or not at all" {
	mkdir "$BATS_TEST_TMPDIR/o"
	run -1 --separate-stderr sbx run --benchmarks-file "$BATS_TEST_TMPDIR/o/out.yaml" \
		"$SN/add-chain.s" "$SN/segv.s"
	assert_output ''
	run -0 grep -c '^---$' "$BATS_TEST_TMPDIR/o/out.yaml"
	assert_output 2
	run -0 grep -c "^error:           ''$" "$BATS_TEST_TMPDIR/o/out.yaml"
	assert_output 1
	run -0 ls -A "$BATS_TEST_TMPDIR/o"
	assert_output 'out.yaml'
	run -1 --separate-stderr sbx run --benchmarks-file /nonexistent/dir/out.yaml "$SN/add-chain.s"
	[[ $stderr == "sbx run: error: cannot create a file beside '/nonexistent/dir/out.yaml': No such file or directory" ]]
}

@test "--benchmarks-file to /dev/null, a FIFO or /dev/stdout: written in place, never renamed over" {
	cd "$BATS_TEST_TMPDIR"
	run -0 --separate-stderr sbx run --benchmarks-file /dev/null "$SN/add-chain.s"
	assert_output ''
	[ -c /dev/null ]
	mkfifo fifo
	cat fifo > got.yaml &
	local reader=$!
	run -0 --separate-stderr sbx run --benchmarks-file fifo "$SN/add-chain.s"
	wait "$reader"
	[ -p fifo ]
	run -0 grep -c '^---$' got.yaml
	assert_output 1
	run -0 bash -c "'$SBX' run --benchmarks-file /dev/stdout '$SN/add-chain.s' > out.yaml"
	run -0 grep -c '^mode:            latency$' out.yaml
	assert_output 1
	run -0 ls -A fifo got.yaml out.yaml
	run -0 ls -A
	refute_output --partial .sbx-tmp-
	# an older file stays as it was when nothing could be measured
	echo old > keep.yaml
	run -2 --separate-stderr sbx run --benchmarks-file keep.yaml --no-such-option "$SN/add-chain.s"
	[ "$(cat keep.yaml)" = old ]
}

@test "--dump-object-to-disk: complete or not there, never renamed over a device" {
	cd "$BATS_TEST_TMPDIR"
	run -0 --separate-stderr sbx run --dump-object-to-disk /dev/null "$SN/imul-chain.s"
	[ -c /dev/null ]
	run -1 --separate-stderr sbx run --dump-object-to-disk no/such/dir/s.o "$SN/imul-chain.s"
	assert_regex "$stderr" "cannot create a file beside 'no/such/dir/s.o'"
	run -0 ls -A
	refute_output --partial .sbx-tmp-
}

@test "--format yaml follows llvm-exegesis's shape" {
	run -0 --separate-stderr sbx run --format yaml "$SN/add-chain.s"
	assert_line --index 0 '---'
	assert_line --index 1 'mode:            latency'
	assert_line --index 2 'key:'
	assert_line --index 3 '  instructions:'
	if command -v llvm-mc-14 >/dev/null || command -v llvm-mc >/dev/null; then
		assert_line --index 4 "    - 'ADD64rr RAX RAX RBX'"
	else
		assert_line --index 4 "    - 'addq %rbx, %rax'"
	fi
	assert_line '  register_initial_values:'
	assert_line "    - 'RAX=0x1'"
	assert_line "    - 'RBX=0x2'"
	assert_line 'llvm_triple:     x86_64-unknown-linux-gnu'
	assert_line 'min_instructions: 10000'
	assert_line --regexp '^  - \{ key: latency, value: [0-9.e+-]+, per_snippet_value: [0-9.e+-]+ \}$'
	assert_line "error:           ''"
	assert_line 'assembled_snippet: 4801D84801D84801D84801D8'
	assert_line --index $((${#lines[@]} - 1)) '...'
}

@test "llvm-exegesis 14's analysis mode reads what --format yaml-llvm14 writes" {
	command -v llvm-exegesis-14 >/dev/null || skip "llvm-exegesis-14 is not installed"
	run -0 --separate-stderr sbx run --format yaml-llvm14 --repeat 3 "$SN/add-chain.s" \
		"$SN/pointer-chase.s" "$SN/xmm-defreg.s" "$SN/add-independent.s"
	assert_line "    - 'MOV64rm RAX RAX i_0x1 %noreg i_0x0 %noreg'"
	assert_line "    - 'ADDSDrr_Int XMM0 XMM0 XMM1'"
	assert_line 'num_repetitions: 10000'
	printf '%s\n' "${lines[@]}" > "$BATS_TEST_TMPDIR/r.yaml"
	run -0 llvm-exegesis-14 --mode=analysis --benchmarks-file="$BATS_TEST_TMPDIR/r.yaml" \
		--analysis-clusters-output-file=-
	assert_line 'Parsed 4 benchmark points'
}

@test "loop and min repetition modes measure the same chain" {
	run -0 --separate-stderr sbx run --json --repetition-mode loop "$SN/imul-chain.s"
	in_range "$(json_value "$output")" 2.2 4.5
	run -0 --separate-stderr sbx run --json --repetition-mode min "$SN/add-chain.s"
	assert_output --partial '"repetition_mode":"min"'
	in_range "$(json_value "$output")" 0.6 1.5
	# the loop counter register of LOOP-REGISTER is the one decremented
	run -0 --separate-stderr sbx run --json --repetition-mode loop \
		--asm $'# SBX-LOOP-REGISTER R12\nimulq %rax, %rax'
	in_range "$(json_value "$output")" 2.2 4.5
}

@test "values are per instruction, counted by llvm-mc where capstone cannot decode" {
	command -v llvm-mc-14 >/dev/null || skip "llvm-mc-14 is not installed"
	grep -qw avx512bw /proc/cpuinfo || skip_hw "no AVX-512 (kmovq) on this CPU"
	run -0 --separate-stderr sbx run --json --asm $'kmovq %k2, %rbx\nimulq %rax, %rax'
	assert_output --regexp '"instructions":\["(kmovq %k2, %rbx|KMOVQrk RBX K2)","(imulq %rax, %rax|IMUL64rr RAX RAX RAX)"\]'
	in_range "$(json_value "$output")" 1.0 2.3
}

@test "--no-diff reports the K run, set-up included" {
	run -0 --separate-stderr sbx run --json --no-diff --min-instructions 100 "$SN/add-chain.s"
	assert_output --partial '"diff":false'
	in_range "$(json_value "$output")" 0.6 100
}

@test "Intel syntax, stdin and --asm" {
	run -0 --separate-stderr bash -c 'echo "imul rax, rax" | "$0" run --json --syntax intel -' "$SBX"
	assert_output --partial '"snippet":"-"'
	assert_output --partial '"instructions":["imul rax, rax"]'
	run -0 --separate-stderr sbx run --json --asm 'imulq %rax, %rax; imulq %rax, %rax'
	assert_output --partial '"instructions":["imulq %rax, %rax","imulq %rax, %rax"]'
}

@test "assembler errors and relocations are clear errors" {
	run -1 --separate-stderr sbx run --asm 'bogus %rax'
	assert_equal "$stderr" "sbx run: error: <asm>: the assembler failed: <asm>:1: Error: no such instruction: \`bogus %rax'"
	run -1 --separate-stderr sbx run --asm 'call foo'
	assert_equal "$stderr" "sbx run: error: <asm>: the snippet needs a relocation against 'foo' (.text+0x1); sbx run takes self-contained code: use absolute addresses with MEM-MAP, or SNIPPET-ADDRESS"
	run -1 --separate-stderr sbx run "$BATS_TEST_TMPDIR/missing.s"
	assert_equal "$stderr" "sbx run: error: cannot open '$BATS_TEST_TMPDIR/missing.s': No such file or directory"
}

@test "--assembler llvm-mc assembles the same bytes" {
	command -v llvm-mc-14 >/dev/null || skip "llvm-mc-14 is not installed"
	run -0 --separate-stderr sbx run --format yaml --assembler llvm-mc-14 "$SN/add-chain.s"
	assert_line 'assembled_snippet: 4801D84801D84801D84801D8'
}

@test "SNIPPET-ADDRESS places the code at that address" {
	# rip-relative: rbx = own address - 0x20000000, a small offset, then a load from it faults
	run -1 --separate-stderr sbx run --min-instructions 3 \
		--asm $'# LLVM-EXEGESIS-SNIPPET-ADDRESS 20000000\nleaq 0(%rip), %rbx\nsubq $0x20000000, %rbx\nmovq (%rbx), %rax'
	[[ $stderr =~ ^sbx\ run:\ error:\ \<asm\>:\ SIGSEGV\ at\ address\ 0x[0-9a-f]{1,3},\ snippet\+0xe:\ movq\ \(%rbx\),\ %rax$ ]] ||
		{ echo "not a fault near 0x20000000: $stderr"; return 1; }
}

@test "--counters counts events in the same runs; an unknown one suggests names" {
	require_perf_events
	run -0 --separate-stderr sbx run --json --counters page-faults,context-switches "$SN/add-chain.s"
	assert_output --regexp '"measurements":\[\{"key":"latency",[^]]*\{"key":"page-faults","value":[0-9.e+-]+,"per_snippet_value":[0-9.e+-]+,"unit":"count"\},\{"key":"context-switches"'
	# the COUNTER column names each event's unit: task-clock counts nanoseconds
	run -0 --separate-stderr sbx run --counters task-clock,page-faults "$SN/add-chain.s"
	assert_line --index 2 --regexp '^ +task-clock +[0-9.]+ +[0-9.]+  event \(ns\)$'
	assert_line --index 3 --regexp '^ +page-faults +[0-9.]+ +[0-9.]+  event \(count\)$'
	run -1 --separate-stderr sbx run --counters task-clcok "$SN/add-chain.s"
	assert_equal "$stderr" "sbx run: error: unknown event 'task-clcok' (did you mean 'task-clock'?)"
}

@test "a hardware event on a machine without a PMU: said to be unavailable, the other figures measured; --mode uops a one-line error" {
	require_perf_events
	probe=$(perf stat -e instructions -x, true 2>&1 || true)
	[[ $probe == *"not supported"* ]] || skip_hw "this machine counts hardware events"
	run -0 --separate-stderr sbx run --counters instructions,task-clock "$SN/add-chain.s" "$SN/imul-chain.s"
	drop_drift_warnings
	assert_equal "${stderr_lines[*]}" "sbx run: warning: instructions: this machine cannot count it (no hardware PMU?); the other figures are measured"
	assert_line --index 1 --regexp 'add-chain\.s +latency +[0-9.]+ +[0-9.]+ '
	assert_line --index 2 --regexp '^ +instructions +- +-  unavailable: this machine cannot count it$'
	assert_line --index 3 --regexp '^ +task-clock +[0-9.]+ +[0-9.]+  event \(ns\)$'
	run -0 --separate-stderr sbx run --json --counters instructions "$SN/add-chain.s"
	assert_output --partial '{"key":"instructions","value":null,"per_snippet_value":null,"unit":"count","unavailable":true}'
	in_range "$(json_value "$output")" 0.6 1.5
	run -1 --separate-stderr sbx run --mode uops "$SN/add-chain.s"
	assert_equal "$stderr" "sbx run: error: --mode uops counts the PMU's retired micro-ops (RETIRED_OPS, UOPS_RETIRED), and this machine has no PMU (a VM?); latency and inverse_throughput are measured without one"
	[ -z "$output" ]
	run -1 --separate-stderr sbx run --cycle-counter cycles "$SN/add-chain.s"
	assert_equal "$stderr" "sbx run: error: this machine cannot count hardware cycles (no PMU, or perf_event_paranoid); try --cycle-counter tsc"
}

@test "--dump-object-to-disk keeps the object file" {
	run -0 --separate-stderr sbx run --dump-object-to-disk "$BATS_TEST_TMPDIR/s.o" "$SN/imul-chain.s"
	run -0 objdump -d "$BATS_TEST_TMPDIR/s.o"
	assert_output --regexp 'imul +%rax,%rax'
}

@test "--cpu pins the child; a CPU that does not exist is an error" {
	run -0 --separate-stderr sbx run --cpu 0 --json "$SN/add-chain.s"
	assert_output --partial '"cpu":0'
	run -1 --separate-stderr sbx run --cpu 1000 "$SN/add-chain.s"
	assert_equal "$stderr" "sbx run: error: cannot pin the child to CPU 1000: Invalid argument"
}

@test "usage errors exit 2" {
	run -2 --separate-stderr sbx run
	[[ $stderr == *"no snippet given (FILE, -, --asm or --opcode-name)"* ]]
	run -2 --separate-stderr sbx run --mode cycles "$SN/add-chain.s"
	[[ $stderr == *"invalid mode 'cycles' (expected one of: latency, inverse_throughput, uops)"* ]]
	run -2 --separate-stderr sbx run --benchmark-phase assemble "$SN/add-chain.s"
	run -2 --separate-stderr sbx run --mtriple aarch64-linux-gnu "$SN/add-chain.s"
	assert_equal "${stderr_lines[0]}" "sbx run: error: --mtriple: sbx run measures x86_64 code on this machine, not 'aarch64-linux-gnu'"
	# llvm-exegesis's single-dash options that sbx does not have are named as written
	run -2 --separate-stderr sbx run -x86-lbr-sample-period=1000 "$SN/add-chain.s"
	assert_equal "${stderr_lines[0]}" "sbx run: error: unknown option '-x86-lbr-sample-period'"
	run -2 --separate-stderr sbx run -x86-disable-upper-sse-registers "$SN/add-chain.s"
	assert_equal "${stderr_lines[0]}" "sbx run: error: unknown option '-x86-disable-upper-sse-registers'"
	# while a value that starts with a dash is a value
	run -2 --separate-stderr sbx run -mode=latency --timeout -1 "$SN/add-chain.s"
	assert_equal "${stderr_lines[0]}" "sbx run: error: --timeout must be a number of seconds above 0, not '-1'"
}

@test "llvm-exegesis's options: --benchmark-phase stops before measuring, ignored ones are said to be, several --asm are told apart" {
	run -0 --separate-stderr sbx run --benchmark-phase=prepare-and-assemble-snippet "$SN/add-chain.s"
	assert_line --index 1 --regexp 'add-chain\.s +skipped +- +-  --benchmark-phase prepare-and-assemble-snippet: assembled, not measured$'
	run -0 --separate-stderr sbx run -benchmark-phase=assemble-measured-code --format yaml "$SN/add-chain.s"
	assert_line "error:           'actual measurements skipped.'"
	assert_line "measurements:    []"
	run -0 --separate-stderr sbx run --use-dummy-perf-counters --mcpu znver4 --asm 'addq %rax, %rax'
	[ "${stderr_lines[0]}" = "sbx run: warning: --use-dummy-perf-counters is ignored: sbx measures, with the TSC where there is no PMU" ]
	[ "${stderr_lines[1]}" = "sbx run: warning: --mcpu is ignored: it is for llvm-exegesis's generation (--opcode-name, --opcode-index)" ]
	run -0 --separate-stderr sbx run --asm 'addq %rax, %rax' --asm $'# two\nimulq %rax, %rax;  imulq %rax, %rax' \
		--asm 'addq %rbx, %rax; addq %rbx, %rax; addq %rbx, %rax; addq %rbx, %rax'
	assert_line --index 1 --regexp '^<asm: addq %rax, %rax> +latency '
	assert_line --index 2 --regexp '^<asm: imulq %rax, %rax; imulq %rax, %rax> +latency '
	assert_line --index 3 --regexp '^<asm: addq %rbx, %rax; addq %rbx, %rax; addq %\.\.\.> +latency '
	# one --asm stays <asm>
	run -0 --separate-stderr sbx run --asm 'addq %rax, %rax'
	assert_line --index 1 --regexp '^<asm> +latency '
}

@test "usage errors exit 2, the rest" {
	run -2 --separate-stderr sbx run --min-instructions 0 "$SN/add-chain.s"
	run -2 --separate-stderr sbx run --repetition-mode middle "$SN/add-chain.s"
	run -2 --separate-stderr sbx run --timeout -1 "$SN/add-chain.s"
	run -2 --separate-stderr sbx run --format xml "$SN/add-chain.s"
}

@test "every DEFREG holds at the snippet's first instruction, RSP included: a checking snippet's exit(0) is a success" {
	run -0 --separate-stderr sbx run "$SN/check-registers.s"
	assert_output --regexp 'check-registers\.s +exit\(0\) +- +- +the snippet exited with code 0 before it was measured'
	assert_equal "$stderr" ""
	run -0 --separate-stderr sbx run --json "$SN/check-registers.s"
	assert_output --partial '"measurements":[],"error":"","exited":true'
	# a register that does not hold what the snippet expects: its exit code names it
	for r in rax:1 rcx:2 rdx:3 rsp:5 rdi:8 r11:12; do
		sed "s/^k_${r%:*}: .quad 0x.*/k_${r%:*}: .quad 0x5/" "$SN/check-registers.s" > "$BATS_TEST_TMPDIR/bad.s"
		run -1 --separate-stderr sbx run "$BATS_TEST_TMPDIR/bad.s"
		assert_equal "$stderr" "sbx run: error: $BATS_TEST_TMPDIR/bad.s: exited with code ${r#*:}"
	done
}

@test "DEFREG FS and GS set the segment bases, and SNIPPET-ADDRESS places the code, in every repetition mode" {
	for m in duplicate loop min; do
		run -0 --separate-stderr sbx run --repetition-mode $m "$SN/check-segments.s" "$SN/check-address.s"
		assert_line --index 1 --regexp 'check-segments\.s +exit\(0\)'
		assert_line --index 2 --regexp 'check-address\.s +exit\(0\)'
	done
	# the checks can fail: a base, an address that is not the snippet's
	sed 's/DEFREG GS 10004/DEFREG GS 10000/' "$SN/check-segments.s" > "$BATS_TEST_TMPDIR/gs.s"
	run -1 --separate-stderr sbx run "$BATS_TEST_TMPDIR/gs.s"
	assert_equal "$stderr" "sbx run: error: $BATS_TEST_TMPDIR/gs.s: exited with code 2"
	sed 's/cmpq \$0x20000000/cmpq $0x20001000/' "$SN/check-address.s" > "$BATS_TEST_TMPDIR/addr.s"
	run -1 --separate-stderr sbx run "$BATS_TEST_TMPDIR/addr.s"
	assert_equal "$stderr" "sbx run: error: $BATS_TEST_TMPDIR/addr.s: exited with code 1"
	# a snippet that reads %fs:0 is measured, and the harness gets its own FS back
	run -0 --separate-stderr sbx run --json --asm '# LLVM-EXEGESIS-MEM-DEF t 4096 2a
# LLVM-EXEGESIS-MEM-MAP t 65536
# LLVM-EXEGESIS-DEFREG FS 10000
movq %fs:0, %r13'
	assert_output --partial '"error":""'
	in_range "$(json_value "$output")" 0.05 20
}

@test "DEFREG RSP: a snippet pushes and pops on a stack of its own, measured in every repetition mode" {
	for m in duplicate loop min; do
		run -0 --separate-stderr sbx run --json --repetition-mode $m "$SN/rsp-stack.s"
		assert_output --partial '"error":""'
		in_range "$(json_value "$output")" 0.05 20
	done
	# without a stack there, the push faults at the defined RSP
	run -1 --separate-stderr sbx run --asm '# LLVM-EXEGESIS-DEFREG RSP 10000
pushq %rax'
	assert_equal "$stderr" "sbx run: error: <asm>: SIGSEGV at address 0xfff8, snippet+0x0: pushq %rax"
}

@test "SBX-INSTRUCTIONS: the count values are divided by, checked where capstone decodes the code" {
	# two adds as bytes: 48 01 c0 = addq %rax, %rax
	run -0 --separate-stderr sbx run --json --asm $'# SBX-INSTRUCTIONS 2\n.byte 0x48,0x01,0xc0,0x48,0x01,0xc0'
	assert_output --partial '"instruction_count":2,'
	local v p
	v=$(json_value "$output")
	p=$(grep -o '"per_snippet_value":[-0-9.e+]*' <<< "$output" | cut -d: -f2)
	in_range "$(awk -v v="$v" -v p="$p" 'BEGIN { print v * 2 / p }')" 0.999 1.001
	run -1 --separate-stderr sbx run --asm $'# SBX-INSTRUCTIONS 3\n.byte 0x48,0x01,0xc0,0x48,0x01,0xc0'
	assert_equal "$stderr" "sbx run: error: <asm>: SBX-INSTRUCTIONS says 3 instructions; the code holds 2"
	run -1 --separate-stderr sbx run --asm $'# SBX-INSTRUCTIONS 0\nnop'
	assert_equal "$stderr" "sbx run: error: <asm>:1: invalid annotation 'SBX-INSTRUCTIONS 0': expected <COUNT>: a decimal number of instructions, 1 to 1048576"
}

@test "what cannot run says why: privileged instructions, instructions this CPU lacks" {
	run -1 --separate-stderr sbx run --asm hlt --asm 'inb $0x80, %al' --asm 'movq %cr0, %rax'
	assert_equal "${stderr_lines[0]}" "sbx run: error: <asm: hlt>: a privileged instruction, which only the kernel may run: SIGSEGV, snippet+0x0: hlt"
	assert_equal "${stderr_lines[1]}" "sbx run: error: <asm: inb \$0x80, %al>: a privileged instruction, which only the kernel may run: SIGSEGV, snippet+0x0: inb \$0x80, %al"
	assert_equal "${stderr_lines[2]}" "sbx run: error: <asm: movq %cr0, %rax>: a privileged instruction, which only the kernel may run: SIGSEGV, snippet+0x0: movq %cr0, %rax"
	# ud2 is undefined on purpose: no feature named
	run -1 --separate-stderr sbx run --asm ud2
	assert_regex "$stderr" '^sbx run: error: <asm>: SIGILL at address 0x[0-9a-f]+, snippet\+0x0: ud2$'
	# APX's REX2 (addl %eax, %r16d) and an EVEX form, where the CPU lacks them (hardware)
	if ! grep -qw apx_f /proc/cpuinfo; then
		run -1 --separate-stderr sbx run --asm '.byte 0xd5,0x10,0x01,0xc0'
		assert_regex "$stderr" '^sbx run: error: <asm>: this CPU lacks the instruction, which needs APX \(a REX2 prefix\): SIGILL at address 0x[0-9a-f]+, snippet\+0x0: '
	fi
	if ! grep -qw avx512f /proc/cpuinfo; then
		run -1 --separate-stderr sbx run --asm 'vpaddd %zmm1, %zmm2, %zmm3'
		assert_regex "$stderr" '^sbx run: error: <asm>: this CPU lacks the instruction, which needs AVX-512 \(an EVEX form\): SIGILL at address 0x[0-9a-f]+, snippet\+0x0: vpaddd %zmm1, %zmm2, %zmm3$'
		# a DEFREG of a register it lacks: the set-up's SIGILL
		run -1 --separate-stderr sbx run --asm $'# LLVM-EXEGESIS-DEFREG ZMM20 1\nnop'
		assert_regex "$stderr" '^sbx run: error: <asm>: this CPU lacks a register the snippet defines \(a DEFREG of YMM, ZMM or K registers needs AVX or AVX-512\): SIGILL at address 0x[0-9a-f]+, in the register set-up$'
	fi
}

@test "YAML results name the CPU as LLVM does (llc's Host CPU), so that llvm-exegesis 19's analysis mode loads its model" {
	local bin
	bin=$(llvm-config-19 --bindir) || { echo "llvm-19 is not installed"; return 1; }
	host=$("$bin/llc" --version | sed -n 's/^ *Host CPU: *//p')
	[ -n "$host" ]
	run -0 --separate-stderr sbx run --format yaml "$SN/add-chain.s" "$SN/imul-chain.s"
	[ "$(grep -c "^cpu_name: *'$host'$" <<< "$output")" -eq 2 ]
	printf '%s\n' "${lines[@]}" > "$BATS_TEST_TMPDIR/r.yaml"
	# with the model name ("AMD EPYC") it stopped with "invalid CPU name"
	run -0 "$bin/llvm-exegesis" --mode=analysis --benchmarks-file="$BATS_TEST_TMPDIR/r.yaml" \
		--analysis-clusters-output-file=- --analysis-inconsistencies-output-file="$BATS_TEST_TMPDIR/i.html"
	assert_line 'Parsed 2 benchmark points'
	[ -s "$BATS_TEST_TMPDIR/i.html" ]
}

@test "each figure says how sure it is; one whose repeats disagree is measured again and flagged unsteady" {
	run -0 --separate-stderr sbx run --json "$SN/add-chain.s" "$SN/imul-chain.s"
	local line u st x
	for i in 0 1; do
		line=${lines[$i]}
		u=$(grep -o '"uncertainty":[-0-9.e+]*' <<< "$line" | cut -d: -f2)
		st=$(grep -o '"unsteady":[a-z]*' <<< "$line" | cut -d: -f2)
		# at least the TSC's read-out; flagged exactly when above 1%
		awk -v u="$u" 'BEGIN { exit !(u >= 0.002) }'
		if awk -v u="$u" 'BEGIN { exit !(u > 0.01) }'; then assert_equal "$st" true; else assert_equal "$st" false; fi
		# the multiplies checked the adds: a whole number of cycles each, within 1.5 times
		# the uncertainty (tests/unit/test-figure.c has attempts where they disagree)
		if [[ $line == *'"counter":"tsc-cycles"'* ]]; then
			x=$(grep -o '"tsc_cross_check":[-0-9.e+]*' <<< "$line" | cut -d: -f2)
			[ -n "$x" ]
			awk -v x="$x" -v u="$u" 'BEGIN { a = x < 0 ? -x : x; exit !(1.5 * a / (1 + x) <= u + 1e-9) }'
		fi
	done
	# a snippet that grows slower as it runs (a loop of (copies run so far) / 4096 trips,
	# counted in its scratch memory, which each attempt's child starts at 0): later
	# repeats take longer than earlier ones, in every attempt; it is flagged
	local noisy=$'incq (%rdi)\nmovq (%rdi), %rcx\nshrq $12, %rcx\nincq %rcx\n1: decq %rcx\njnz 1b'
	run -0 --separate-stderr sbx run --json --min-instructions 6 --asm "$noisy"
	assert_output --partial '"unsteady":true'
	assert_output --partial '"retries":2'
	u=$(grep -o '"uncertainty":[-0-9.e+]*' <<< "$output" | cut -d: -f2)
	awk -v u="$u" 'BEGIN { exit !(u > 0.01) }'
	run -0 --separate-stderr sbx run --min-instructions 6 --asm "$noisy"
	assert_line --index 1 --regexp ', \+-[0-9.]+%: unsteady$'
	# the table and the YAML's info say it for every figure
	run -0 --separate-stderr sbx run "$SN/add-chain.s"
	assert_line --index 1 --regexp '^.*add-chain.s +latency +[0-9.]+ +[0-9.]+ +tsc-cycles \([0-9.]+ TSC ticks/cycle\), \+-[0-9.]+%(: unsteady)?$|cycles \(cycles\), \+-'
	run -0 --separate-stderr sbx run --format yaml "$SN/add-chain.s"
	assert_line --regexp "^info: +'.*; uncertainty \+-[0-9.]+%(: unsteady)?.*'$"
}
