#!/usr/bin/env bats
# sbx record, with Linux perf as the judge: what sbx record writes,
# perf report and perf script must read without a warning, and find the
# function where the workload spends its time.

load test_helper

setup_file() {
	W=$BATS_FILE_TMPDIR
	# two hot functions, the second one a quarter of the first: each
	# iteration is a multiply that depends on the last one (3 cycles on any
	# x86-64 core, whatever the alignment), so `hot N` runs about 1.9*N cycles
	cat > "$W/hot.c" <<-'EOF'
	#include <stdlib.h>
	#define CHAIN(n) do { unsigned long x = 3; \
		for (long i = 0; i < (n); i++) __asm__ volatile("imul %0, %0" : "+r"(x)); } while (0)
	__attribute__((noinline)) void hot_alpha(long n) { CHAIN(n); }
	__attribute__((noinline)) void hot_beta(long n) { CHAIN(n); }
	int main(int argc, char **argv)
	{
		long n = argc > 1 ? atol(argv[1]) : 100000000;
		hot_alpha(n / 2);
		hot_beta(n / 8);
		return argc > 2 ? atoi(argv[2]) : 0;
	}
	EOF
	# the same PIE binary as three processes at once, each in its own function
	cat > "$W/forker.c" <<-'EOF'
	#include <stdio.h>
	#include <stdlib.h>
	#include <sys/wait.h>
	#include <unistd.h>
	volatile unsigned long sink;
	__attribute__((noinline)) void spin_one(long n) { for (long i = 0; i < n; i++) sink += i; }
	__attribute__((noinline)) void spin_two(long n) { for (long i = 0; i < n; i++) sink ^= i; }
	__attribute__((noinline)) void spin_three(long n) { for (long i = 0; i < n; i++) sink -= i; }
	static void (*const fn[3])(long) = { spin_one, spin_two, spin_three };
	/* forker [N [exec [I]]]: three children run spin_one/two/three; with
	 * "exec", each child execs the binary again to run its function */
	int main(int argc, char **argv)
	{
		long n = argc > 1 ? atol(argv[1]) : 60000000;
		if (argc > 3) {
			fn[atoi(argv[3]) % 3](n);
			return 0;
		}
		for (int i = 0; i < 3; i++)
			if (fork() == 0) {
				if (argc > 2) {
					char idx[2] = { (char)('0' + i), 0 }, self[4096] = "";
					readlink("/proc/self/exe", self, sizeof(self) - 1);
					execl(self, "forker", argv[1], "exec", idx, (char *)0);
					_exit(127);
				}
				fn[i](n);
				_exit(0);
			}
		while (wait(NULL) > 0)
			;
		return 0;
	}
	EOF
	# a tiny JIT: a counting loop in anonymous memory, described in a jitdump
	# (perf's format) whose CLOCK_MONOTONIC timestamps perf inject lines up
	cat > "$W/jit.c" <<-'EOF'
	#include <fcntl.h>
	#include <stdint.h>
	#include <stdio.h>
	#include <stdlib.h>
	#include <string.h>
	#include <sys/mman.h>
	#include <sys/syscall.h>
	#include <time.h>
	#include <unistd.h>
	static uint64_t now(void)
	{
		struct timespec t;
		clock_gettime(CLOCK_MONOTONIC, &t);
		return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
	}
	/* jit DIR [MILLIONS]: writes DIR/jit-PID.dump, runs the jitted loop */
	int main(int argc, char **argv)
	{
		/* mov rcx, rdi; 1: dec rcx; jnz 1b; ret */
		static const unsigned char code[] = { 0x48, 0x89, 0xf9, 0x48, 0xff, 0xc9, 0x75, 0xfb, 0xc3 };
		static const char name[] = "jitted_hot_loop";
		struct {
			uint32_t magic, version, total_size, elf_mach, pad1, pid;
			uint64_t timestamp, flags;
		} h = { 0x4A695444, 1, 40, 62, 0, (uint32_t)getpid(), now(), 0 };
		struct __attribute__((packed)) {
			uint32_t id, total_size;
			uint64_t timestamp;
			uint32_t pid, tid;
			uint64_t vma, code_addr, code_size, code_index;
		} load;
		char path[4096];
		long n = argc > 2 ? atol(argv[2]) : 200;
		unsigned char *mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
					  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		int fd;
		if (mem == MAP_FAILED)
			return 1;
		memcpy(mem, code, sizeof(code));
		mprotect(mem, 4096, PROT_READ | PROT_EXEC);
		snprintf(path, sizeof(path), "%s/jit-%d.dump", argv[1], (int)getpid());
		fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0644);
		if (fd < 0 || write(fd, &h, sizeof(h)) != sizeof(h))
			return 1;
		/* the marker: an executable mapping of the dump that the recording sees */
		if (mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) == MAP_FAILED)
			return 1;
		load.id = 0;
		load.total_size = sizeof(load) + sizeof(name) + sizeof(code);
		load.timestamp = now();
		load.pid = (uint32_t)getpid();
		load.tid = (uint32_t)syscall(SYS_gettid);
		load.vma = load.code_addr = (uint64_t)(uintptr_t)mem;
		load.code_size = sizeof(code);
		load.code_index = 0;
		if (write(fd, &load, sizeof(load)) != sizeof(load) ||
		    write(fd, name, sizeof(name)) != sizeof(name) ||
		    write(fd, code, sizeof(code)) != sizeof(code))
			return 1;
		close(fd);
		for (int i = 0; i < 10; i++)
			((void (*)(long))(uintptr_t)mem)(n * 100000);
		return 0;
	}
	EOF
	for w in hot forker jit; do
		cc -O1 -g -fno-inline -fno-omit-frame-pointer -fPIE -pie -o "$W/$w" "$W/$w.c"
	done
}

setup() {
	require_perf_events
	command -v perf >/dev/null || skip "perf is not installed"
	W=$BATS_FILE_TMPDIR
	cd "$BATS_TEST_TMPDIR"
}

# perf report --stdio, asserting that perf had nothing to warn about
perf_report() {
	run -0 --separate-stderr perf report --stdio "$@"
	[ -z "$stderr" ] || { echo "perf report warned: $stderr"; return 1; }
}

perf_script() {
	run -0 --separate-stderr perf script "$@"
	[ -z "$stderr" ] || { echo "perf script warned: $stderr"; return 1; }
}

# The first non-comment line of perf report: the top entry.
top_entry() {
	printf '%s\n' "${lines[@]}" | grep -v '^#' | grep -v '^$' | head -n 1
}

@test "perf report and perf script read what sbx record wrote and find the hot function" {
	run -0 --separate-stderr sbx record -o out.data -- "$W/hot" 400000000
	[ -f out.data ]
	perf_report -i out.data
	assert_regex "$(top_entry)" 'hot +hot +\[\.\] hot_alpha$'
	assert_line --regexp '\[\.\] hot_beta$'
	perf_script -i out.data
	local alpha beta
	alpha=$(printf '%s\n' "${lines[@]}" | grep -c ' hot_alpha+0x')
	beta=$(printf '%s\n' "${lines[@]}" | grep -c ' hot_beta+0x')
	# about 680 and 170 samples here (4:1): each bound leaves a margin of 6 or more
	[ "$alpha" -gt 100 ] && [ "$beta" -gt 25 ] && [ "$alpha" -gt $((2 * beta)) ]
}

@test "without a hardware PMU the default event falls back to cpu-clock with a one-line notice" {
	run -0 --separate-stderr sbx record -o out.data -- "$W/hot" 1000000
	run -0 perf report --header-only -i out.data
	if perf stat -e cycles -x, true 2>&1 | grep -q 'not supported'; then
		assert_line --regexp '^# event : name = cpu-clock, '
		run -0 --separate-stderr sbx record -o out.data -- "$W/hot" 1000000
		assert_equal "${stderr_lines[0]}" \
			"sbx record: no hardware PMU here: sampling cpu-clock instead of cycles"
		# -q: not a word
		run -0 --separate-stderr sbx record -q -o out.data -- "$W/hot" 1000000
		[ -z "$stderr" ]
	else
		assert_line --regexp '^# event : name = cycles, '
	fi
}

@test "the file replaced is kept as FILE.old, as perf record keeps perf.data.old" {
	run -0 --separate-stderr sbx record -e cpu-clock -o out.data -- "$W/hot" 1000000
	cp out.data first.data
	run -0 --separate-stderr sbx record -e cpu-clock -o out.data -- "$W/hot" 1000000
	assert_equal "${stderr_lines[0]}" "sbx record: the previous out.data is now out.data.old"
	cmp first.data out.data.old
	! cmp -s out.data out.data.old
	perf_report -i out.data.old
	# a third: the older .old goes, quietly with -q
	cp out.data second.data
	run -0 --separate-stderr sbx record -q -e cpu-clock -o out.data -- "$W/hot" 1000000
	[ -z "$stderr" ]
	cmp second.data out.data.old
	# an empty file is not kept; a failed recording keeps the file in place
	: > empty.data
	run -0 --separate-stderr sbx record -q -e cpu-clock -o empty.data -- "$W/hot" 1000
	[ ! -e empty.data.old ]
	run -127 --separate-stderr sbx record -q -e cpu-clock -o out.data -- ./no-such-command
	cmp second.data out.data.old
	# pipe mode has no file to keep
	sbx record -q -e cpu-clock -o - -- "$W/hot" 1000 > pipe.data
	[ ! -e pipe.data.old ] && [ ! -e -.old ]
}

@test "the closing summary line counts samples and names the file" {
	run -0 --separate-stderr sbx record -e cpu-clock -o out.data -- "$W/hot" 20000000
	assert_regex "${stderr_lines[-1]}" \
		'^\[ sbx record: [0-9]+ samples, 0 lost, [0-9]+\.[0-9]{3} MB written to out\.data \]$'
	local n
	n=$(sed -E 's/^\[ sbx record: ([0-9]+) samples.*/\1/' <<< "${stderr_lines[-1]}")
	run -0 perf script -i out.data
	assert_equal "${#lines[@]}" "$n"
	run -0 --separate-stderr sbx record -q -e cpu-clock -o out.data -- "$W/hot" 1000000
	[ -z "$stderr" ]
}

@test "the header has the features perf report --header shows" {
	run -0 --separate-stderr sbx record -e cpu-clock -o out.data -- "$W/hot" 20000000
	run -0 --separate-stderr perf report --header-only -i out.data
	[ -z "$stderr" ]
	assert_line "# hostname : $(uname -n)"
	assert_line "# os release : $(uname -r)"
	assert_line "# arch : $(uname -m)"
	assert_line "# nrcpus online : $(getconf _NPROCESSORS_ONLN)"
	assert_line --regexp '^# cpudesc : .+'
	assert_line --regexp '^# total memory : [0-9]+ kB$'
	assert_line --regexp "^# cmdline : .*sbx record -e cpu-clock -o out.data -- $W/hot 20000000 *\$"
	assert_line --regexp '^# event : name = cpu-clock, .*sample_type = IP\|TID\|TIME\|CPU\|PERIOD,.*use_clockid = 1'
	assert_line --regexp '^# clockid: monotonic \(1\)$'
	assert_line --regexp '^# time of first sample : [0-9]+\.[0-9]+$'
	# the build-ids of the DSOs that got samples, as the files say
	local id
	id=$(readelf -n "$W/hot" | sed -n 's/.*Build ID: //p')
	run -0 perf buildid-list -i out.data
	assert_line "$id $W/hot"
}

@test "-k picks the clock; an unknown clock is a usage error" {
	run -0 --separate-stderr sbx record -k realtime -e cpu-clock -o out.data -- "$W/hot" 1000000
	run -0 perf report --header-only -i out.data
	assert_line --regexp '^# clockid: realtime \(0\)$'
	run -2 --separate-stderr sbx record -k lunar -o out.data -- true
	assert_regex "$stderr" "unknown clock 'lunar'"
}

@test "sbx record exits with the command's status, 128+N on signal N" {
	run -3 --separate-stderr sbx record -q -e cpu-clock -o out.data -- "$W/hot" 1000000 3
	perf_report -i out.data
	run -139 --separate-stderr sbx record -q -e cpu-clock -o out.data -- sh -c 'kill -SEGV $$'
	perf_report -i out.data
}

@test "a command that cannot run: a clear error, 127 or 126, and no file" {
	run -127 --separate-stderr sbx record -e cpu-clock -o out.data -- ./no-such-command
	assert_equal "${stderr_lines[-1]}" \
		"sbx record: error: cannot run './no-such-command': No such file or directory"
	[ ! -e out.data ]
	touch not-exec
	run -126 --separate-stderr sbx record -e cpu-clock -o out.data -- ./not-exec
	assert_regex "$stderr" "cannot run './not-exec': Permission denied"
	[ ! -e out.data ]
	# no temporary file left behind either
	run -0 ls -A
	refute_output --partial data
}

@test "SIGINT stops the recording cleanly: the command gets it, the file is complete" {
	"$SBX" record -e cpu-clock -o out.data -- "$W/hot" 100000000000 2> err &
	local pid=$!
	sleep 1
	kill -INT "$pid"
	local rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 130 ]
	run cat err
	assert_regex "${lines[-1]}" '^\[ sbx record: [1-9][0-9]* samples, 0 lost, '
	perf_report -i out.data
	assert_regex "$(top_entry)" '\[\.\] hot_alpha$'
	run -0 ls -A
	refute_output --regexp '\.out\.data\.'
	assert_output --partial out.data
}

@test "lost samples are counted, written as LOST records and reported" {
	# a one-page ring buffer cannot keep up with a tracepoint hit a million times
	run -0 --separate-stderr sbx record -m 1 -e raw_syscalls:sys_enter -o out.data -- \
		"$WORKLOADS/sysloop" 100000
	local summary=${stderr_lines[-1]} samples lost
	samples=$(sed -E 's/^\[ sbx record: ([0-9]+) samples, ([0-9]+) lost.*/\1/' <<< "$summary")
	lost=$(sed -E 's/^\[ sbx record: ([0-9]+) samples, ([0-9]+) lost.*/\2/' <<< "$summary")
	# a page holds about 40 samples, and nothing drains it every 40 system
	# calls: many thousands are lost on any machine, loaded or not
	[ "$lost" -gt 0 ]
	assert_regex "$stderr" "warning: $lost samples lost: the ring buffers overflowed"
	# nothing vanished: every system call is a sample or a lost one
	[ $((samples + lost)) -ge 100000 ]
	# in the file: LOST records, and one LOST_SAMPLES record for the samples
	# dropped so late that the kernel wrote no LOST record for them
	run -0 perf script --show-lost-events -i out.data
	local sum late
	sum=$(printf '%s\n' "${lines[@]}" | sed -n 's/.*PERF_RECORD_LOST lost \([0-9]*\).*/\1/p' |
		awk '{ s += $1 } END { print s + 0 }')
	[ "$sum" -gt 0 ]
	run -0 perf report --stdio -i out.data
	late=$(printf '%s\n' "${lines[@]}" | sed -n 's/^# Total Lost Samples: \([0-9]*\)$/\1/p')
	assert_equal "$((sum + late))" "$lost"
}

@test "-c sets the period, -F the frequency" {
	run -0 --separate-stderr sbx record -e cpu-clock -c 100000 -o out.data -- "$W/hot" 10000000
	perf_script -F period -i out.data
	assert_equal "$(printf '%s\n' "${lines[@]}" | sort -u | tr -d ' ')" 100000
	run -0 --separate-stderr sbx record -e cpu-clock -F 999 -o out.data -- "$W/hot" 1000000
	run -0 perf report --header-only -i out.data
	assert_line --regexp '\{ sample_period, sample_freq \} = 999,.* freq = 1'
	run -2 --separate-stderr sbx record -F 10 -c 10 -o out.data -- true
	assert_equal "${stderr_lines[0]}" "sbx record: error: -F and -c exclude each other"
	run -2 --separate-stderr sbx record -F ten -o out.data -- true
	assert_equal "${stderr_lines[0]}" "sbx record: error: invalid frequency 'ten'"
}

@test "-g records call chains that perf unwinds to main" {
	run -0 --separate-stderr sbx record -g -e cpu-clock -o out.data -- "$W/hot" 50000000
	run -0 perf report --header-only -i out.data
	assert_line --regexp 'sample_type = IP\|TID\|TIME\|CALLCHAIN\|CPU\|PERIOD'
	perf_script -F ip,sym -i out.data
	# a sample in hot_alpha, then its caller's frames
	assert_line --regexp '^[[:space:]]+[0-9a-f]+ hot_alpha$'
	assert_line --regexp '^[[:space:]]+[0-9a-f]+ (main|__libc_start_call_main)$'
}

# "CHAIN\tPERCENT" of report -g folded,0,callee (perf's or sbx's), the frames named
# as perf names them, with the functions inlined at unwound frames; each chain cut
# after main (perf's libunwind gives up early in libc's start code now and then)
unwound_chains() {	# $1 perf|sbx, $2 file
	if [ "$1" = perf ]; then
		perf report --stdio --no-children -s sym -g folded,0,callee -i "$2" 2>/dev/null
	else
		"$SBX" report --no-children -s sym -g folded,0,callee -i "$2"
	fi | python3 -c '
import sys
chains = {}
for line in sys.stdin:
    pct, _, chain = line.strip().partition(" ")
    if not pct.endswith("%") or ";" not in chain:
        continue
    frames = chain.split(";")
    if "main" in frames:
        frames = frames[:frames.index("main") + 1]
    key = ";".join(frames)
    chains[key] = chains.get(key, 0) + float(pct[:-1])
for k, v in sorted(chains.items()):
    print("%s\t%.2f" % (k, v))'
}

@test "--call-graph dwarf: user stacks that perf unwinds, and sbx report unwinds as perf" {
	# a program without frame pointers: only the stack copy and its CFI know the callers
	cc -O2 -g -fomit-frame-pointer -o nofp "$TOP/tests/data/unwind/nofp.c"
	run -0 --separate-stderr sbx record --call-graph dwarf -e cpu-clock -F 499 -o dw.data -- \
		./nofp 400
	run -0 perf report --header-only -i dw.data
	assert_line --regexp 'sample_type = IP\|TID\|TIME\|CALLCHAIN\|CPU\|PERIOD\|REGS_USER\|STACK_USER'
	assert_line --regexp 'sample_regs_user = 0xff0fff, sample_stack_user = 8192'
	# both unwind every sample to the same frames, up to main
	unwound_chains perf dw.data > perf.chains
	unwound_chains sbx dw.data > sbx.chains
	diff perf.chains sbx.chains
	grep -Eq '^sum_squares \(inlined\);leaf;mid_b;(top;)?main	' sbx.chains
	grep -Eq '^sum_squares \(inlined\);leaf;mid_a;(top;)?main	' sbx.chains
	# and a file perf recorded so
	perf record -q --call-graph dwarf -e cpu-clock -F 499 -o pdw.data -- ./nofp 400 \
		>/dev/null 2>&1
	unwound_chains perf pdw.data > perf.chains
	unwound_chains sbx pdw.data > sbx.chains
	diff perf.chains sbx.chains
	grep -Eq '^sum_squares \(inlined\);leaf;mid_b;(top;)?main	' sbx.chains
	# the program's rows of --children, its inlined function too, as perf's
	for f in dw.data pdw.data; do
		perf report --stdio --children -g none -s comm,dso,sym -i $f 2>/dev/null |
			awk '$4 == "nofp"' | sort > perf.rows
		run -0 --separate-stderr sbx report --children -s comm,dso,sym -i $f
		awk '$4 == "nofp"' <<< "$output" | sort > sbx.rows
		diff perf.rows sbx.rows
		grep -q 'sum_squares (inlined)$' sbx.rows
	done
	# perf script's lines, the unwound frames and inlined functions included
	perf script -i dw.data 2>/dev/null > perf.script
	run -0 --separate-stderr sbx script -i dw.data
	assert_equal "$output" "$(cat perf.script)"
	grep -q 'sum_squares+0x[0-9a-f]* (inlined)$' perf.script
	# --no-inline: the frames as unwound, no inlined function, as perf's
	perf report --stdio --no-inline --no-children -s sym -g folded,0,callee -i dw.data \
		2>/dev/null | grep ';' > perf.folded
	run -0 --separate-stderr sbx report --no-inline --no-children -s sym -g folded,0,callee \
		-i dw.data
	grep ';' <<< "$output" | diff perf.folded -
	! grep -q inlined perf.folded
	perf script --no-inline -i dw.data 2>/dev/null > perf.script
	run -0 --separate-stderr sbx script --no-inline -i dw.data
	assert_equal "$output" "$(cat perf.script)"
	# the option's values
	run -2 --separate-stderr sbx record --call-graph lbr -o x.data -- true
	assert_equal "${stderr_lines[0]}" "sbx record: error: --call-graph: 'lbr' is neither fp nor dwarf[,SIZE]"
	run -2 --separate-stderr sbx record --call-graph dwarf,100 -o x.data -- true
	assert_equal "${stderr_lines[0]}" "sbx record: error: --call-graph dwarf: the stack size is a multiple of 8 from 8 to 65528 bytes, not '100'"
	[ ! -e x.data ]
}

@test "-z: zstd COMPRESSED records that perf reads, file and pipe mode, whatever the level" {
	# dwarf stacks: samples of 8 KiB, so many records straddle COMPRESSED ones
	cc -O2 -g -fomit-frame-pointer -o nofp "$TOP/tests/data/unwind/nofp.c"
	run -0 --separate-stderr sbx record -z --call-graph dwarf -e cpu-clock -F 499 -o z.data -- \
		./nofp 400
	run -0 perf report --header-only -i z.data
	assert_line --regexp '^# compressed : Zstd, level = 1, ratio = [0-9]+$'
	run -0 perf report --stats -i z.data
	assert_line --regexp '^ +COMPRESSED events: +[0-9]+'
	samples=$(perf report --stats -i z.data 2>/dev/null | awk '/SAMPLE events/ { print $3; exit }')
	[ "$samples" -gt 50 ]
	# smaller than the same records uncompressed, and the same answers
	[ "$(stat -c %s z.data)" -lt $((samples * 8192 / 4)) ]
	perf script -i z.data 2>/dev/null > perf.script
	run -0 --separate-stderr sbx script -i z.data
	assert_equal "$output" "$(cat perf.script)"
	run -0 --separate-stderr sbx report --stats -i z.data
	assert_line --regexp "^ +SAMPLE events: +$samples\$"
	# pipe mode, level 19, into perf
	sbx record -q -z19 -e cpu-clock -o - -- "$W/hot" 20000000 > z.pipe
	run -0 perf report --stdio --no-children -i - < z.pipe
	assert_line --regexp '^ +[0-9.]+% +hot +hot +\[\.\] hot_alpha$'
	run -0 perf report --header-only -i - < z.pipe
	assert_line --regexp '^# compressed : Zstd, level = 19, ratio = 0$'
	# -z takes its level attached only: the command is not a level
	run -2 --separate-stderr sbx record -z23 -o x.data -- true
	assert_equal "${stderr_lines[0]}" "sbx record: error: -z: zstd's levels are 1 to 22, not '23'"
	run -0 --separate-stderr sbx record -q -z -o x.data -- true
	[ -s x.data ]
}

@test "-C: only the CPUs listed, every process on them, as perf record -C" {
	[ "$(nproc)" -ge 2 ] || skip_hw "one CPU: nothing to leave out"
	# two busy processes, one per CPU: only CPU 1's samples are recorded
	run -0 --separate-stderr sbx record -C 1 -e cpu-clock -F 499 -o c.data -- \
		sh -c "taskset -c 0 '$W/hot' 200000000 & taskset -c 1 '$W/hot' 200000000; wait"
	run -0 perf script -F cpu -i c.data
	[ "${#lines[@]}" -gt 20 ]
	[ -z "$(printf '%s\n' "${lines[@]}" | tr -d ' ' | grep -vx '\[001\]')" ]
	# sbx report -C 0 finds none of them
	run -0 --separate-stderr sbx report -C 0 -i c.data
	assert_output "# no samples match the filters"
	# a CPU that is not there, and -p
	run -1 --separate-stderr sbx record -q -C 4095 -o x.data -- true
	assert_equal "$stderr" "sbx record: error: -C: CPU 4095 is not online"
	[ ! -e x.data ]
	run -2 --separate-stderr sbx record -C 0 -p 1 -o x.data
	assert_equal "${stderr_lines[0]}" "sbx record: error: -p and -C exclude each other"
}

@test "several events at once: perf tells them apart by id" {
	run -0 --separate-stderr sbx record -e cpu-clock,task-clock -o out.data -- "$W/hot" 20000000
	perf_report -i out.data
	assert_line --regexp "^# Samples: [0-9]+ +of event 'cpu-clock'$"
	assert_line --regexp "^# Samples: [0-9]+ +of event 'task-clock'$"
}

@test "an unknown event is a usage error with close names" {
	run -2 --separate-stderr sbx record -e cpu-clok -o out.data -- true
	assert_regex "$stderr" "cpu-clok"
	assert_regex "$stderr" "cpu-clock"
	[ ! -e out.data ]
}

@test "-b where the PMU has no branch stack: a clear error, no file" {
	if perf record -b -o /dev/null true 2>/dev/null; then
		skip_hw "this machine has a branch stack"
	fi
	run -1 --separate-stderr sbx record -b -o out.data -- "$W/hot" 1000
	assert_regex "$stderr" "no branch stack"
	[ ! -e out.data ]
}

@test "no permission: the error names perf_event_paranoid" {
	[ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 1 ] ||
		skip "perf_event_paranoid allows system-wide recording to every user"
	command -v setpriv >/dev/null || skip "setpriv is not installed"
	run -1 --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$SBX" record -a -e cpu-clock -o /tmp/sbx-never.data -- true
	assert_regex "$stderr" "no permission .*perf_event_paranoid is [0-9]"
	[ ! -e /tmp/sbx-never.data ]
}

@test "-p records a running process, named and mapped from /proc" {
	"$W/hot" 100000000000 &
	local pid=$!
	sleep 0.3
	run -0 --separate-stderr timeout --preserve-status -s INT 1 "$SBX" record -e cpu-clock \
		-p "$pid" -o out.data
	kill "$pid"
	assert_regex "${stderr_lines[-1]}" '^\[ sbx record: [1-9][0-9]* samples'
	perf_report --sort pid,sym -i out.data
	assert_regex "$(top_entry)" " +$pid:hot +\[\.\] hot_alpha\$"
}

@test "-p PID,PID and -p again: several processes, until the last one ends" {
	# two processes (seconds long: sbx may start slowly on a busy machine); the
	# recording ends with the later one
	"$WORKLOADS/noploop" 3000 > /dev/null &
	local a=$!
	"$WORKLOADS/noploop" 4000 > /dev/null &
	local b=$!
	sleep 0.2
	run -0 --separate-stderr timeout -s INT 60 "$SBX" record -e cpu-clock -p "$a,$b" -o out.data
	! kill -0 "$a" 2>/dev/null && ! kill -0 "$b" 2>/dev/null
	perf_report --sort pid -i out.data
	assert_line --regexp "^ +[0-9.]+% +$a:noploop\$"
	assert_line --regexp "^ +[0-9.]+% +$b:noploop\$"
	# the same with -p twice
	"$WORKLOADS/noploop" 3000 > /dev/null &
	a=$!
	"$WORKLOADS/noploop" 3000 > /dev/null &
	b=$!
	sleep 0.2
	run -0 --separate-stderr timeout -s INT 60 "$SBX" record -e cpu-clock -p "$a" -p "$b" -o two.data
	perf_report --sort pid -i two.data
	assert_line --regexp "^ +[0-9.]+% +$a:noploop\$"
	assert_line --regexp "^ +[0-9.]+% +$b:noploop\$"
	# one pid that is not there fails the whole
	run -1 --separate-stderr sbx record -e cpu-clock -p "$$,999999999" -o x.data
	assert_regex "$stderr" "no process 999999999"
	[ ! -e x.data ]
}

@test "-p of a process that does not exist" {
	run -1 --separate-stderr sbx record -e cpu-clock -p 999999999 -o out.data
	assert_regex "$stderr" "no process 999999999"
	[ ! -e out.data ]
}

@test "-a records every process, the workload among them" {
	run -0 --separate-stderr sbx record -a -e cpu-clock -o out.data -- "$W/hot" 50000000
	perf_report --sort comm,sym -i out.data
	assert_line --regexp ' hot +\[\.\] hot_alpha$'
	perf_script -F pid,comm -i out.data
	# processes that existed before the recording keep their names
	local named
	named=$(printf '%s\n' "${lines[@]}" | grep -vc ':[0-9]*$' || true)
	[ "$named" -eq "${#lines[@]}" ]
}

@test "concurrent processes of one PIE binary: each sample in its own process's function" {
	run -0 --separate-stderr sbx record -e cpu-clock -o out.data -- "$W/forker"
	perf_report --sort pid,sym -i out.data
	local pids
	pids=$(printf '%s\n' "${lines[@]}" | grep -oE ' [0-9]+:forker +\[\.\] spin_[a-z]+$' |
		awk '{ print $1 }' | sort -u | wc -l)
	[ "$pids" -eq 3 ]
	# each child has one spin function and nothing of the others
	local f
	for f in spin_one spin_two spin_three; do
		[ "$(printf '%s\n' "${lines[@]}" | grep -E "\[\.\] $f\$" | awk '{ print $2 }' |
			sort -u | wc -l)" -eq 1 ]
	done
	# the same with an exec in each child: fresh address spaces, new maps
	run -0 --separate-stderr sbx record -e cpu-clock -o out2.data -- "$W/forker" 60000000 exec
	perf_report --sort pid,sym -i out2.data
	for f in spin_one spin_two spin_three; do
		assert_line --regexp " [0-9]+:forker +\[\.\] $f\$"
	done
	run -0 perf report --stdio --sort sym -i out2.data
	refute_line --regexp '\[unknown\]|0x0000'
}

@test "pipe mode: -o - writes a stream perf reads from a pipe and from a file" {
	run -0 bash -c "set -o pipefail; '$SBX' record -q -e cpu-clock -o - -- '$W/hot' 400000000 | perf script -i - > script.out 2> script.err"
	[ ! -s script.err ]
	run -0 grep -c ' hot_alpha+0x' script.out
	# about 680 here: 50 leaves a wide margin
	[ "$output" -gt 50 ]
	sbx record -e cpu-clock -o - -- "$W/hot" 400000000 > stream.data 2> err
	[ "$(head -c 8 stream.data)" = PERFILE2 ]
	# about 800 samples of 40 bytes and more: 1000 bytes leaves a wide margin
	[ "$(stat -c %s stream.data)" -gt 1000 ]
	perf_report -i stream.data
	assert_regex "$(top_entry)" '\[\.\] hot_alpha$'
	run -0 --separate-stderr perf report --header-only -i stream.data
	assert_line "# hostname : $(uname -n)"
	run cat err
	assert_regex "${lines[-1]}" 'MB written to stdout \]$'
}

@test "pipe mode: the command's own stdout does not mix into the stream" {
	sbx record -q -e cpu-clock -o - -- sh -c 'echo hello from the command; exec "$0" 1000000' \
		"$W/hot" > stream.data 2> err
	run cat err
	assert_line 'hello from the command'
	perf_report -i stream.data
}

@test "-o - to a terminal is refused" {
	command -v script >/dev/null || skip "script(1) is not installed"
	run script -qec "'$SBX' record -e cpu-clock -o - -- true" /dev/null
	assert_regex "$output" "stdout is a terminal"
}

@test "tracepoints: perf script and sbx script decode the same fields from the tracing data" {
	[ -d /sys/kernel/tracing/events/sched ] || [ -d /sys/kernel/debug/tracing/events/sched ] ||
		skip "tracefs is not mounted"
	run -0 --separate-stderr sbx record -e sched:sched_switch -o out.data -- \
		sh -c 'sleep 0.01; sleep 0.01; sleep 0.01'
	perf_script -i out.data
	assert_line --regexp 'sched:sched_switch: prev_comm=sleep prev_pid=[0-9]+ prev_prio=[0-9]+ prev_state=[A-Z+]+ ==> next_comm=.* next_pid=[0-9]+'
	# sbx script decodes the same values from the same tracing data
	local perf_fields
	perf_fields=$(printf '%s\n' "${lines[@]}" | sed 's/.*sched:sched_switch: //')
	run -0 --separate-stderr sbx script -i out.data
	assert_equal "$(printf '%s\n' "${lines[@]}" | sed 's/.*sched:sched_switch: //')" "$perf_fields"
	# in pipe mode the tracing data travels in the stream
	sbx record -q -e sched:sched_switch -o - -- sh -c 'sleep 0.01; sleep 0.01' > stream.data
	perf_script -i stream.data
	assert_line --regexp 'sched:sched_switch: prev_comm=.* ==> next_comm='
	perf_fields=$(printf '%s\n' "${lines[@]}" | sed 's/.*sched:sched_switch: //')
	run -0 --separate-stderr sbx script -i - < stream.data
	assert_equal "$(printf '%s\n' "${lines[@]}" | sed 's/.*sched:sched_switch: //')" "$perf_fields"
}

@test "bad usage: nothing to record, -p with a command, a bad -m" {
	run -2 --separate-stderr sbx record
	assert_equal "${stderr_lines[0]}" "sbx record: error: nothing to record: give a command, -p PID or -a"
	run -2 --separate-stderr sbx record -p 1 -- true
	assert_regex "${stderr_lines[0]}" "give no command"
	run -2 --separate-stderr sbx record -m 3 -- true
	assert_regex "${stderr_lines[0]}" "power of 2"
}

@test "pipe mode into sbx report: sbx record -o - -- W | sbx report -i -" {
	run -0 bash -c "set -o pipefail; '$SBX' record -q -e cpu-clock -o - -- '$W/hot' 400000000 | '$SBX' report -i - > report.out"
	run -0 grep -v '^#' report.out
	assert_regex "${lines[0]}" '% +hot +hot +\[\.\] hot_alpha$'
	assert_line --regexp '% +hot +hot +\[\.\] hot_beta$'
	# the two hot functions hold nearly every sample
	local sum
	sum=$(printf '%s\n' "${lines[@]}" | grep -E '\] hot_(alpha|beta)$' |
		awk '{ s += $1 } END { printf "%.0f", s }')
	[ "$sum" -ge 80 ]
}

@test "the shared noploop workload: hot_a holds about twice the samples of hot_b" {
	[ -x "$WORKLOADS/noploop" ] || { echo "tests/workloads/noploop is not built (make workloads)"; return 1; }
	# noploop 400: about 0.35 s, 1,400 samples at 4 kHz, so the ratio is not noise
	run -0 --separate-stderr sbx record -e cpu-clock -o out.data -- "$WORKLOADS/noploop" 400
	perf_report --sort sym -i out.data
	local a b
	a=$(printf '%s\n' "${lines[@]}" | sed -n 's/^ *\([0-9.]*\)% .*\] hot_a$/\1/p')
	b=$(printf '%s\n' "${lines[@]}" | sed -n 's/^ *\([0-9.]*\)% .*\] hot_b$/\1/p')
	[ -n "$a" ] && [ -n "$b" ]
	# 2:1 by construction; allow the noise of a short profile
	awk -v a="$a" -v b="$b" 'BEGIN { r = a / b; exit !(r > 1.5 && r < 2.7) }'
}

@test "a user who may not sample the kernel gets user space, with a notice" {
	[ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 2 ] ||
		skip "perf_event_paranoid lets every user sample the kernel"
	command -v setpriv >/dev/null || skip "setpriv is not installed"
	# a folder the other user can reach (the bats folders are private)
	local d
	d=$(mktemp -d /tmp/sbx-record-XXXXXX)
	chmod 755 "$d"
	cp "$W/hot" "$d/"
	chmod 777 "$d"
	cd "$d"
	run -0 --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$SBX" record -e cpu-clock -o out.data -- ./hot 50000000
	assert_equal "${stderr_lines[0]}" \
		"sbx record: kernel.perf_event_paranoid is $(cat /proc/sys/kernel/perf_event_paranoid): sampling user space only"
	run -0 perf report --header-only -f -i out.data
	assert_line --regexp '^# event : name = cpu-clock, .*exclude_kernel = 1'
	run -0 perf report --stdio -f -i out.data
	refute_line --partial '[k] '
	assert_line --regexp '\[\.\] hot_alpha$'
	cd "$BATS_TEST_TMPDIR"
	rm -rf "$d"
}

@test "-F above the kernel's limit names perf_event_max_sample_rate" {
	local max
	max=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
	run -1 --separate-stderr sbx record -e cpu-clock -F $((max + 1)) -o out.data -- true
	assert_equal "${stderr_lines[-1]}" \
		"sbx record: error: -F $((max + 1)) is above the kernel's limit (kernel.perf_event_max_sample_rate is $max)"
	[ ! -e out.data ]
}

@test "-a until interrupted, without a command" {
	"$SBX" record -a -e cpu-clock -o out.data 2> err &
	local pid=$! rc=0
	# no sign tells when the counters are on: give them time
	sleep 1
	"$W/hot" 200000000
	kill -INT "$pid"
	wait "$pid" || rc=$?
	[ "$rc" -eq 0 ]
	perf_report --sort comm,sym -i out.data
	assert_line --regexp ' hot +\[\.\] hot_alpha$'
}

@test "-o /dev/null and -o FIFO: written in place, in pipe mode, never renamed over" {
	run -0 --separate-stderr sbx record -e cpu-clock -o /dev/null -- "$W/hot" 1000000
	[ -c /dev/null ]
	assert_regex "${stderr_lines[-1]}" '^\[ sbx record: [0-9]+ samples, 0 lost, [0-9.]+ MB written to /dev/null \]$'
	mkfifo fifo
	perf script -i - < fifo > script.out 2> script.err &
	local reader=$! rc=0
	run -0 --separate-stderr sbx record -e cpu-clock -o fifo -- "$W/hot" 400000000
	wait "$reader" || rc=$?
	[ "$rc" -eq 0 ]
	[ -p fifo ]
	[ ! -s script.err ]
	grep -q ' hot_alpha+0x' script.out
	run -0 ls -A fifo script.err script.out
	run -0 ls -A
	refute_output --partial .sbx-tmp-
	# /dev/stdout is our stdout: the stream, and the command's output goes to stderr
	run -0 bash -c "'$SBX' record -q -e cpu-clock -o /dev/stdout -- sh -c 'echo from-the-command; exec \"\$0\" 1000000' '$W/hot' > stream.data 2> err"
	[ "$(head -c 8 stream.data)" = PERFILE2 ]
	grep -q from-the-command err
	perf_report -i stream.data
	# an output folder that does not exist: one line, no file
	run -1 --separate-stderr sbx record -e cpu-clock -o no/such/dir/out.data -- "$W/hot" 1000
	assert_regex "${stderr_lines[-1]}" "^sbx record: error: cannot create a file beside 'no/such/dir/out.data'"
}

@test "-o '' and -o FOLDER are refused before the command runs" {
	run -2 --separate-stderr sbx record -e cpu-clock -o '' -- touch ran
	assert_equal "${stderr_lines[0]}" "sbx record: error: -o: an empty file name"
	mkdir folder
	run -1 --separate-stderr sbx record -e cpu-clock -o folder -- touch ran
	assert_regex "${stderr_lines[-1]}" "'folder' is a folder"
	[ ! -e ran ]
}

# A small tmpfs of our own at $1 (root only), unmounted by teardown.
mount_small_fs() {
	mkdir -p "$1"
	mount -t tmpfs -o "size=$2" tmpfs "$1" || return 1
	echo "$1" >> "$BATS_TEST_TMPDIR/.mounts"
}

teardown() {
	if [ -f "$BATS_TEST_TMPDIR/.mounts" ]; then
		while read -r m; do umount "$m" 2>/dev/null; done < "$BATS_TEST_TMPDIR/.mounts"
		rm -f "$BATS_TEST_TMPDIR/.mounts"
	fi
}

@test "a read-only folder: one clear error before the command runs, the old file untouched" {
	if [ "$(id -u)" -eq 0 ]; then
		mount_small_fs ro 1m
		echo old > ro/out.data
		mount -o remount,ro ro
	else
		mkdir ro
		echo old > ro/out.data
		chmod 555 ro
	fi
	run -1 --separate-stderr sbx record -e cpu-clock -o ro/out.data -- touch ran
	assert_regex "${stderr_lines[-1]}" "^sbx record: error: cannot create a file beside 'ro/out.data': (Read-only file system|Permission denied)$"
	[ "$(cat ro/out.data)" = old ]
	[ ! -e ran ]
	run -0 ls -A ro
	assert_output out.data
}

@test "a full disk: a clear error, the old file untouched, no temporary file left" {
	[ "$(id -u)" -eq 0 ] || skip "mounting a small tmpfs needs root"
	mount_small_fs full 16k
	echo old > full/out.data
	# about 800 samples of 48 bytes and more: far more than the 12 KiB left
	run -1 --separate-stderr sbx record -e cpu-clock -o full/out.data -- "$W/hot" 400000000
	assert_regex "$stderr" "No space left on device"
	[ "$(cat full/out.data)" = old ]
	run -0 ls -A full
	assert_output out.data
	# the same through the named temporary file (file systems without O_TMPFILE)
	SBX_OUTPUT_NAMED=1 run -1 --separate-stderr sbx record -e cpu-clock -o full/out.data -- \
		"$W/hot" 400000000
	assert_regex "$stderr" "No space left on device"
	run -0 ls -A full
	assert_output out.data
}

@test "SIGKILL of sbx record leaves no file behind, or one that the next run removes" {
	"$SBX" record -e cpu-clock -o out.data -- "$W/hot" 100000000000 2> err &
	local pid=$!
	sleep 0.5
	kill -KILL "$pid"
	wait "$pid" || true
	run -0 ls -A
	assert_output err
	# the named fallback leaves .out.data.sbx-tmp-PID-…: the next run of that output removes it
	SBX_OUTPUT_NAMED=1 "$SBX" record -e cpu-clock -o out.data -- "$W/hot" 100000000000 2> err &
	pid=$!
	sleep 0.5
	kill -KILL "$pid"
	wait "$pid" || true
	run -0 ls -A
	assert_output --regexp "^\.out\.data\.sbx-tmp-$pid-[A-Za-z0-9]{6}"
	"$SBX" record -q -e cpu-clock -o out.data -- "$W/hot" 1000000
	run -0 ls -A
	assert_output "$(printf 'err\nout.data')"
}

@test "SIGTERM stops like SIGINT; a second signal kills a command that ignores the first" {
	"$SBX" record -e cpu-clock -o out.data -- "$W/hot" 100000000000 2> err &
	local pid=$! rc=0
	sleep 0.5
	kill -TERM "$pid"
	wait "$pid" || rc=$?
	[ "$rc" -eq $((128 + 15)) ]
	perf_report -i out.data
	assert_regex "$(top_entry)" '\[\.\] hot_alpha$'

	"$SBX" record -e cpu-clock -o out2.data -- \
		sh -c 'trap "" INT; exec "$0" 100000000000' "$W/hot" 2> err &
	pid=$! rc=0
	sleep 0.5
	kill -INT "$pid"
	sleep 0.5
	kill -0 "$pid"	# the command ignored it: still recording
	kill -INT "$pid"
	wait "$pid" || rc=$?
	[ "$rc" -eq $((128 + 9)) ]
	perf_report -i out2.data
	assert_regex "$(top_entry)" '\[\.\] hot_alpha$'
}

@test "what the command started in the background ends with sbx record (SIGTERM, and at its end)" {
	local tag=$RANDOM$RANDOM rc=0
	# SIGTERM goes to sh, which dies; the two sleeps it started would go on under init
	"$SBX" record -e cpu-clock -o out.data -- sh -c "sleep 7$tag & sleep 7$tag; wait" 2> err &
	local pid=$!
	for _ in $(seq 100); do [ "$(pgrep -fc "^sleep 7$tag")" -eq 2 ] && break; sleep 0.05; done
	[ "$(pgrep -fc "^sleep 7$tag")" -eq 2 ]
	kill -TERM "$pid"
	wait "$pid" || rc=$?
	[ "$rc" -eq $((128 + 15)) ]
	run -1 pgrep -f "^sleep 7$tag"
	# a command that exits and leaves a daemon behind: the daemon ends with the recording
	run -0 "$SBX" record -e cpu-clock -o out2.data -- sh -c "(sleep 8$tag > /dev/null 2>&1 &) ; exit 0"
	run -1 pgrep -f "^sleep 8$tag"
}

@test "SIGKILL of sbx record: what the command started ends too (its cgroup and a watchdog), the cgroup goes" {
	[ "$(id -u)" -eq 0 ] || skip "making a cgroup needs root or a delegated cgroup"
	local tag=$RANDOM$RANDOM cg
	cg=$(cgroup2_mount)
	[ -n "$cg" ] || { echo "no cgroup v2 mounted"; return 1; }
	# sh and its two sleeps; a SIGKILL of sbx reaches sh only (PR_SET_PDEATHSIG)
	"$SBX" record -q -e cpu-clock -o out.data -- \
		sh -c "sleep 7$tag & sleep 7$tag & setsid sleep 7$tag & wait" 2> err &
	local pid=$!
	for _ in $(seq 100); do [ "$(pgrep -fc "^sleep 7$tag")" -eq 3 ] && break; sleep 0.05; done
	[ "$(pgrep -fc "^sleep 7$tag")" -eq 3 ]
	# the command is in sbx-PID below sbx's own cgroup; sbx and its watchdog are not
	run -0 find "$cg" -maxdepth 6 -type d -name "sbx-$pid"
	[ "${#lines[@]}" -eq 1 ]
	local dir=${lines[0]}
	[ "$(wc -l < "$dir/cgroup.procs")" -eq 4 ]
	! grep -qx "$pid" "$dir/cgroup.procs"
	[ "$(pgrep -xc sbx-watchdog)" -ge 1 ]
	kill -KILL "$pid"
	wait "$pid" || true
	gone "^sleep 7$tag"
	for _ in $(seq 100); do [ -d "$dir" ] || break; sleep 0.05; done
	[ ! -d "$dir" ]
	# started with standard input closed: the watchdog's pipe must not be fd 0
	run -0 --separate-stderr sbx record -q -e cpu-clock -o c.data -- sh -c 'sleep 0.3; echo ran' <&-
	assert_output ran
}

@test "--max-pids and --max-memory: forks fail past N, the command is killed past SIZE and the summary says so" {
	[ "$(id -u)" -eq 0 ] || skip "making a cgroup needs root or a delegated cgroup"
	# sh and three sleeps (that outlast the loop) fill 4; the next fork fails and sh
	# gives up with 2 (the command's status is sbx record's)
	run -2 --separate-stderr sbx record -q -e cpu-clock -o p.data --max-pids 4 -- \
		sh -c 'for i in 1 2 3 4 5 6 7 8; do sleep 30 & done; wait'
	assert_equal "$stderr" "sh: 0: Cannot fork"
	# 256 MiB of string in a 32 MiB limit: the OOM killer, named
	run -137 --separate-stderr sbx record -e cpu-clock -o m.data --max-memory 32M -- \
		perl -e '$x = "a" x (256 << 20); print length $x, "\n"'
	[ -z "$output" ]
	assert_equal "${stderr_lines[-1]}" "sbx record: warning: the command was killed (SIGKILL) when it went past --max-memory"
	perf_report -i m.data
	# the same command fits in 1 GiB
	run -0 --separate-stderr sbx record -q -e cpu-clock -o m.data --max-memory 1G -- \
		perl -e '$x = "a" x (256 << 20); print length $x, "\n"'
	assert_output 268435456
	# bad values, and limits without a command
	run -2 --separate-stderr sbx record --max-memory 12X -- true
	assert_equal "${stderr_lines[0]}" "sbx record: error: --max-memory: invalid size '12X' (bytes, or with K, M, G)"
	run -2 --separate-stderr sbx record --max-pids 0 -- true
	assert_equal "${stderr_lines[0]}" "sbx record: error: invalid --max-pids '0'"
	run -2 --separate-stderr sbx record --max-pids 5 -a
	assert_equal "${stderr_lines[0]}" "sbx record: error: --max-pids and --max-memory limit a command sbx starts"
}

@test "a hardware event this machine cannot count: a clear error that points at cpu-clock" {
	perf stat -e instructions -x, true 2>&1 | grep -q 'not supported' ||
		skip_hw "this machine counts instructions"
	run -1 --separate-stderr sbx record -e instructions -o out.data -- "$W/hot" 1000
	assert_equal "$stderr" "sbx record: error: event 'instructions' is not supported on this machine (its PMU does not count it, or there is no hardware PMU: software events such as cpu-clock work everywhere)"
	[ ! -e out.data ]
}

@test "JIT code: the default clock lines samples up with a jitdump for perf inject --jit" {
	mkdir jit
	run -0 --separate-stderr sbx record -e cpu-clock -o out.data -- "$W/jit" "$PWD/jit"
	run -0 --separate-stderr perf inject --jit -i out.data -o injected.data
	perf_report --sort dso,sym -i injected.data
	assert_regex "$(top_entry)" '% +jitted-[0-9]+-0\.so +\[\.\] jitted_hot_loop$'
	# with another clock perf inject cannot line them up, and says so
	rm -rf jit && mkdir jit
	run -0 --separate-stderr sbx record -k realtime -e cpu-clock -o rt.data -- "$W/jit" "$PWD/jit" 10
	run --separate-stderr perf inject --jit -i rt.data -o injected.data
	[ "$status" -ne 0 ]
	assert_regex "$stderr" 'jitted code must be sampled with perf record -k 1'
}

@test "record --no-inherit: the command alone, not what it starts, as perf record --no-inherit" {
	cd "$BATS_TEST_TMPDIR"
	sbx record -q --no-inherit -o ni.data -- sh -c "$WORKLOADS/noploop 50; true"
	perf record -q --no-inherit -e cpu-clock -o pni.data -- sh -c "$WORKLOADS/noploop 50; true" \
		>/dev/null 2>&1
	# perf reads it, and neither has a sample of the child (the shell itself may have
	# none either: it only waits)
	run -0 perf script -F comm -i ni.data
	refute_output --partial noploop
	refute_output --partial -i warning
	run -0 perf script -F comm -i pni.data
	refute_output --partial noploop
	# without it, the child is there
	sbx record -q -o in.data -- sh -c "$WORKLOADS/noploop 50; true"
	run -0 sbx report -s comm -i in.data
	assert_output --partial noploop
	run -2 --separate-stderr sbx record --no-inherit -a -o x.data -- true
	assert_equal "${stderr_lines[0]}" "sbx record: error: --no-inherit and -a exclude each other (-a records every process)"
	run -2 --separate-stderr sbx record --no-inherit -C 0 -o x.data -- true
	assert_equal "${stderr_lines[0]}" "sbx record: error: --no-inherit and -C exclude each other (-C records every process on those CPUs)"
}
